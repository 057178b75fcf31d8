// Package ownjson reads and writes the project's own JSON document format: Parse reads it strictly,
// filling in what a document may leave out, and Marshal writes any Document so that Parse gives it back.
package ownjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/money"
)

// jsonDocument is the project's own JSON document format as Parse reads it.
type jsonDocument struct {
	Type             string         `json:"type"`
	TypeCode         string         `json:"type_code"`
	Number           string         `json:"number"`
	IssueDate        string         `json:"issue_date"`
	DueDate          string         `json:"due_date"`
	Currency         string         `json:"currency"`
	Seller           einvoice.Party `json:"seller"`
	Buyer            einvoice.Party `json:"buyer"`
	Lines            []jsonLine     `json:"lines"`
	TaxSubtotals     []jsonSubtotal `json:"tax_subtotals"`
	Totals           *jsonTotals    `json:"totals"`
	BillingReference *string        `json:"billing_reference"`
	PayeeIBAN        string         `json:"payee_iban"`
	// Payment is the creditor's account; its iban is payee_iban (a document may state either, or
	// both when they agree).
	Payment *jsonPayment `json:"payment"`
}

type jsonPayment struct {
	IBAN string `json:"iban"`
	BIC  string `json:"bic"`
}

type jsonLine struct {
	Description       string     `json:"description"`
	Quantity          jsonAmount `json:"quantity"`
	UnitPrice         jsonAmount `json:"unit_price"`
	PriceBaseQuantity jsonAmount `json:"price_base_quantity"`
	Allowances        jsonAmount `json:"allowances"`
	Charges           jsonAmount `json:"charges"`
	Net               jsonAmount `json:"net"`
	TaxRate           jsonAmount `json:"tax_rate"`
	TaxCategory       string     `json:"tax_category"`
}

type jsonSubtotal struct {
	Category string     `json:"category"`
	Rate     jsonAmount `json:"rate"`
	Taxable  jsonAmount `json:"taxable"`
	Tax      jsonAmount `json:"tax"`
}

type jsonTotals struct {
	LineTotal      jsonAmount `json:"line_total"`
	AllowanceTotal jsonAmount `json:"allowances"`
	ChargeTotal    jsonAmount `json:"charges"`
	Net            jsonAmount `json:"net"`
	Tax            jsonAmount `json:"tax"`
	Gross          jsonAmount `json:"gross"`
	Prepaid        jsonAmount `json:"prepaid"`
	Rounding       jsonAmount `json:"rounding"`
	Payable        jsonAmount `json:"payable"`
}

// jsonAmount keeps the raw JSON of an amount so that its path can be named when it is refused.
type jsonAmount struct {
	raw json.RawMessage
}

// UnmarshalJSON implements json.Unmarshaler; the value is checked later, where its path is known.
func (a *jsonAmount) UnmarshalJSON(b []byte) error {
	a.raw = append(a.raw[:0], b...)
	return nil
}

// present reports a value other than null.
func (a jsonAmount) present() bool {
	return len(a.raw) > 0 && string(a.raw) != "null"
}

// amounts converts jsonAmount values, keeping the first error.
type amounts struct {
	err *einvoice.ParseError
}

func (c *amounts) read(field string, a jsonAmount, required bool) decimal.Decimal {
	if c.err != nil {
		return decimal.Decimal{}
	}
	if !a.present() {
		if required {
			c.err = einvoice.ParseErrorf(einvoice.FormatJSON, field, "required")
		}
		return decimal.Decimal{}
	}
	if a.raw[0] != '"' {
		if a.raw[0] == '-' || (a.raw[0] >= '0' && a.raw[0] <= '9') {
			c.err = einvoice.ParseErrorf(einvoice.FormatJSON, field, "must be a decimal string such as \"12.50\", not a JSON number")
		} else {
			c.err = einvoice.ParseErrorf(einvoice.FormatJSON, field, "must be a decimal string such as \"12.50\"")
		}
		return decimal.Decimal{}
	}
	var s string
	if err := json.Unmarshal(a.raw, &s); err != nil {
		c.err = einvoice.ParseErrorf(einvoice.FormatJSON, field, "must be a decimal string such as \"12.50\"")
		return decimal.Decimal{}
	}
	d, err := money.Parse(s)
	if err != nil {
		c.err = einvoice.ParseErrorf(einvoice.FormatJSON, field, "%q is not a plain decimal (digits, optional '-' and '.', no exponent or separators)", einvoice.ClipText(s))
		return decimal.Decimal{}
	}
	return d
}

// Parse reads the project's own JSON document format (docs/api.md, "The JSON document format") strictly: an unknown field is refused,
// so is a key repeated in one object and nesting deeper than 64,
// and every amount, quantity and rate must be a decimal string, never a JSON number (a float would lose
// cents); either gives a *ParseError naming the field.
//
// Beyond the fields docs/api.md lists, the format accepts these documented additions, so that any Document
// survives Marshal and Parse unchanged: "type_code"; the parties' "endpoint_id",
// "endpoint_scheme" and "legal_id"; per line "net", "tax_category", "price_base_quantity",
// "allowances" and "charges"; "tax_subtotals"; and every Totals field ("line_total", "allowances",
// "charges", "gross", "prepaid", "rounding" next to "net", "tax" and "payable").
//
// Missing values are computed the way the typewriter prints them: a line's net is quantity × unit price
// (÷ price base quantity, + charges − allowances) rounded half away from zero to the currency's minor
// units; without "tax_subtotals" the lines are grouped by tax category and rate and each group's tax is
// rounded once; without "totals" every total follows from those. Totals that are given are kept exactly as
// given, and missing ones are filled in around them, so Validate can tell whether the given ones add up.
// A line without "tax_category" gets "S" (standard rate) when its rate is not zero and "Z" (zero rated)
// when it is; without "type_code" an invoice gets 380 and a credit note 381.
func Parse(data []byte) (einvoice.Document, error) {
	return ParseUntil(nil, data)
}

// ParseUntil is Parse that stops once dl has passed.
func ParseUntil(dl *einvoice.Deadline, data []byte) (einvoice.Document, error) {
	if err := checkUTF8(data); err != nil {
		return einvoice.Document{}, err
	}
	if err := checkJSON(dl, data); err != nil {
		return einvoice.Document{}, err
	}
	dec := json.NewDecoder(dl.Reader(data))
	dec.DisallowUnknownFields()
	var src jsonDocument
	if err := dec.Decode(&src); err != nil {
		return einvoice.Document{}, jsonError(err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return einvoice.Document{}, einvoice.ParseErrorf(einvoice.FormatJSON, "", "unexpected data after the document")
	}

	doc := einvoice.Document{
		Format:       einvoice.FormatJSON,
		Type:         einvoice.DocType(src.Type),
		TypeCode:     strings.TrimSpace(src.TypeCode),
		Number:       src.Number,
		IssueDate:    src.IssueDate,
		DueDate:      src.DueDate,
		Currency:     src.Currency,
		Seller:       src.Seller,
		Buyer:        src.Buyer,
		Lines:        []einvoice.Line{},
		TaxSubtotals: []einvoice.TaxSubtotal{},
		PayeeIBAN:    src.PayeeIBAN,
	}
	if src.BillingReference != nil {
		doc.BillingReference = *src.BillingReference
	}
	if p := src.Payment; p != nil {
		if doc.PayeeIBAN != "" && p.IBAN != "" && p.IBAN != doc.PayeeIBAN {
			return einvoice.Document{}, einvoice.ParseErrorf(einvoice.FormatJSON, "payment.iban",
				"payment.iban %q is not payee_iban %q: a document names one account", p.IBAN, doc.PayeeIBAN)
		}
		if doc.PayeeIBAN == "" {
			doc.PayeeIBAN = p.IBAN
		}
		doc.PayeeBIC = p.BIC
	}
	if err := completeJSONType(&doc); err != nil {
		return einvoice.Document{}, err
	}

	minor := einvoice.MinorUnitsOf(doc.Currency)
	c := &amounts{}
	for i, l := range src.Lines {
		doc.Lines = append(doc.Lines, c.line(fmt.Sprintf("lines[%d].", i), l, minor))
	}

	if src.TaxSubtotals != nil {
		for i, s := range src.TaxSubtotals {
			field := fmt.Sprintf("tax_subtotals[%d].", i)
			doc.TaxSubtotals = append(doc.TaxSubtotals, einvoice.TaxSubtotal{
				Category: s.Category,
				Rate:     c.read(field+"rate", s.Rate, true),
				Taxable:  c.read(field+"taxable", s.Taxable, true),
				Tax:      c.read(field+"tax", s.Tax, true),
			})
		}
	} else {
		doc.TaxSubtotals = einvoice.ComputeSubtotals(doc.Lines, minor)
	}

	doc.Totals = c.totals(src.Totals, doc.Lines, doc.TaxSubtotals)

	if c.err != nil {
		return einvoice.Document{}, c.err
	}
	return doc, nil
}

// completeJSONType checks doc's type (as given) against its type code and fills in whichever of the
// two is missing: the type from the code, or 380 for an invoice and 381 for a credit note.
func completeJSONType(doc *einvoice.Document) error {
	switch doc.Type {
	case einvoice.TypeInvoice, einvoice.TypeCreditNote:
	case "":
		if doc.TypeCode != "" {
			doc.Type = einvoice.DocTypeFor(doc.TypeCode)
		}
	default:
		return einvoice.ParseErrorf(einvoice.FormatJSON, "type", "%q is neither \"invoice\" nor \"credit_note\"", einvoice.ClipText(string(doc.Type)))
	}
	switch {
	case doc.TypeCode == "" && doc.Type == einvoice.TypeInvoice:
		doc.TypeCode = "380"
	case doc.TypeCode == "" && doc.Type == einvoice.TypeCreditNote:
		doc.TypeCode = "381"
	case doc.TypeCode != "" && einvoice.DocTypeFor(doc.TypeCode) != doc.Type:
		return einvoice.ParseErrorf(einvoice.FormatJSON, "type_code", "%q is a code for a %s, but type is %q", einvoice.ClipText(doc.TypeCode), einvoice.DocTypeFor(doc.TypeCode), doc.Type)
	}
	return nil
}

// line reads the line l, reported under field: a missing net is the computed one rounded to the
// currency's minor units, a missing tax category S or Z by the rate.
func (c *amounts) line(field string, l jsonLine, minor int32) einvoice.Line {
	line := einvoice.Line{
		Description:       l.Description,
		Quantity:          c.read(field+"quantity", l.Quantity, true),
		UnitPrice:         c.read(field+"unit_price", l.UnitPrice, true),
		PriceBaseQuantity: c.read(field+"price_base_quantity", l.PriceBaseQuantity, false),
		Allowances:        c.read(field+"allowances", l.Allowances, false),
		Charges:           c.read(field+"charges", l.Charges, false),
		TaxRate:           c.read(field+"tax_rate", l.TaxRate, true),
		TaxCategory:       l.TaxCategory,
	}
	line.Net = c.read(field+"net", l.Net, false)
	if !l.Net.present() {
		line.Net = line.ExpectedNet().Round(minor)
	}
	if line.TaxCategory == "" {
		line.TaxCategory = "Z"
		if !line.TaxRate.IsZero() {
			line.TaxCategory = "S"
		}
	}
	return line
}

// totals reads the totals given (nil when the document has none) and computes each one missing from
// the lines, the tax subtotals and the totals before it.
func (c *amounts) totals(src *jsonTotals, lines []einvoice.Line, subtotals []einvoice.TaxSubtotal) einvoice.Totals {
	var given jsonTotals
	if src != nil {
		given = *src
	}
	var totals einvoice.Totals
	t := &totals
	fill := func(field string, a jsonAmount, target *decimal.Decimal, computed func() decimal.Decimal) {
		if a.present() {
			*target = c.read("totals."+field, a, false)
			return
		}
		*target = computed()
	}
	fill("line_total", given.LineTotal, &t.LineTotal, func() decimal.Decimal { return einvoice.SumLineNets(lines) })
	fill("allowances", given.AllowanceTotal, &t.AllowanceTotal, func() decimal.Decimal { return decimal.Decimal{} })
	fill("charges", given.ChargeTotal, &t.ChargeTotal, func() decimal.Decimal { return decimal.Decimal{} })
	fill("net", given.Net, &t.Net, func() decimal.Decimal { return t.LineTotal.Sub(t.AllowanceTotal).Add(t.ChargeTotal) })
	fill("tax", given.Tax, &t.Tax, func() decimal.Decimal { return einvoice.SumSubtotalTax(subtotals) })
	fill("gross", given.Gross, &t.Gross, func() decimal.Decimal { return t.Net.Add(t.Tax) })
	fill("prepaid", given.Prepaid, &t.Prepaid, func() decimal.Decimal { return decimal.Decimal{} })
	fill("rounding", given.Rounding, &t.Rounding, func() decimal.Decimal { return decimal.Decimal{} })
	fill("payable", given.Payable, &t.Payable, func() decimal.Decimal { return t.Gross.Sub(t.Prepaid).Add(t.Rounding) })
	return totals
}

// checkUTF8 refuses JSON text that is not UTF-8 (RFC 8259 §8.1), which
// encoding/json would silently turn into U+FFFD, changing the document's
// number or seller and so its reference.
func checkUTF8(data []byte) error {
	if utf8.Valid(data) {
		return nil
	}
	offset := 0
	for offset < len(data) {
		r, size := utf8.DecodeRune(data[offset:])
		if r == utf8.RuneError && size <= 1 {
			break
		}
		offset += size
	}
	return einvoice.ParseErrorf(einvoice.FormatJSON, "", "the document is not valid UTF-8 (byte %d); JSON must be UTF-8", offset)
}

// jsonError turns an encoding/json error into a ParseError that names the field when it can.
func jsonError(err error) *einvoice.ParseError {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return einvoice.ParseErrorf(einvoice.FormatJSON, "", "malformed JSON at offset %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return einvoice.ParseErrorf(einvoice.FormatJSON, "", "the document must be a JSON object, not a JSON %s", typeErr.Value)
		}
		return einvoice.ParseErrorf(einvoice.FormatJSON, typeErr.Field, "must not be a JSON %s", typeErr.Value)
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return einvoice.ParseErrorf(einvoice.FormatJSON, "", "the document is empty or cut short")
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return einvoice.ParseErrorf(einvoice.FormatJSON, strings.Trim(name, `"`), "unknown field (check its spelling against the documented format)")
	}
	return einvoice.ParseErrorf(einvoice.FormatJSON, "", "%s", strings.TrimPrefix(msg, "json: "))
}

// ownJSON is the shape Marshal writes: the format Parse reads, every value spelled out.
type ownJSON struct {
	Type             einvoice.DocType  `json:"type"`
	TypeCode         string            `json:"type_code,omitempty"`
	Number           string            `json:"number"`
	IssueDate        string            `json:"issue_date"`
	DueDate          string            `json:"due_date,omitempty"`
	Currency         string            `json:"currency"`
	Seller           einvoice.Party    `json:"seller"`
	Buyer            einvoice.Party    `json:"buyer"`
	Lines            []ownJSONLine     `json:"lines"`
	TaxSubtotals     []ownJSONSubtotal `json:"tax_subtotals"`
	Totals           ownJSONTotals     `json:"totals"`
	BillingReference *string           `json:"billing_reference"`
	PayeeIBAN        string            `json:"payee_iban,omitempty"`
	Payment          *einvoice.Payment `json:"payment,omitempty"`
}

type ownJSONLine struct {
	Description       string `json:"description"`
	Quantity          string `json:"quantity"`
	UnitPrice         string `json:"unit_price"`
	PriceBaseQuantity string `json:"price_base_quantity,omitempty"`
	Allowances        string `json:"allowances,omitempty"`
	Charges           string `json:"charges,omitempty"`
	Net               string `json:"net"`
	TaxRate           string `json:"tax_rate"`
	TaxCategory       string `json:"tax_category,omitempty"`
}

type ownJSONSubtotal struct {
	Category string `json:"category,omitempty"`
	Rate     string `json:"rate"`
	Taxable  string `json:"taxable"`
	Tax      string `json:"tax"`
}

type ownJSONTotals struct {
	LineTotal      string `json:"line_total"`
	AllowanceTotal string `json:"allowances"`
	ChargeTotal    string `json:"charges"`
	Net            string `json:"net"`
	Tax            string `json:"tax"`
	Gross          string `json:"gross"`
	Prepaid        string `json:"prepaid"`
	Rounding       string `json:"rounding"`
	Payable        string `json:"payable"`
}

// Marshal writes d in the project's own JSON document format, with every line net, subtotal and
// total spelled out so that Parse gives d back (Format aside, which becomes json). Amounts are written
// with the currency's minor units ("100.00") when that loses nothing, and in canonical form otherwise.
// It fails when an amount is too long for Parse to accept.
func Marshal(d einvoice.Document) ([]byte, error) {
	minor := einvoice.MinorUnitsOf(d.Currency)
	w := &amountWriter{minor: minor}
	out := ownJSON{
		Type:         d.Type,
		TypeCode:     d.TypeCode,
		Number:       d.Number,
		IssueDate:    d.IssueDate,
		DueDate:      d.DueDate,
		Currency:     d.Currency,
		Seller:       d.Seller,
		Buyer:        d.Buyer,
		PayeeIBAN:    d.PayeeIBAN,
		Payment:      d.Payment(),
		Lines:        make([]ownJSONLine, 0, len(d.Lines)),
		TaxSubtotals: make([]ownJSONSubtotal, 0, len(d.TaxSubtotals)),
	}
	if d.BillingReference != "" {
		ref := d.BillingReference
		out.BillingReference = &ref
	}
	for i, l := range d.Lines {
		field := fmt.Sprintf("lines[%d].", i)
		out.Lines = append(out.Lines, ownJSONLine{
			Description:       l.Description,
			Quantity:          w.exact(field+"quantity", l.Quantity),
			UnitPrice:         w.money(field+"unit_price", l.UnitPrice),
			PriceBaseQuantity: w.optionalExact(field+"price_base_quantity", l.PriceBaseQuantity),
			Allowances:        w.optional(field+"allowances", l.Allowances),
			Charges:           w.optional(field+"charges", l.Charges),
			Net:               w.money(field+"net", l.Net),
			TaxRate:           w.exact(field+"tax_rate", l.TaxRate),
			TaxCategory:       l.TaxCategory,
		})
	}
	for i, s := range d.TaxSubtotals {
		field := fmt.Sprintf("tax_subtotals[%d].", i)
		out.TaxSubtotals = append(out.TaxSubtotals, ownJSONSubtotal{
			Category: s.Category,
			Rate:     w.exact(field+"rate", s.Rate),
			Taxable:  w.money(field+"taxable", s.Taxable),
			Tax:      w.money(field+"tax", s.Tax),
		})
	}
	t := d.Totals
	out.Totals = ownJSONTotals{
		LineTotal:      w.money("totals.line_total", t.LineTotal),
		AllowanceTotal: w.money("totals.allowances", t.AllowanceTotal),
		ChargeTotal:    w.money("totals.charges", t.ChargeTotal),
		Net:            w.money("totals.net", t.Net),
		Tax:            w.money("totals.tax", t.Tax),
		Gross:          w.money("totals.gross", t.Gross),
		Prepaid:        w.money("totals.prepaid", t.Prepaid),
		Rounding:       w.money("totals.rounding", t.Rounding),
		Payable:        w.money("totals.payable", t.Payable),
	}
	if w.err != nil {
		return nil, w.err
	}
	return json.Marshal(out)
}

// amountWriter renders amounts for Marshal, keeping the first error.
type amountWriter struct {
	minor int32
	err   error
}

func (w *amountWriter) check(field, s string) string {
	if len(s) > money.MaxTextLength && w.err == nil {
		w.err = fmt.Errorf("einvoice: marshal own JSON: %s: %d characters, more than the format allows", field, len(s))
	}
	return s
}

func (w *amountWriter) exact(field string, d decimal.Decimal) string {
	return w.check(field, money.Canonical(d))
}

func (w *amountWriter) money(field string, d decimal.Decimal) string {
	if d.Round(w.minor).Equal(d) {
		return w.check(field, money.Format(d, w.minor))
	}
	return w.exact(field, d)
}

func (w *amountWriter) optionalExact(field string, d decimal.Decimal) string {
	if d.IsZero() {
		return ""
	}
	return w.exact(field, d)
}

func (w *amountWriter) optional(field string, d decimal.Decimal) string {
	if d.IsZero() {
		return ""
	}
	return w.money(field, d)
}
