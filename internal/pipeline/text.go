package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pagetext"
	"greatbook/internal/reading"
	"greatbook/internal/textfields"
)

// Text reading: a PDF without e-invoice data, or an image, is read from
// its text layer (or by OCR), and its fields from the words.

// CodeUncertain is the finding that names a field the text reading is not
// sure of (or did not find): a person confirms or corrects it.
const CodeUncertain = "uncertain_reading"

// TextReader reads a document's words, and finds a supplier's learned
// layout. Nil in Inputs turns text reading off.
type TextReader struct {
	Read   func(ctx context.Context, content []byte, mediaType string) (pagetext.Text, error)
	Layout func(ctx context.Context, supplierKey string) (reading.Layout, bool, error)
}

// readable reports whether a document of mediaType has pages to read.
func readable(mediaType string) bool {
	return mediaType == "application/pdf" || strings.HasPrefix(mediaType, "image/")
}

// textReading is the extract stage of a document read from its text: the
// words, then the fields at first sight, then again by the supplier's
// layout when one was learned. The reading is a checkpoint of its own.
func textReading(ctx context.Context, in Inputs, s *State, content []byte) (string, string, error) {
	t, err := in.Text.Read(ctx, content, s.MediaType)
	var limit *pagetext.LimitError
	var unreadable *pagetext.UnreadableError
	switch {
	case errors.As(err, &limit):
		s.Findings = []einvoice.Finding{{Code: einvoice.CodeInputCap, Severity: einvoice.SeverityWarning, Field: limit.What,
			Message: "the document's pages could not be read: " + limit.Error()}}
		return manual(in, s, "text reading stopped: "+limit.Error())
	case errors.As(err, &unreadable):
		s.Findings = []einvoice.Finding{{Code: "unreadable", Severity: einvoice.SeverityWarning, Field: "document",
			Message: "the document's pages could not be read: " + unreadable.Error()}}
		return manual(in, s, "text reading failed: "+unreadable.Error())
	case err != nil:
		return "", "", err
	}
	r := textfields.Read(t, nil)
	r.SupplierKey = reading.SupplierKeyOf(r.Document)
	s.LayoutID = 0
	if l, ok, err := in.Text.Layout(ctx, r.SupplierKey); err != nil {
		return "", "", err
	} else if ok {
		r = textfields.Read(t, &l.Layout)
		r.Layout, r.SupplierKey, s.LayoutID = true, l.SupplierKey, l.ID
	}
	s.Text, s.Reading = &t, &r
	if !foundAny(r) {
		return manual(in, s, fmt.Sprintf("read %d page(s) of text; no invoice field found", len(t.Pages)))
	}
	doc := completed(r.Document, t)
	found := einvoice.StorageFindings(doc)
	doc = einvoice.MakeStorable(doc)
	s.Unstorable = cleanedAway(found, einvoice.StorageFindings(doc))
	s.Document, s.Format = &doc, string(doc.Format)
	how := "at first sight"
	if r.Layout {
		how = "by the supplier's layout"
	}
	if !r.Certain() && in.Model != nil {
		s.Extractor = "model"
		return nodeExtract, fmt.Sprintf("read from the %s %s; uncertain: %s; the model extractor will look", doc.Format, how,
			strings.Join(r.Uncertain, ", ")), nil
	}
	return nodeValidate, fmt.Sprintf("read from the %s %s: %s %s", doc.Format, how, doc.Number, amountText(doc)), nil
}

// manual files a document whose text gave nothing to work with for a
// person (or the model extractor, when there is one) to read.
func manual(in Inputs, s *State, note string) (string, string, error) {
	if in.Model != nil {
		s.Extractor = "model"
		return nodeExtract, note + "; the model extractor will read it", nil
	}
	s.Flag = intake.FlagNeedsManualExtraction
	return nodeQueue, note, nil
}

func amountText(d einvoice.Document) string {
	if d.Currency == "" {
		return d.Totals.Payable.String()
	}
	return d.Currency + " " + d.Totals.Payable.String()
}

// foundAny reports whether r found any of the key fields.
func foundAny(r textfields.Reading) bool {
	return slices.ContainsFunc(textfields.Key, func(k string) bool { _, ok := r.Fields[k]; return ok })
}

// completed is a document read from text made fit to file: its format and
// type, and, when no table of lines was recognised, a line for each VAT
// rate (else one for the whole net) so that it can be coded and posted.
func completed(d einvoice.Document, t pagetext.Text) einvoice.Document {
	d.Format = einvoice.FormatText
	if reading.SourceOf(t) != string(pagetext.TextLayer) {
		d.Format = einvoice.FormatOCR
	}
	if d.Type == "" {
		d.Type = einvoice.TypeInvoice
	}
	if d.TypeCode == "" {
		d.TypeCode = "380"
		if d.Type == einvoice.TypeCreditNote {
			d.TypeCode = "381"
		}
	}
	if len(d.Lines) > 0 || d.Totals.Net.IsZero() {
		return d
	}
	if len(d.TaxSubtotals) == 0 {
		rate := decimal.Zero
		if !d.Totals.Net.IsZero() {
			rate = d.Totals.Tax.Mul(decimal.NewFromInt(100)).Div(d.Totals.Net).Round(1)
		}
		d.TaxSubtotals = []einvoice.TaxSubtotal{{Category: category(rate), Rate: rate, Taxable: d.Totals.Net, Tax: d.Totals.Tax}}
	}
	for _, st := range d.TaxSubtotals {
		d.Lines = append(d.Lines, einvoice.Line{Description: "As read: total at " + st.Rate.String() + "% VAT",
			Quantity: decimal.NewFromInt(1), UnitPrice: st.Taxable, Net: st.Taxable, TaxRate: st.Rate, TaxCategory: category(st.Rate)})
	}
	if d.Totals.LineTotal.IsZero() {
		d.Totals.LineTotal = d.Totals.Net
	}
	if d.Totals.Gross.IsZero() {
		d.Totals.Gross = d.Totals.Net.Add(d.Totals.Tax)
	}
	return d
}

// category is the VAT category of a rate: standard, or zero rated.
func category(rate decimal.Decimal) string {
	if rate.IsZero() {
		return "Z"
	}
	return "S"
}

// uncertainFindings name the fields of r a person should look at: those
// read without confidence, and the key fields not found.
func uncertainFindings(r textfields.Reading) []einvoice.Finding {
	var out []einvoice.Finding
	for _, name := range r.Uncertain {
		msg := "not found on the page: type it in"
		if f, ok := r.Fields[name]; ok {
			msg = fmt.Sprintf("read as %q with confidence %.2f: confirm or correct it", f.Value, f.Confidence)
		}
		out = append(out, einvoice.Finding{Code: CodeUncertain, Severity: einvoice.SeverityWarning, Field: name, Message: msg})
	}
	return out
}

// fillUncertain takes, for each field the text reading is unsure of, the
// model's value when it has one.
func fillUncertain(text, model einvoice.Document, uncertain []string) einvoice.Document {
	d := text
	for _, name := range uncertain {
		switch name {
		case textfields.FieldNumber:
			d.Number = or(model.Number, d.Number)
		case textfields.FieldIssueDate:
			d.IssueDate = or(model.IssueDate, d.IssueDate)
		case textfields.FieldDueDate:
			d.DueDate = or(model.DueDate, d.DueDate)
		case textfields.FieldCurrency:
			d.Currency = or(model.Currency, d.Currency)
		case textfields.FieldSellerName:
			d.Seller.Name = or(model.Seller.Name, d.Seller.Name)
		case textfields.FieldSellerVAT:
			d.Seller.VATID = or(model.Seller.VATID, d.Seller.VATID)
		case textfields.FieldBuyerName:
			d.Buyer.Name = or(model.Buyer.Name, d.Buyer.Name)
		case textfields.FieldIBAN:
			d.PayeeIBAN = or(model.PayeeIBAN, d.PayeeIBAN)
		case textfields.FieldNet, textfields.FieldTax, textfields.FieldPayable:
			// The totals go together with the lines and the VAT breakdown.
			if !model.Totals.Payable.IsZero() {
				d.Totals, d.Lines, d.TaxSubtotals = model.Totals, model.Lines, model.TaxSubtotals
			}
		}
	}
	return d
}

func or(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// validateReading files a document read from its text: pending when every
// key field was read with confidence and its figures validate, else
// flagged for a person, with the uncertain fields and the broken rules
// named. The same words always read the same: there is nothing to repair.
func validateReading(s *State) (string, string, error) {
	s.Findings = append(s.Findings, uncertainFindings(*s.Reading)...)
	if s.Reading.Certain() && !einvoice.HasFatal(s.Findings) {
		if len(s.Findings) == 0 {
			return nodeQueue, "read with confidence, valid", nil
		}
		return nodeQueue, "read with confidence, valid, with warnings: " + summarise(s.Findings), nil
	}
	s.Flag = intake.FlagUncertainReading
	return nodeQueue, "read, to be confirmed: " + summarise(s.Findings), nil
}

// unreadAsNull are a text-read document's fields with the key fields it
// could not read as null, not as an empty string or a zero.
func unreadAsNull(fields []byte, r textfields.Reading, d einvoice.Document) []byte {
	var m map[string]any
	if err := json.Unmarshal(fields, &m); err != nil {
		return fields
	}
	unread := func(name string, empty bool) bool {
		_, read := r.Fields[name]
		return empty && !read
	}
	for name, empty := range map[string]bool{textfields.FieldNumber: d.Number == "", textfields.FieldIssueDate: d.IssueDate == "",
		textfields.FieldCurrency: d.Currency == "", textfields.FieldDueDate: d.DueDate == ""} {
		if unread(name, empty) {
			m[name] = nil
		}
	}
	if totals, ok := m["totals"].(map[string]any); ok && unread(textfields.FieldPayable, d.Totals.Payable.IsZero()) {
		totals["payable"] = nil
	}
	out, err := json.Marshal(m)
	if err != nil {
		return fields
	}
	return out
}
