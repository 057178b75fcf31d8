// Package einvoice is the one model supplier invoices and credit notes are turned into, whatever they
// arrived as, and the rules on it: Validate says which of the standard's arithmetic and required-field
// rules a document breaks, StorageFindings what the database cannot hold, Conformance what CEN's
// validator says of the syntax it was read from. The readers that fill the model are its subpackages,
// one per syntax (ubl, cii, ownjson), the PDF carver (pdf) and read, which tells them apart; extraction
// is deterministic (no guessing from layout or free text). The errors a reader returns, and the
// deadline that bounds its time, are defined here so that every reader returns the same ones.
//
// Amounts keep the sign the source document states. EN 16931 credit notes state positive amounts (the
// document type carries the direction), and invoices may hold negative lines (returns); neither is
// flipped or refused here, so the ledger decides the posting direction from Type.
package einvoice

import (
	"strings"
	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"

	"greatbook/internal/storable"
)

// DocType says whether a document asks the buyer to pay (invoice) or credits the buyer (credit_note).
type DocType string

// The document types the ledger posts.
const (
	TypeInvoice    DocType = "invoice"
	TypeCreditNote DocType = "credit_note"
)

// creditNoteTypeCodes are the UNTDID 1001 codes EN 16931 lists for credit notes. A credit note is posted
// in the opposite direction to an invoice, so every one of them (not only the common 381) maps to
// TypeCreditNote; every other code, 380 and 384 (corrected invoice) among them, is an invoice.
var creditNoteTypeCodes = map[string]bool{
	"81": true, "83": true, "261": true, "262": true, "296": true, "308": true,
	"381": true, "396": true, "420": true, "458": true, "532": true,
}

// DocTypeFor is the document type a UNTDID 1001 type code (BT-3) says: a credit note for the codes
// EN 16931 lists for one, an invoice for every other.
func DocTypeFor(typeCode string) DocType {
	if creditNoteTypeCodes[typeCode] {
		return TypeCreditNote
	}
	return TypeInvoice
}

// Format names the syntax a document was extracted from.
type Format string

// The formats the readers recognise.
const (
	FormatUBL     Format = "ubl"
	FormatCII     Format = "cii"
	FormatFacturX Format = "facturx"
	FormatJSON    Format = "json"
	// FormatText and FormatOCR are documents with no e-invoice inside,
	// read from a PDF's text layer or by OCR.
	FormatText    Format = "text"
	FormatOCR     Format = "ocr"
	FormatUnknown Format = "unknown"
	// FormatZUGFeRD1 is a bare ZUGFeRD 1.0 CrossIndustryDocument. A PDF carrying one is FormatFacturX,
	// like every PDF carrying a CII invoice: the PDF's format is what carried it, Profile says which.
	FormatZUGFeRD1 Format = "zugferd1"
)

// Party is the seller or the buyer of a document, with the identifiers that tell companies apart.
type Party struct {
	Name           string `json:"name"`
	VATID          string `json:"vat_id,omitempty"`
	EndpointID     string `json:"endpoint_id,omitempty"`
	EndpointScheme string `json:"endpoint_scheme,omitempty"`
	LegalID        string `json:"legal_id,omitempty"`
	// Address is the party's postal address (EN 16931 BG-5, BG-8), zero when
	// the source states no street, city or postcode.
	Address Address `json:"address,omitzero"`
}

// Address is a postal address as an invoice states it: up to three lines
// (EN 16931 BT-35, BT-36, BT-162 for the seller; BT-50, BT-51, BT-163 for
// the buyer), the city, the postcode and the country code. It is
// comparable, as a Party is.
type Address struct {
	Line1    string `json:"line1,omitempty"`
	Line2    string `json:"line2,omitempty"`
	Line3    string `json:"line3,omitempty"`
	City     string `json:"city,omitempty"`
	Postcode string `json:"postcode,omitempty"`
	Country  string `json:"country,omitempty"`
}

// Lines are the address lines that are set, in order.
func (a Address) Lines() []string {
	var out []string
	for _, l := range []string{a.Line1, a.Line2, a.Line3} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// PostalAddress is the address of the parts a source states: zero when it
// states no street, city or postcode (a country alone, as the builders
// write from a VAT id, is no address to compare). Lines past the third are
// left out; every part is trimmed of the whitespace XML pretty-printing puts
// around it.
func PostalAddress(lines []string, city, postcode, country string) Address {
	a := Address{City: strings.TrimSpace(city), Postcode: strings.TrimSpace(postcode), Country: strings.TrimSpace(country)}
	slots := []*string{&a.Line1, &a.Line2, &a.Line3}
	for _, l := range lines {
		if l = strings.TrimSpace(l); l != "" && len(slots) > 0 {
			*slots[0], slots = l, slots[1:]
		}
	}
	if a.Line1 == "" && a.City == "" && a.Postcode == "" {
		return Address{}
	}
	return a
}

// VATCountry returns the ISO 3166 country the prefix of p's VAT id names (EL is Greece, XI Northern
// Ireland), or "" when it has none.
func (p Party) VATCountry() string {
	id := normaliseID(p.VATID, ".-")
	if len(id) < 2 || id[0] < 'A' || id[0] > 'Z' || id[1] < 'A' || id[1] > 'Z' {
		return ""
	}
	switch id[:2] {
	case "EL":
		return "GR"
	case "XI":
		return "GB"
	}
	return id[:2]
}

// Line is one invoice or credit note line. Net is the line net amount as the source states it.
//
// Beyond the fields every format has, a line keeps what is needed to check Net honestly:
// PriceBaseQuantity (EN 16931 BT-149, the number of units UnitPrice is for; zero means one) and the sums
// of the line-level allowances and charges (BG-27, BG-28) the source applied to Net. These three are
// omitted from JSON when zero.
type Line struct {
	Description       string          `json:"description"`
	Quantity          decimal.Decimal `json:"quantity"`
	UnitPrice         decimal.Decimal `json:"unit_price"`
	PriceBaseQuantity decimal.Decimal `json:"price_base_quantity,omitzero"`
	Allowances        decimal.Decimal `json:"allowances,omitzero"`
	Charges           decimal.Decimal `json:"charges,omitzero"`
	Net               decimal.Decimal `json:"net"`
	TaxRate           decimal.Decimal `json:"tax_rate"`
	TaxCategory       string          `json:"tax_category,omitempty"`
}

// TaxSubtotal is the tax of one VAT category and rate: the amount taxed and the tax on it.
type TaxSubtotal struct {
	Category string          `json:"category,omitempty"`
	Rate     decimal.Decimal `json:"rate"`
	Taxable  decimal.Decimal `json:"taxable"`
	Tax      decimal.Decimal `json:"tax"`
}

// Totals are the document-level amounts (EN 16931 BG-22). Net is the total without VAT after document
// allowances and charges, Gross the total with VAT, Payable what is left to pay after Prepaid and Rounding.
type Totals struct {
	LineTotal      decimal.Decimal `json:"line_total"`
	AllowanceTotal decimal.Decimal `json:"allowances"`
	ChargeTotal    decimal.Decimal `json:"charges"`
	Net            decimal.Decimal `json:"net"`
	Tax            decimal.Decimal `json:"tax"`
	Gross          decimal.Decimal `json:"gross"`
	Prepaid        decimal.Decimal `json:"prepaid"`
	Rounding       decimal.Decimal `json:"rounding"`
	Payable        decimal.Decimal `json:"payable"`
}

// Document is an extracted invoice or credit note, the same shape whatever format it came from.
// Dates are YYYY-MM-DD; Currency is the ISO 4217 code of every amount.
type Document struct {
	Format           Format        `json:"format"`
	Type             DocType       `json:"type"`
	TypeCode         string        `json:"type_code,omitempty"` // UNTDID 1001: 380, 381, 384, ...
	Number           string        `json:"number"`
	IssueDate        string        `json:"issue_date"`
	DueDate          string        `json:"due_date,omitempty"`
	Currency         string        `json:"currency"`
	Seller           Party         `json:"seller"`
	Buyer            Party         `json:"buyer"`
	Lines            []Line        `json:"lines"`
	TaxSubtotals     []TaxSubtotal `json:"tax_subtotals"`
	Totals           Totals        `json:"totals"`
	BillingReference string        `json:"billing_reference,omitempty"` // the invoice a credit note or a corrected invoice (384) refers to
	// PayeeIBAN is the account the seller asks to be paid to (EN 16931 BT-84, the first credit transfer
	// account the document states), as it states it: the AP checks compare it with earlier invoices'.
	PayeeIBAN string `json:"payee_iban,omitempty"`
	// PayeeBIC is the payee's bank (EN 16931 BT-86) of the account PayeeIBAN names, as the document
	// states it. In JSON it is payment.bic (see Payment); payment.iban is PayeeIBAN itself.
	PayeeBIC string `json:"-"`
	// Specification is the specification identifier the document states (EN 16931 BT-24: CII's
	// GuidelineSpecifiedDocumentContextParameter/ID, UBL's CustomizationID), as it states it.
	Specification string `json:"specification,omitempty"`
	// Profile is the profile Specification names, one of the Profile constants; empty when the
	// document states none (the project's own JSON), ProfileOther for one this package does not know.
	Profile Profile `json:"profile,omitempty"`
	// Conformance is the EN 16931 rules' verdict on the UBL or CII the document was read from (see
	// Conformance), for the pipeline to file as findings. It is not a field of the document, so it is
	// neither stored with the fields nor compared.
	Conformance []Finding `json:"-"`
	// RulesJudged says CEN's validator judged the document (Conformance is its whole verdict).
	RulesJudged bool `json:"-"`
}

// SourceRef names the document the way its seller does, so that the same document sent twice (as UBL
// one day and as a Factur-X PDF the next, or with different spacing or case in its number) gets the same
// reference, while two sellers' INV-001 never collide. It is "<seller identity>/<number>".
//
// The seller identity is the first identifier present, in this order:
//   - VAT id, upper case, without whitespace, dots and dashes: "vat:SE556677889901";
//   - electronic address: "endpoint:<scheme>:<id>", both upper case without whitespace;
//   - legal registration id: "legal:<id>", upper case without whitespace;
//   - otherwise the name: "name:acme ab", NFKC-normalised, lower case, whitespace collapsed to one space.
//
// Every part is NFKC-normalised first, so full-width and compatibility characters compare equal. In the
// identity, '%' and '/' are escaped as %25 and %2F, so the first '/' always separates it from the number.
// The number is NFKC-normalised, trimmed, inner whitespace collapsed to one space, and upper case.
func (d Document) SourceRef() string {
	return sellerIdentity(d.Seller) + "/" + normaliseNumber(d.Number)
}

// NaturalRef is SourceRef when the document names both its seller and its
// number, and "" otherwise: a reference without either names nothing, and
// two such documents must not be taken for the same one.
func (d Document) NaturalRef() string {
	if _, ok := d.SellerIdentity(); !ok || normaliseNumber(d.Number) == "" {
		return ""
	}
	if ref := d.SourceRef(); storable.OK(ref, storable.MaxText) {
		return ref
	}
	return "" // over the bound once normalised: StorageFindings says so
}

// SellerIdentity is the seller part of SourceRef, and whether the document
// names its seller at all (a name or an identifier).
func (d Document) SellerIdentity() (string, bool) {
	id := sellerIdentity(d.Seller)
	return id, id != "name:"
}

func sellerIdentity(p Party) string {
	var identity string
	switch {
	case normaliseID(p.VATID, ".-") != "":
		identity = "vat:" + normaliseID(p.VATID, ".-")
	case normaliseID(p.EndpointID, "") != "":
		identity = "endpoint:" + normaliseID(p.EndpointScheme, "") + ":" + normaliseID(p.EndpointID, "")
	case normaliseID(p.LegalID, "") != "":
		identity = "legal:" + normaliseID(p.LegalID, "")
	default:
		identity = "name:" + normaliseName(p.Name)
	}
	return escapeIdentity(identity)
}

// normaliseID upper-cases an identifier and drops whitespace and the given separator characters.
func normaliseID(s, drop string) string {
	return fixedPoint(s, func(s string) string { return normaliseIDOnce(s, drop) })
}

// fixedPoint applies f until the result stops changing. Case mapping and
// NFKC do not commute for every string (U+0345, the Greek ypogegrammeni,
// upper-cases to U+0399), so one pass is not always idempotent; stored
// references must compare equal to freshly computed ones.
func fixedPoint(s string, f func(string) string) string {
	for range 8 {
		next := f(s)
		if next == s {
			return s
		}
		s = next
	}
	return s
}

func normaliseIDOnce(s, drop string) string {
	s = norm.NFKC.String(s)
	var b strings.Builder
	for _, r := range s {
		if unicode.IsSpace(r) || strings.ContainsRune(drop, r) {
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFKC.String(strings.ToUpper(b.String()))
}

// normaliseName lower-cases a name and collapses its whitespace.
func normaliseName(s string) string {
	return fixedPoint(s, func(s string) string {
		s = norm.NFKC.String(strings.ToLower(norm.NFKC.String(s)))
		return strings.Join(strings.Fields(s), " ")
	})
}

// normaliseNumber upper-cases a document number and collapses its whitespace.
func normaliseNumber(s string) string {
	return fixedPoint(s, func(s string) string {
		s = norm.NFKC.String(strings.ToUpper(norm.NFKC.String(s)))
		return strings.Join(strings.Fields(s), " ")
	})
}

func escapeIdentity(s string) string {
	if !strings.ContainsAny(s, "%/") {
		return s
	}
	return strings.NewReplacer("%", "%25", "/", "%2F").Replace(s)
}
