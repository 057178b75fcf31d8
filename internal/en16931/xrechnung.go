package en16931

import (
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// XRechnung is Germany's CIUS of EN 16931. KoSIT publishes its rules (BR-DE-*) in the xrechnung-schematron
// (github.com/itplr-kosit/xrechnung-schematron, src/validation/schematron/{ubl,cii}/XRechnung-*-validation.sch
// and common.sch, XRechnung 3.0). This product judges them only for a document that states an XRechnung
// specification identifier, and always as warnings: a German CIUS rule never makes an
// EN 16931 invoice invalid here; the reviewer sees it and decides.

// XRechnungPrefix starts every XRechnung specification identifier (BT-24): the CIUS, its extension, any version.
const XRechnungPrefix = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung"

// XRechnung 3.0's identifiers as common.sch declares them ($XR-CIUS-ID, $XR-EXTENSION-ID).
const (
	xrCIUSID      = "urn:cen.eu:en16931:2017#compliant#urn:xeinkauf.de:kosit:xrechnung_3.0"
	xrExtensionID = xrCIUSID + "#conformant#urn:xeinkauf.de:kosit:extension:xrechnung_3.0"
)

// XRechnungPrefix2 starts the identifiers of XRechnung before 2.3 (urn:xoev-de:kosit:standard:xrechnung_2.0, used
// by KoSIT's own test suite of those versions); such documents still arrive, and BR-DE-21 tells their sender
// that the identifier is outdated.
const XRechnungPrefix2 = "urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung"

// IsXRechnung reports whether the invoice states an XRechnung specification identifier (BT-24), of any version.
func (inv *Invoice) IsXRechnung() bool {
	id := inv.CustomizationID.Norm()
	return strings.HasPrefix(id, XRechnungPrefix) || strings.HasPrefix(id, XRechnungPrefix2)
}

// xrechnungRule is a BR-DE rule's flag and text as KoSIT publishes them. The flag here is always "warning";
// Official is KoSIT's own flag, shown in the rule table.
type xrechnungRule struct {
	Official string
	Message  string
}

// xrechnungRules are the texts of XRechnung-UBL-validation.sch (the CII file words them alike, except where
// noted). In BR-DE-18 KoSIT's <name/> and <value-of select="$XR-SKONTO-REGEX"/> are filled in.
var xrechnungRules = map[string]xrechnungRule{
	"BR-DE-1":    {"fatal", `[BR-DE-1] Eine Rechnung (INVOICE) muss Angaben zu "PAYMENT INSTRUCTIONS" (BG-16) enthalten.`},
	"BR-DE-2":    {"fatal", `[BR-DE-2] Die Gruppe "SELLER CONTACT" (BG-6) muss übermittelt werden.`},
	"BR-DE-3":    {"fatal", `[BR-DE-3] Das Element "Seller city" (BT-37) muss übermittelt werden.`},
	"BR-DE-4":    {"fatal", `[BR-DE-4] Das Element "Seller post code" (BT-38) muss übermittelt werden.`},
	"BR-DE-5":    {"fatal", `[BR-DE-5] Das Element "Seller contact point" (BT-41) muss übermittelt werden.`},
	"BR-DE-6":    {"fatal", `[BR-DE-6] Das Element "Seller contact telephone number" (BT-42) muss übermittelt werden.`},
	"BR-DE-7":    {"fatal", `[BR-DE-7] Das Element "Seller contact email address" (BT-43) muss übermittelt werden.`},
	"BR-DE-8":    {"fatal", `[BR-DE-8] Das Element "Buyer city" (BT-52) muss übermittelt werden.`},
	"BR-DE-9":    {"fatal", `[BR-DE-9] Das Element "Buyer post code" (BT-53) muss übermittelt werden.`},
	"BR-DE-10":   {"fatal", `[BR-DE-10] Das Element "Deliver to city" (BT-77) muss übermittelt werden, wenn die Gruppe "DELIVER TO ADDRESS" (BG-15) übermittelt wird.`},
	"BR-DE-11":   {"fatal", `[BR-DE-11] Das Element "Deliver to post code" (BT-78) muss übermittelt werden, wenn die Gruppe "DELIVER TO ADDRESS" (BG-15) übermittelt wird.`},
	"BR-DE-14":   {"fatal", `[BR-DE-14] Das Element "VAT category rate" (BT-119) muss übermittelt werden.`},
	"BR-DE-15":   {"fatal", `[BR-DE-15] Das Element "Buyer reference" (BT-10) muss übermittelt werden.`},
	"BR-DE-16":   {"fatal", `[BR-DE-16] Wenn in einer Rechnung die Steuercodes S, Z, E, AE, K, G, L oder M verwendet werden, muss mindestens eines der Elemente "Seller VAT identifier" (BT-31), "Seller tax registration identifier" (BT-32) oder "SELLER TAX REPRESENTATIVE PARTY" (BG-11) übermittelt werden.`},
	"BR-DE-17":   {"warning", `[BR-DE-17] Mit dem Element "Invoice type code" (BT-3) sollen ausschließlich folgende Codes aus der Codeliste UNTDID 1001 übermittelt werden: 326 (Partial invoice), 380 (Commercial invoice), 384 (Corrected invoice), 389 (Self-billed invoice) und 381 (Credit note),875 (Partial construction invoice), 876 (Partial final construction invoice), 877 (Final construction invoice).`},
	"BR-DE-18":   {"fatal", `[BR-DE-18] Skonto Zeilen in "Payment terms" (BT-20) müssen diesem regulärem Ausdruck entsprechen: ` + xrSkontoRegex + `. Die Informationen zur Gewährung von Skonto müssen wie folgt im Element "Payment terms" (BT-20) übermittelt werden: Anzugeben ist im ersten Segment "SKONTO", im zweiten "TAGE=n", im dritten "PROZENT=n". Prozentzahlen sind ohne Vorzeichen sowie mit Punkt getrennt von zwei Nachkommastellen anzugeben. Liegt dem zu berechnenden Betrag nicht BT-115, "fälliger Betrag" zugrunde, sondern nur ein Teil des fälligen Betrags der Rechnung, ist der Grundwert zur Berechnung von Skonto als viertes Segment "BASISBETRAG=n" gemäß dem semantischen Datentypen Amount anzugeben. Jeder Eintrag beginnt mit einer #, die Segmente sind mit einer # getrennt und eine Zeile schließt mit einer # ab. Am Ende einer vollständigen Skontoangabe muss ein XML-konformer Zeilenumbruch folgen. Alle Angaben zur Gewährung von Skonto müssen in Großbuchstaben gemacht werden. Zusätzliches Whitespace (Leerzeichen, Tabulatoren oder Zeilenumbrüche) ist nicht zulässig. Andere Zeichen oder Texte als in den oberen Vorgaben genannt sind nicht zulässig.`},
	"BR-DE-19":   {"warning", `[BR-DE-19] "Payment account identifier" (BT-84) soll eine korrekte IBAN enthalten, wenn in "Payment means type code" (BT-81) mit dem Code 58 SEPA als Zahlungsmittel gefordert wird.`},
	"BR-DE-21":   {"warning", `[BR-DE-21] Das Element "Specification identifier" (BT-24) soll syntaktisch der Kennung des Standards XRechnung entsprechen.`},
	"BR-DE-22":   {"fatal", `[BR-DE-22] Das "filename"-Attribut aller "EmbeddedDocumentBinaryObject"-Elemente muss eindeutig sein`},
	"BR-DE-23-a": {"fatal", `[BR-DE-23-a] Wenn BT-81 "Payment means type code" einen Schlüssel für Überweisungen enthält (30, 58), muss BG-17 "CREDIT TRANSFER" übermittelt werden.`},
	"BR-DE-23-b": {"fatal", `[BR-DE-23-b] Wenn BT-81 "Payment means type code" einen Schlüssel für Überweisungen enthält (30, 58), dürfen BG-18 und BG-19 nicht übermittelt werden.`},
	"BR-DE-24-a": {"fatal", `[BR-DE-24-a] Wenn BT-81 "Payment means type code" einen Schlüssel für Kartenzahlungen enthält (48, 54, 55), muss genau BG-18 "PAYMENT CARD INFORMATION" übermittelt werden.`},
	"BR-DE-24-b": {"fatal", `[BR-DE-24-b] Wenn BT-81 "Payment means type code" einen Schlüssel für Kartenzahlungen enthält (48, 54, 55), dürfen BG-17 und BG-19 nicht übermittelt werden.`},
	"BR-DE-25-a": {"fatal", `[BR-DE-25-a] Wenn BT-81 "Payment means type code" einen Schlüssel für Lastschriften enthält (59), muss genau BG-19 "DIRECT DEBIT" übermittelt werden.`},
	"BR-DE-25-b": {"fatal", `[BR-DE-25-b] Wenn BT-81 "Payment means type code" einen Schlüssel für Lastschriften enthält (59), dürfen BG-17 und BG-18 nicht übermittelt werden.`},
	"BR-DE-26":   {"warning", `[BR-DE-26] Wenn im Element "Invoice type code" (BT-3) der Code 384 (Corrected invoice) übergeben wird, soll PRECEDING INVOICE REFERENCE BG-3 mind. einmal vorhanden sein.`},
	"BR-DE-27":   {"warning", `[BR-DE-27] In BT-42 sollen mindestens drei Ziffern enthalten sein.`},
	"BR-DE-28":   {"warning", `[BR-DE-28] In BT-43 soll genau ein @-Zeichen enthalten sein, welches nicht von einem Leerzeichen, einem Punkt, aber mindestens zwei Zeichen auf beiden Seiten flankiert werden soll. Ein Punkt sollte nicht am Anfang oder am Ende stehen.`},
}

// The patterns of common.sch ($XR-SKONTO-REGEX, $XR-EMAIL-REGEX, $XR-TELEPHONE-REGEX). XPath's matches() finds
// the pattern anywhere unless anchored, as Go's MatchString does; all three are linear in RE2.
const xrSkontoRegex = `#(SKONTO)#TAGE=([0-9]+#PROZENT=[0-9]+\.[0-9]{2})(#BASISBETRAG=-?[0-9]+\.[0-9]{2})?#$`

var (
	xrSkonto    = regexp.MustCompile(xrSkontoRegex)
	xrEmail     = regexp.MustCompile("^[a-zA-Z0-9!#\\$%&\"*+/=?^_`{|}~-]+(\\.[a-zA-Z0-9!#\\$%&\"*+/=?^_`{|}~-]+)*@([a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?\\.)+[a-zA-Z0-9]([a-zA-Z0-9-]*[a-zA-Z0-9])?$")
	xrTelephone = regexp.MustCompile(`.*([0-9].*){3,}.*`)
	xrSkontoEnd = regexp.MustCompile(`#.+#`)
	xrLineBreak = regexp.MustCompile(`^\s*\n`)
	xrIBAN      = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[a-zA-Z0-9]{0,30}$`)
)

// xrRule adds a BR-DE rule: judged only for XRechnung documents, flagged warning.
func xrRule(id, term, context string, check func(inv *Invoice, fail func(field, detail string))) {
	xrechnungSet = append(xrechnungSet, Rule{ID: id, BusinessTerm: term, Context: "XRechnung: " + context, Syntaxes: []string{"ubl", "cii"},
		check: check, xrechnung: true})
}

func xrDocumentRule(id, term string, ok func(inv *Invoice) bool) {
	xrRule(id, term, "invoice", func(inv *Invoice, fail func(string, string)) {
		if !ok(inv) {
			fail("invoice", "")
		}
	})
}

// ibanOK is KoSIT's IBAN test: the shape, then ISO 7064 mod 97 = 1 over the rearranged characters.
func ibanOK(t Text) bool {
	s := strings.Map(func(r rune) rune {
		if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
			return -1
		}
		return r
	}, t.Value)
	if !xrIBAN.MatchString(s) {
		return false
	}
	s = s[4:] + s[:4]
	var digits strings.Builder
	for _, r := range strings.ToUpper(s) {
		if r >= 'A' {
			fmt.Fprintf(&digits, "%d", r-55)
		} else {
			digits.WriteRune(r)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// skontoOK is BR-DE-18 on the first payment terms: when a line starts with #, every such line matches the
// skonto pattern and the text after the last #…# starts with a line break (KoSIT's `every … satisfies A and B`).
func skontoOK(terms Text) bool {
	hashLines := 0
	for _, line := range strings.Split(terms.Value, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		if !strings.HasPrefix(line, "#") {
			continue
		}
		hashLines++
		if !xrSkonto.MatchString(line) {
			return false
		}
	}
	if hashLines == 0 {
		return true
	}
	parts := xrSkontoEnd.Split(terms.Value, -1)
	last := parts[len(parts)-1]
	return xrLineBreak.MatchString(last)
}

var (
	xrVATCodes  = map[string]bool{"S": true, "Z": true, "E": true, "AE": true, "K": true, "G": true, "L": true, "M": true}
	xrTypeCodes = map[string]bool{"326": true, "380": true, "384": true, "389": true, "381": true, "875": true, "876": true, "877": true}
)

func init() {
	xrDocumentRule("BR-DE-1", "BG-16", func(inv *Invoice) bool { return len(inv.PaymentMeans) > 0 })
	xrDocumentRule("BR-DE-2", "BG-6", func(inv *Invoice) bool { return !inv.Seller.Present || inv.Seller.Contact.Present })
	address := func(id, term, what string, addr func(inv *Invoice) Address, value func(Address) Text) {
		xrRule(id, term, what, func(inv *Invoice, fail func(string, string)) {
			if a := addr(inv); a.Present && !value(a).Filled() {
				fail(what, "")
			}
		})
	}
	seller := func(inv *Invoice) Address { return inv.Seller.Address }
	buyer := func(inv *Invoice) Address { return inv.Buyer.Address }
	deliverTo := func(inv *Invoice) Address { return inv.Delivery.Address }
	city := func(a Address) Text { return a.City }
	postCode := func(a Address) Text { return a.PostCode }
	address("BR-DE-3", "BT-37", "seller postal address (BG-5)", seller, city)
	address("BR-DE-4", "BT-38", "seller postal address (BG-5)", seller, postCode)
	address("BR-DE-8", "BT-52", "buyer postal address (BG-8)", buyer, city)
	address("BR-DE-9", "BT-53", "buyer postal address (BG-8)", buyer, postCode)
	address("BR-DE-10", "BT-77", "deliver to address (BG-15)", deliverTo, city)
	address("BR-DE-11", "BT-78", "deliver to address (BG-15)", deliverTo, postCode)
	contact := func(id, term string, ok func(Contact) bool) {
		xrRule(id, term, "seller contact (BG-6)", func(inv *Invoice, fail func(string, string)) {
			if c := inv.Seller.Contact; c.Present && !ok(c) {
				fail("seller contact", "")
			}
		})
	}
	contact("BR-DE-5", "BT-41", func(c Contact) bool { return c.Name.Filled() })
	contact("BR-DE-6", "BT-42", func(c Contact) bool { return c.Telephone.Filled() })
	contact("BR-DE-7", "BT-43", func(c Contact) bool { return c.Email.Filled() })
	contact("BR-DE-27", "BT-42", func(c Contact) bool { return xrTelephone.MatchString(c.Telephone.Norm()) })
	contact("BR-DE-28", "BT-43", func(c Contact) bool { return xrEmail.MatchString(c.Email.Norm()) })
	xrRule("BR-DE-14", "BT-119", "VAT breakdown (BG-23)", func(inv *Invoice, fail func(string, string)) {
		for _, tt := range inv.TaxTotals {
			for _, b := range tt.Breakdowns {
				if !b.Category.Rate.Filled() {
					fail("VAT breakdown "+b.Category.Code.Norm(), "")
				}
			}
		}
	})
	xrDocumentRule("BR-DE-15", "BT-10", func(inv *Invoice) bool { return inv.BuyerReference.Filled() })
	xrDocumentRule("BR-DE-16", "BT-31", func(inv *Invoice) bool {
		used := false
		for _, a := range inv.Allowances {
			used = used || (a.TaxCategory.IsVAT && xrVATCodes[a.TaxCategory.Code.Norm()])
		}
		for _, l := range inv.Lines {
			used = used || (l.Category.IsVAT && xrVATCodes[l.Category.Code.Norm()])
		}
		return !used || inv.Seller.VATID.Filled() || inv.Seller.TaxRegistrationID.Filled() || inv.TaxRep.Present
	})
	xrDocumentRule("BR-DE-17", "BT-3", func(inv *Invoice) bool { return xrTypeCodes[inv.TypeCode.Norm()] })
	xrDocumentRule("BR-DE-18", "BT-20", func(inv *Invoice) bool { return len(inv.PaymentTerms) == 0 || skontoOK(inv.PaymentTerms[0]) })
	xrDocumentRule("BR-DE-21", "BT-24", func(inv *Invoice) bool {
		id := inv.CustomizationID.Value
		return id == xrCIUSID || id == xrExtensionID
	})
	xrDocumentRule("BR-DE-22", "BT-125", func(inv *Invoice) bool {
		seen := map[string]bool{}
		for _, n := range inv.AttachmentNames {
			if !n.Present {
				continue
			}
			if seen[n.Value] {
				return false
			}
			seen[n.Value] = true
		}
		return true
	})
	xrDocumentRule("BR-DE-26", "BG-3", func(inv *Invoice) bool { return inv.TypeCode.Norm() != "384" || len(inv.PrecedingIDs) > 0 })
	means := func(id, term string, codes []string, ok func(PaymentMeans) bool) {
		xrRule(id, term, "payment instructions (BG-16) with code "+strings.Join(codes, ", "), func(inv *Invoice, fail func(string, string)) {
			for i, pm := range inv.PaymentMeans {
				for _, c := range codes {
					if pm.Code.Norm() == c && !ok(pm) {
						fail(fmt.Sprintf("payment means %d", i+1), "BT-81 "+c)
					}
				}
			}
		})
	}
	means("BR-DE-19", "BT-84", []string{"58"}, func(pm PaymentMeans) bool {
		return len(pm.PayeeAccounts) > 0 && ibanOK(pm.PayeeAccounts[0])
	})
	means("BR-DE-23-a", "BG-17", []string{"30", "58"}, func(pm PaymentMeans) bool { return pm.CreditTransfer })
	means("BR-DE-23-b", "BG-17", []string{"30", "58"}, func(pm PaymentMeans) bool { return !pm.Card && !pm.DirectDebit })
	means("BR-DE-24-a", "BG-18", []string{"48", "54", "55"}, func(pm PaymentMeans) bool { return pm.Card })
	means("BR-DE-24-b", "BG-18", []string{"48", "54", "55"}, func(pm PaymentMeans) bool { return !pm.CreditTransfer && !pm.DirectDebit })
	means("BR-DE-25-a", "BG-19", []string{"59"}, func(pm PaymentMeans) bool { return pm.DirectDebit })
	means("BR-DE-25-b", "BG-19", []string{"59"}, func(pm PaymentMeans) bool { return !pm.CreditTransfer && !pm.Card })
}
