package textfields

import (
	"strings"

	"greatbook/internal/pagetext"
)

// Internal label kinds beside the field names: labels that say where a
// value is not (delivery dates, customer numbers), the gross total, the
// headings of the seller's and the buyer's blocks, and the words of a
// document's title.
const (
	kindOther       = "other"
	kindGross       = "gross"
	kindCreditTitle = "credit_title"
	kindBuyerVAT    = "buyer_vat_id"
)

// labelDef is one label: its words (normalised as normToken does), the
// field it names, the languages it belongs to and how surely it names the
// field (the confidence of a value found right of it).
type labelDef struct {
	kind   string
	words  []string
	langs  []string
	weight float64
	// contextual labels ("Nr.", "vom") name their field only on a line that
	// also names the document ("Rechnung Nr. 4711 vom 2.1.2026").
	contextual bool
}

// labelTable lists the labels by field and language. A "|" separates
// phrases; a trailing "~" marks a weaker label (a generic word such as
// "Total" or "Datum").
var labelTable = []struct {
	kind, lang, phrases string
	weight              float64
}{
	{FieldNumber, "en", "invoice no|invoice number|invoice #|invoice nr|invoice num|inv no|invoice no #|bill no|bill number|credit note no|credit note number|credit note #", 0.9},
	{FieldNumber, "de", "rechnungsnummer|rechnungs-nr|rechnungsnr|rechnung nr|rechnung-nr|re-nr|rechnungs nr|rechnungs-nummer|gutschriftsnummer|gutschrift nr|gutschrift-nr|gutschriftnummer", 0.9},
	{FieldNumber, "fr", "facture no|no de facture|numéro de facture|numero de facture|no facture|facture numéro|avoir no|no d'avoir|numéro d'avoir", 0.9},
	{FieldNumber, "nl", "factuurnummer|factuur nr|factuurnr|factuur nummer|factuur no|creditnota nr|creditnotanummer|creditnota nummer", 0.9},
	{FieldIssueDate, "en", "invoice date|date of invoice|issue date|date of issue|credit note date|bill date", 0.9},
	{FieldIssueDate, "en fr", "date~", 0.85},
	{FieldIssueDate, "de", "rechnungsdatum|rechnungs-datum|ausstellungsdatum|gutschriftsdatum|belegdatum|datum der rechnung", 0.9},
	{FieldIssueDate, "de nl", "datum~", 0.85},
	{FieldIssueDate, "fr", "date de facture|date de facturation|date facture|date d'émission|date d'emission|date de l'avoir", 0.9},
	{FieldIssueDate, "nl", "factuurdatum|factuur datum|datum factuur|creditnotadatum", 0.9},
	{FieldDueDate, "en", "due date|payment due|due|pay by|due on|payment due date|payable by", 0.9},
	{FieldDueDate, "de", "fällig am|fälligkeit|fälligkeitsdatum|zahlbar bis|zahlungsziel|fällig bis|zahlbar bis zum|fällig", 0.9},
	{FieldDueDate, "fr", "échéance|date d'échéance|date échéance|date limite de paiement|à payer avant le|payable avant le|à régler avant le", 0.9},
	{FieldDueDate, "nl", "vervaldatum|te betalen voor|uiterste betaaldatum|betalen voor|vervaldag", 0.9},
	{FieldCurrency, "en", "currency", 0.9},
	{FieldCurrency, "de", "währung", 0.9},
	{FieldCurrency, "fr", "devise|monnaie", 0.9},
	{FieldCurrency, "nl", "valuta|munteenheid", 0.9},
	{FieldNet, "en", "subtotal|sub-total|sub total|net amount|total net|net total|total excl vat|total excluding vat|amount excl vat|total before tax|total excl tax|taxable amount|net value|total net amount", 0.9},
	{FieldNet, "en", "net~", 0.85},
	{FieldNet, "de", "nettobetrag|summe netto|nettosumme|gesamt netto|gesamtbetrag netto|zwischensumme|rechnungssumme ohne ust|summe ohne mwst|netto gesamt|nettowert|gesamtsumme netto|warenwert netto|rechnungsbetrag netto|betrag netto", 0.9},
	{FieldNet, "de nl", "netto~", 0.85},
	{FieldNet, "fr", "total ht|montant ht|sous-total|sous total|total hors taxes|montant hors taxes|net ht|total hors tva", 0.9},
	{FieldNet, "nl", "subtotaal|totaal excl btw|totaal exclusief btw|bedrag excl btw|totaal excl|netto bedrag|nettobedrag", 0.9},
	{FieldTax, "en", "vat amount|total vat|sales tax|tax amount|plus vat|vat total", 0.9},
	{FieldTax, "en", "vat~|tax~", 0.85},
	{FieldTax, "de", "mwst|ust|umsatzsteuer|mehrwertsteuer|steuerbetrag|zzgl mwst|zzgl ust|mwst-betrag|ust-betrag|summe mwst|summe ust|zuzüglich mwst|zzgl umsatzsteuer|enthaltene mwst|mwst betrag", 0.9},
	{FieldTax, "fr", "tva|montant tva|total tva|montant de la tva|montant de tva", 0.9},
	{FieldTax, "nl", "btw|btw-bedrag|btw bedrag|totaal btw|bedrag btw", 0.9},
	{FieldPayable, "en", "total due|amount due|balance due|amount payable|total payable|grand total|invoice total|total incl vat|total amount due|total to pay|please pay|total amount|total including vat|amount to pay", 0.92},
	{FieldPayable, "en fr", "total~", 0.84},
	{FieldPayable, "de", "zahlbetrag|rechnungsbetrag|endbetrag|zu zahlen|zu zahlender betrag|gesamtbetrag brutto|zahlbarer betrag|rechnungssumme|gesamtbetrag|gesamtsumme|summe brutto|rechnungsendbetrag", 0.92},
	{FieldPayable, "de", "summe~|gesamt~", 0.82},
	{FieldPayable, "fr", "total ttc|net à payer|montant ttc|total à payer|montant à payer|montant dû|reste à payer|net a payer", 0.92},
	{FieldPayable, "nl", "te betalen|totaal te betalen|totaalbedrag|totaal incl btw|te voldoen|bedrag te betalen|totaal inclusief btw|totaal bedrag", 0.92},
	{FieldPayable, "nl", "totaal~", 0.84},
	{kindGross, "en", "gross|gross amount|total gross|gross total", 0.8},
	{kindGross, "de", "bruttosumme|bruttobetrag|brutto|gesamt brutto|bruttowert", 0.8},
	{FieldSellerVAT, "en", "vat no|vat number|vat id|vat reg no|vat registration number|vat registration no|vat-id|vat reg|vat identification number|tax id|vat id no", 0.9},
	{FieldSellerVAT, "de", "ust-idnr|ust-id|ust-id-nr|ustidnr|ust-ident-nr|umsatzsteuer-id|umsatzsteuer-identifikationsnummer|ust id|ust-id nr|ust idnr|umsatzsteuer-idnr|ust-identnr|mwst-nr|uid|uid-nr", 0.9},
	{FieldSellerVAT, "fr", "no tva|numéro de tva|tva intracommunautaire|no tva intracommunautaire|no tva intra|no de tva|no intracommunautaire|numéro tva|no identification tva", 0.9},
	{FieldSellerVAT, "nl", "btw-nummer|btw nummer|btw-nr|btw nr|btw-id|btw id|btw-identificatienummer|btw no", 0.9},
	{kindBuyerVAT, "en", "customer vat no|customer vat id|customer vat number|your vat no|your vat id|buyer vat id|client vat no", 0.9},
	{kindBuyerVAT, "de", "ihre ust-idnr|ihre ust-id|kunden-ust-idnr|ust-idnr des kunden|ust-id kunde|ihre ust-id-nr", 0.9},
	{kindBuyerVAT, "fr", "no tva client|tva client|votre no tva|numéro de tva du client", 0.9},
	{kindBuyerVAT, "nl", "btw-nummer klant|uw btw-nummer|btw-nr klant|btw nummer klant", 0.9},
	{FieldIBAN, "", "iban|iban-nr|iban nr|iban-nummer|iban no", 0.9},
	{kindCreditTitle, "en", "credit note|credit memo|creditnote", 0.9},
	{kindCreditTitle, "de", "gutschrift|rechnungsgutschrift|stornorechnung", 0.9},
	{kindCreditTitle, "fr", "avoir|facture d'avoir", 0.9},
	{kindCreditTitle, "nl", "creditnota|creditfactuur", 0.9},
	{kindOther, "en", "delivery date|order date|date of supply|service date|shipping date|customer no|customer number|order no|order number|tax rate|vat rate|tax number|page|po number|delivery note|due in|account no|customer id|total quantity|total items", 0.9},
	{kindOther, "de", "lieferdatum|leistungsdatum|bestelldatum|auftragsdatum|kundennummer|kunden-nr|kundennr|bestellnummer|auftragsnummer|steuernummer|steuer-nr|st-nr|seite|steuersatz|mwst-satz|ust-satz|lieferscheinnummer|lieferschein-nr|liefer- und leistungsdatum|bestellung vom|zahlbar innerhalb|netto-tage|skonto|datum der lieferung|leistungszeitraum", 0.9},
	{kindOther, "fr", "date de livraison|date de commande|no client|numéro client|code client|taux de tva|taux|page|bon de commande|no de commande|date de prestation", 0.9},
	{kindOther, "nl", "leverdatum|besteldatum|klantnummer|klant nr|bestelnummer|ordernummer|btw-tarief|btw tarief|pagina|leveringsdatum", 0.9},
}

// documentStems are the words a document's title or a contextual label's
// line contains, with the language they tell.
var documentStems = []struct{ stem, lang string }{
	{"invoice", "en"}, {"rechnung", "de"}, {"gutschrift", "de"}, {"facture", "fr"}, {"avoir", "fr"},
	{"factuur", "nl"}, {"creditnota", "nl"}, {"credit note", "en"}, {"bill", "en"},
}

// contextualLabels name a field only on a line that names the document.
var contextualLabels = []struct{ kind, phrase string }{
	{FieldNumber, "no"}, {FieldNumber, "nr"}, {FieldNumber, "nummer"}, {FieldNumber, "number"},
	{FieldNumber, "numéro"}, {FieldNumber, "#"}, {FieldNumber, "nº"},
	{FieldIssueDate, "vom"}, {FieldIssueDate, "du"}, {FieldIssueDate, "van"}, {FieldIssueDate, "dated"}, {FieldIssueDate, "of"},
}

// labelIndex finds labels by their first word, so that matching a page
// costs a few map look-ups per word, whatever the number of labels.
type labelIndex map[string][]labelDef

var labels = func() labelIndex {
	idx := labelIndex{}
	add := func(d labelDef) { idx[d.words[0]] = append(idx[d.words[0]], d) }
	for _, row := range labelTable {
		for _, p := range strings.Split(row.phrases, "|") {
			w := row.weight
			p = strings.TrimSuffix(p, "~")
			var words []string
			for _, f := range strings.Fields(p) {
				words = append(words, normToken(f))
			}
			add(labelDef{kind: row.kind, words: words, langs: strings.Fields(row.lang), weight: w})
		}
	}
	for _, c := range contextualLabels {
		add(labelDef{kind: c.kind, words: []string{normToken(c.phrase)}, weight: 0.85, contextual: true})
	}
	return idx
}()

// labelHit is one label found on a line: words [start, end) of the line.
type labelHit struct {
	def        labelDef
	line       *textLine
	start, end int
}

// text is the label as printed.
func (h labelHit) text() string { return joinWords(h.line.words[h.start:h.end]) }

// findLabels returns the labels on a line, left to right, the longest label
// at each word winning ("Total due" over "Total", "Due date" over "Date").
func findLabels(l *textLine) []labelHit {
	var hits []labelHit
	documentAt := -1
	for i, tok := range l.toks {
		if documentAt < 0 && hasDocumentStem(tok) {
			documentAt = i
		}
	}
	for i := 0; i < len(l.toks); {
		var best *labelDef
		for k := range labels[l.toks[i]] {
			d := &labels[l.toks[i]][k]
			if len(d.words) > len(l.toks)-i || (best != nil && len(d.words) <= len(best.words)) {
				continue
			}
			if d.contextual && (documentAt < 0 || documentAt >= i) {
				continue
			}
			match := true
			for j, w := range d.words {
				if l.toks[i+j] != w {
					match = false
					break
				}
			}
			if match {
				best = d
			}
		}
		if best == nil {
			i++
			continue
		}
		hits = append(hits, labelHit{def: *best, line: l, start: i, end: i + len(best.words)})
		i += len(best.words)
	}
	return hits
}

func hasDocumentStem(tok string) bool {
	for _, s := range documentStems {
		if strings.Contains(tok, s.stem) {
			return true
		}
	}
	return false
}

// detectLanguage is the language most labels and title words belong to,
// "" when none tells.
func detectLanguage(hits []labelHit, pages [][]textLine) string {
	score := map[string]float64{}
	for _, h := range hits {
		for _, l := range h.def.langs {
			score[l] += 1 / float64(len(h.def.langs))
		}
	}
	if len(pages) > 0 { // the first page tells
		for _, line := range pages[0] {
			for _, tok := range line.toks {
				for _, s := range documentStems {
					if strings.Contains(tok, s.stem) {
						score[s.lang] += 0.5
					}
				}
			}
		}
	}
	best, bestScore := "", 0.0
	for _, l := range []string{"en", "de", "fr", "nl"} {
		if score[l] > bestScore {
			best, bestScore = l, score[l]
		}
	}
	return best
}

// buyerHeading and sellerHeading are the words that open a party's block;
// a VAT id or a name under a buyer heading is the buyer's.
var (
	buyerStems = []string{"bill to", "billed to", "invoice to", "customer", "client", "buyer", "sold to",
		"rechnungsempfänger", "leistungsempfänger", "kunde", "käufer", "rechnungsadresse", "empfänger",
		"facturé à", "facturer à", "adresse de facturation", "acheteur", "destinataire", "klant", "afnemer", "koper", "factuuradres"}
	sellerStems = []string{"seller", "supplier", "vendor", "from", "verkäufer", "lieferant", "absender", "rechnungssteller",
		"fournisseur", "vendeur", "émetteur", "leverancier", "verkoper", "afzender"}
)

// partyOf says whose block a heading opens: "buyer", "seller" or "". A
// heading is a short run of words.
func partyOf(ws []pagetext.Word) string {
	if len(ws) == 0 || len(ws) > 4 {
		return ""
	}
	text := foldAccents(strings.ToLower(joinWords(ws)))
	switch strings.TrimSuffix(text, ":") {
	case "an", "to", "aan", "a", "fur", "for", "pour", "voor":
		return "buyer"
	case "von", "van", "de":
		return "seller"
	}
	for _, s := range sellerStems {
		if strings.HasPrefix(text, foldAccents(s)) {
			return "seller"
		}
	}
	for _, s := range buyerStems {
		if strings.Contains(text, foldAccents(s)) {
			return "buyer"
		}
	}
	return ""
}
