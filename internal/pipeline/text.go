package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pagetext"
	"greatbook/internal/reading"
	"greatbook/internal/storable"
	"greatbook/internal/textfields"
)

// Text reading: a PDF without e-invoice data, or an image, is read from
// its text layer (or by OCR), and its fields from the words.

// CodeUncertain is the finding that names a field the text reading is not
// sure of (or did not find): a person confirms or corrects it.
const CodeUncertain = "uncertain_reading"

// CodeReadingUnavailable says the text reading could not run on this
// server (a reading tool is not installed); CodeModelFailed that the model
// extractor, asked about what the text reading was unsure of, gave no
// answer, so the text reading stands alone.
const (
	CodeReadingUnavailable = "reading_unavailable"
	CodeModelFailed        = "model_failed"
)

// MaxStoredWords bounds the words a reading keeps (in its run's state and
// beside the document) for the highlighted places and the learning of a
// layout: the first ones, in reading order. The reading itself used them all.
const MaxStoredWords = 25_000

// storedWords is t with at most MaxStoredWords words, their boxes rounded to
// a ten-thousandth of the page.
func storedWords(t pagetext.Text) pagetext.Text {
	out := pagetext.Text{PagesInDocument: t.PagesInDocument, Pages: make([]pagetext.Page, 0, len(t.Pages))}
	left := MaxStoredWords
	round := func(f float64) float64 { return math.Round(f*10000) / 10000 }
	for _, p := range t.Pages {
		words := p.Words[:min(len(p.Words), left)]
		left -= len(words)
		q := p
		q.Words = make([]pagetext.Word, len(words))
		for i, w := range words {
			w.Box = pagetext.Box{X0: round(w.Box.X0), Y0: round(w.Box.Y0), X1: round(w.Box.X1), Y1: round(w.Box.Y1)}
			w.Conf = round(w.Conf)
			q.Words[i] = w
		}
		out.Pages = append(out.Pages, q)
	}
	return out
}

// TextReader reads a document's words, and finds a supplier's learned
// layout. Nil in Inputs turns text reading off.
type TextReader struct {
	Read   func(ctx context.Context, content []byte, mediaType string) (pagetext.Text, error)
	Layout func(ctx context.Context, supplierKeys ...string) (reading.Layout, bool, error)
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
	case errors.Is(err, pagetext.ErrToolMissing):
		// The server's fault, not the document's: it waits for a person
		// (or the model), and the finding tells the operator what to install.
		s.Findings = []einvoice.Finding{{Code: CodeReadingUnavailable, Severity: einvoice.SeverityWarning, Field: "document",
			Message: "the document's pages were not read: " + err.Error()}}
		return manual(in, s, "text reading unavailable: "+err.Error())
	case err != nil:
		return "", "", err
	}
	s.Notes = nil
	if t.Truncated() {
		s.Notes = append(s.Notes, einvoice.Finding{Code: einvoice.CodeInputCap, Severity: einvoice.SeverityWarning, Field: "pages",
			Message: fmt.Sprintf("only the first %d of the document's %d pages were read", len(t.Pages), t.PagesInDocument)})
	}
	r := textfields.Read(t, nil)
	keys := reading.SupplierKeysOf(r.Document)
	r.SupplierKey = reading.SupplierKeyOf(r.Document)
	s.LayoutID = 0
	if l, ok, err := in.Text.Layout(ctx, keys...); err != nil {
		return "", "", err
	} else if ok {
		r = textfields.Read(t, &l.Layout)
		r.Layout, r.SupplierKey, s.LayoutID = true, reading.SupplierKeyOf(r.Document), l.ID
		if r.SupplierKey == "" {
			r.SupplierKey = l.SupplierKey
		}
	}
	stored := storedWords(t)
	s.Text, s.Reading = &stored, &r
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

// modelFill finishes a text reading the model extractor was asked about:
// its answer fills the fields the text reading was unsure of or did not
// find, and the fields it left empty stay uncertain. A model that gives no
// answer (its own retries spent, or an answer that is no document) leaves
// the text reading alone, with a warning; only a run stopped by its context
// returns the error. Either way the document is
// filed as a text reading (validateReading): pending only when every key
// field is certain.
func modelFill(ctx context.Context, s *State, model einvoice.Document, err error) (string, string, error) {
	base := completed(s.Reading.Document, *s.Text)
	note := "the model extractor read what the text reading was unsure of"
	switch {
	case err == nil:
		var filled map[string]string
		base, filled, s.Reading.Uncertain = fillUncertain(base, model, *s.Reading)
		for name, v := range filled {
			// The model's value counts as read: the model was asked for it.
			s.Reading.Fields[name] = textfields.Field{Value: v, Confidence: textfields.Certain, Label: "model extractor"}
		}
	case ctx.Err() != nil:
		return "", "", err
	default:
		s.Notes = append(s.Notes, einvoice.Finding{Code: CodeModelFailed, Severity: einvoice.SeverityWarning, Field: "document",
			Message: "the model extractor gave no answer; the text reading stands: " + storable.Message(err)})
		note = "the model extractor gave no answer; the text reading stands"
	}
	found := einvoice.StorageFindings(base)
	base = einvoice.MakeStorable(base)
	s.Unstorable = cleanedAway(found, einvoice.StorageFindings(base))
	s.Document, s.Findings, s.Conformance, s.Judged = &base, nil, nil, false
	s.Extractor = "text"
	return nodeValidate, note, nil
}

// fillUncertain takes, for each field the text reading is unsure of or did
// not find, the model's value when it has one, and returns the values it
// took, by field, and the fields that stay uncertain.
func fillUncertain(text, model einvoice.Document, r textfields.Reading) (einvoice.Document, map[string]string, []string) {
	d := text
	open := func(name string) bool {
		_, found := r.Fields[name]
		return !found || slices.Contains(r.Uncertain, name)
	}
	filled := map[string]string{}
	take := func(name string, dst *string, v string) {
		if open(name) && v != "" {
			*dst, filled[name] = v, v
		}
	}
	take(textfields.FieldNumber, &d.Number, model.Number)
	take(textfields.FieldIssueDate, &d.IssueDate, model.IssueDate)
	take(textfields.FieldDueDate, &d.DueDate, model.DueDate)
	take(textfields.FieldCurrency, &d.Currency, model.Currency)
	take(textfields.FieldSellerName, &d.Seller.Name, model.Seller.Name)
	take(textfields.FieldSellerVAT, &d.Seller.VATID, model.Seller.VATID)
	take(textfields.FieldBuyerName, &d.Buyer.Name, model.Buyer.Name)
	take(textfields.FieldIBAN, &d.PayeeIBAN, model.PayeeIBAN)
	// The totals go together, with the lines and the VAT breakdown.
	if (open(textfields.FieldNet) || open(textfields.FieldTax) || open(textfields.FieldPayable)) && !model.Totals.Payable.IsZero() {
		d.Totals, d.Lines, d.TaxSubtotals = model.Totals, model.Lines, model.TaxSubtotals
		filled[textfields.FieldNet], filled[textfields.FieldTax] = model.Totals.Net.String(), model.Totals.Tax.String()
		filled[textfields.FieldPayable] = model.Totals.Payable.String()
	}
	var still []string
	for _, name := range r.Uncertain {
		if _, ok := filled[name]; !ok {
			still = append(still, name)
		}
	}
	return d, filled, still
}

// validateReading files a document read from its text: pending when every
// key field was read with confidence and its figures validate, else
// flagged for a person, with the uncertain fields and the broken rules
// named. The same words always read the same: there is nothing to repair.
func validateReading(s *State) (string, string, error) {
	s.Findings = append(append(s.Findings, uncertainFindings(*s.Reading)...), s.Notes...)
	if s.Reading.Certain() && onlyNothingToPost(s.Findings) {
		s.Flag = intake.FlagNothingToPost
		return nodeQueue, "read with confidence, valid, but every amount is zero: nothing to post", nil
	}
	if s.Reading.Certain() && !einvoice.HasFatal(s.Findings) {
		if len(s.Findings) == 0 {
			return nodeQueue, "read with confidence, valid", nil
		}
		return nodeQueue, "read with confidence, valid, with warnings: " + summarise(s.Findings), nil
	}
	s.Flag = intake.FlagUncertainReading
	return nodeQueue, "read, to be confirmed: " + summarise(s.Findings), nil
}

// unreadAsNull are a text-read document's fields with those it could not
// read as null, not as an empty string or a zero.
func unreadAsNull(fields []byte, r textfields.Reading, d einvoice.Document) []byte {
	var m map[string]any
	if err := json.Unmarshal(fields, &m); err != nil {
		return fields
	}
	unread := func(name string, empty bool) bool {
		_, read := r.Fields[name]
		return empty && !read
	}
	nullIn := func(obj map[string]any, key, name string, empty bool) {
		if obj != nil && unread(name, empty) {
			obj[key] = nil
		}
	}
	seller, _ := m["seller"].(map[string]any)
	buyer, _ := m["buyer"].(map[string]any)
	totals, _ := m["totals"].(map[string]any)
	nullIn(m, "number", textfields.FieldNumber, d.Number == "")
	nullIn(m, "issue_date", textfields.FieldIssueDate, d.IssueDate == "")
	nullIn(m, "due_date", textfields.FieldDueDate, d.DueDate == "")
	nullIn(m, "currency", textfields.FieldCurrency, d.Currency == "")
	nullIn(m, "payee_iban", textfields.FieldIBAN, d.PayeeIBAN == "")
	nullIn(seller, "name", textfields.FieldSellerName, d.Seller.Name == "")
	nullIn(seller, "vat_id", textfields.FieldSellerVAT, d.Seller.VATID == "")
	nullIn(buyer, "name", textfields.FieldBuyerName, d.Buyer.Name == "")
	nullIn(totals, "net", textfields.FieldNet, d.Totals.Net.IsZero())
	nullIn(totals, "tax", textfields.FieldTax, d.Totals.Tax.IsZero())
	nullIn(totals, "payable", textfields.FieldPayable, d.Totals.Payable.IsZero())
	out, err := json.Marshal(m)
	if err != nil {
		return fields
	}
	return out
}
