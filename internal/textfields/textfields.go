// Package textfields reads an invoice's fields from the words of its pages
// (package pagetext): number, dates, currency, totals, the parties, the
// IBAN and, where a table is recognisable, the lines. It knows the labels
// and the date and number formats of English, German, French and Dutch
// invoices, checks what can be checked (IBAN and VAT-id check digits,
// net + tax = payable, plausible dates) and gives every value a confidence.
// A supplier's layout, learned from a confirmed reading, reads the next
// invoice of that supplier by the places of its fields.
package textfields

import (
	"greatbook/internal/einvoice"
	"greatbook/internal/pagetext"
)

// Field names, as a Reading's Fields keys and a Layout's anchors.
const (
	FieldNumber     = "number"
	FieldIssueDate  = "issue_date"
	FieldDueDate    = "due_date"
	FieldCurrency   = "currency"
	FieldNet        = "net"
	FieldTax        = "tax"
	FieldPayable    = "payable"
	FieldSellerName = "seller_name"
	FieldSellerVAT  = "seller_vat_id"
	FieldIBAN       = "iban"
	FieldBuyerName  = "buyer_name"
)

// Key are the fields a document must have read with confidence to be filed
// pending without a person's look.
var Key = []string{FieldNumber, FieldIssueDate, FieldCurrency, FieldPayable}

// Certain is the confidence from which a value counts as read.
const Certain = 0.8

// Field is one value as read: in the document's canonical form (ISO date,
// decimal amount with a point, ISO 4217 code, IBAN without spaces), with
// the label it was found by and where on which page it stands.
type Field struct {
	Value      string       `json:"value"`
	Confidence float64      `json:"confidence"`
	Page       int          `json:"page,omitempty"`
	Box        pagetext.Box `json:"box"`
	Label      string       `json:"label,omitempty"`
}

// Reading is what was read from a document's text. Document carries the
// values (with lines when a table was recognised); Fields every value's
// confidence and place; Uncertain names the fields, of Key and of the
// others found, below Certain or failing a check. SupplierKey identifies
// the seller for layout learning (its VAT id, else its IBAN, else its
// normalised name); Layout says a learned layout was used.
type Reading struct {
	Document    einvoice.Document `json:"document"`
	Fields      map[string]Field  `json:"fields"`
	Uncertain   []string          `json:"uncertain,omitempty"`
	Language    string            `json:"language,omitempty"`
	SupplierKey string            `json:"supplier_key,omitempty"`
	Layout      bool              `json:"layout,omitempty"`
}

// Certain reports whether every Key field was read with confidence.
func (r Reading) Certain() bool {
	for _, k := range Key {
		f, ok := r.Fields[k]
		if !ok || f.Confidence < Certain {
			return false
		}
	}
	return true
}

// Layout is where a supplier's invoices carry their fields: for each field,
// the label before it and the value's place, learned from one reading a
// person confirmed or corrected.
type Layout struct {
	Fields map[string]Anchor `json:"fields"`
}

// Anchor is one field's place in a layout: its label's text and box (empty
// when the value stands alone) and the value's box, on a page.
type Anchor struct {
	Label    string       `json:"label,omitempty"`
	LabelBox pagetext.Box `json:"label_box"`
	Page     int          `json:"page"`
	Box      pagetext.Box `json:"box"`
}
