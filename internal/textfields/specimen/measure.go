package specimen

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/shopspring/decimal"
	"golang.org/x/text/unicode/norm"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/pagetext"
	"greatbook/internal/textfields"
)

// Fields are the fields Measure compares, in the order a report lists them.
var Fields = []string{
	textfields.FieldNumber, textfields.FieldIssueDate, textfields.FieldDueDate, textfields.FieldCurrency,
	textfields.FieldNet, textfields.FieldTax, textfields.FieldPayable, textfields.FieldSellerName,
	textfields.FieldSellerVAT, textfields.FieldIBAN, textfields.FieldBuyerName,
}

// Case is one document to read and what it says: a specimen's PDF, its
// scan, or the Factur-X sample as text or as scan. Supplier groups the
// cases one learned layout applies to.
type Case struct {
	Name      string
	Supplier  string
	Content   []byte
	MediaType string
	Truth     einvoice.Document
}

// TextCases are the specimens' PDFs, read from their text layer.
func TextCases(specimens []Specimen) []Case {
	out := make([]Case, len(specimens))
	for i, s := range specimens {
		out[i] = Case{Name: s.Layout, Supplier: s.Supplier, Content: s.PDF, MediaType: "application/pdf", Truth: s.Truth}
	}
	return out
}

// ScanCases are scans of the specimens (every other one turned a little
// and speckled), rasterised by workers in parallel.
func ScanCases(ctx context.Context, specimens []Specimen, dpi, workers int) ([]Case, error) {
	out := make([]Case, len(specimens))
	err := parallel(ctx, len(specimens), workers, func(i int) error {
		s := specimens[i]
		sc := Scan{DPI: dpi, Seed: int64(i)}
		if i%2 == 1 {
			sc.Rotate, sc.Noise = 0.4+0.1*float64(i%5), 0.001
		}
		b, err := Rasterise(ctx, s.PDF, sc)
		if err != nil {
			return fmt.Errorf("%s: %w", s.Layout, err)
		}
		out[i] = Case{Name: s.Layout, Supplier: s.Supplier, Content: b, MediaType: http.DetectContentType(b), Truth: s.Truth}
		return nil
	})
	return out, err
}

// FacturXCases are the Factur-X sample with its XML left out, as text and
// as a scan, with the truth its XML states.
func FacturXCases(ctx context.Context, dpi int) (text, scan Case, err error) {
	sample, err := FacturXSample()
	if err != nil {
		return text, scan, err
	}
	truth, err := read.Parse(sample)
	if err != nil {
		return text, scan, fmt.Errorf("specimen: the Factur-X sample's XML: %w", err)
	}
	stripped, err := StripXML(ctx, sample)
	if err != nil {
		return text, scan, err
	}
	raster, err := Rasterise(ctx, stripped, Scan{DPI: dpi})
	if err != nil {
		return text, scan, err
	}
	text = Case{Name: "facturx", Supplier: "facturx", Content: stripped, MediaType: "application/pdf", Truth: truth}
	scan = Case{Name: "facturx", Supplier: "facturx", Content: raster, MediaType: http.DetectContentType(raster), Truth: truth}
	return text, scan, nil
}

// Score is how many documents had a field read right, of those whose
// truth has it.
type Score struct{ Right, Total int }

// Rate is Right/Total, or 0 without documents.
func (s Score) Rate() float64 {
	if s.Total == 0 {
		return 0
	}
	return float64(s.Right) / float64(s.Total)
}

func (s Score) String() string {
	if s.Total == 0 {
		return "-"
	}
	return fmt.Sprintf("%5.1f%%", 100*s.Rate())
}

// Tally is the outcome of reading a set of cases: per field, at first
// sight (no layout) and after one correction (the supplier's layout learned
// from its first case, used on the others), and the time the words took.
type Tally struct {
	Documents, Pages int
	Reading          time.Duration // pagetext.Read, summed over the documents
	First, Learned   map[string]Score
	// Complete counts the documents after a correction with every field of
	// their truth read right, of LearnedDocuments.
	Complete, LearnedDocuments int
	Failures                   []string // documents pagetext could not read, and why
	Wrong                      []string // a few wrong readings, for tuning
}

// PerPage is the reading time per page.
func (t Tally) PerPage() time.Duration {
	if t.Pages == 0 {
		return 0
	}
	return t.Reading / time.Duration(t.Pages)
}

// Measure reads every case (workers at a time), then its fields at first
// sight and, for each supplier's cases after its first, with the layout
// learned from the first and its truth.
func Measure(ctx context.Context, cases []Case, workers int, lim pagetext.Limits) Tally {
	texts := make([]pagetext.Text, len(cases))
	errs := make([]error, len(cases))
	took := make([]time.Duration, len(cases))
	_ = parallel(ctx, len(cases), workers, func(i int) error {
		t0 := time.Now()
		texts[i], errs[i] = pagetext.Read(ctx, cases[i].Content, cases[i].MediaType, lim)
		took[i] = time.Since(t0)
		return nil
	})
	t := Tally{Documents: len(cases), First: map[string]Score{}, Learned: map[string]Score{}}
	layouts := map[string]textfields.Layout{}
	for i, c := range cases {
		t.Reading += took[i]
		t.Pages += max(1, len(texts[i].Pages))
		if errs[i] != nil {
			t.Failures = append(t.Failures, fmt.Sprintf("%s: %v", c.Name, errs[i]))
		}
		first := textfields.Read(texts[i], nil)
		t.score(t.First, "first", c, first)
		l, seen := layouts[c.Supplier]
		if !seen {
			layouts[c.Supplier] = textfields.Learn(texts[i], c.Truth)
			continue
		}
		t.LearnedDocuments++
		if t.score(t.Learned, "learned", c, textfields.Read(texts[i], &l)) {
			t.Complete++
		}
	}
	return t
}

// score adds r's fields to scores and reports whether every one was right.
func (t *Tally) score(scores map[string]Score, pass string, c Case, r textfields.Reading) bool {
	all := true
	for _, f := range Fields {
		want := truthOf(c.Truth, f)
		if want == "" {
			continue
		}
		got := valueOf(r, f)
		s := scores[f]
		s.Total++
		if same(f, got, want) {
			s.Right++
		} else {
			all = false
			if len(t.Wrong) < 40 {
				t.Wrong = append(t.Wrong, fmt.Sprintf("%s (%s) %s: read %q, want %q", c.Name, pass, f, got, want))
			}
		}
		scores[f] = s
	}
	return all
}

func truthOf(d einvoice.Document, field string) string {
	switch field {
	case textfields.FieldNumber:
		return d.Number
	case textfields.FieldIssueDate:
		return d.IssueDate
	case textfields.FieldDueDate:
		return d.DueDate
	case textfields.FieldCurrency:
		return d.Currency
	case textfields.FieldNet:
		return d.Totals.Net.String()
	case textfields.FieldTax:
		return d.Totals.Tax.String()
	case textfields.FieldPayable:
		return d.Totals.Payable.String()
	case textfields.FieldSellerName:
		return d.Seller.Name
	case textfields.FieldSellerVAT:
		return d.Seller.VATID
	case textfields.FieldIBAN:
		return d.PayeeIBAN
	case textfields.FieldBuyerName:
		return d.Buyer.Name
	}
	return ""
}

// valueOf is the reading's value of a field: the Fields entry, else the
// document's.
func valueOf(r textfields.Reading, field string) string {
	if f, ok := r.Fields[field]; ok && f.Value != "" {
		return f.Value
	}
	return truthOf(r.Document, field)
}

// same compares a read value with the truth as the field's kind wants:
// amounts as decimals, names without case and punctuation, identifiers
// without spaces (a VAT id without dots and dashes either).
func same(field, got, want string) bool {
	switch field {
	case textfields.FieldNet, textfields.FieldTax, textfields.FieldPayable:
		g, err1 := decimal.NewFromString(strings.TrimSpace(got))
		w, err2 := decimal.NewFromString(want)
		return err1 == nil && err2 == nil && g.Equal(w)
	case textfields.FieldSellerName, textfields.FieldBuyerName:
		return normalName(got) == normalName(want)
	case textfields.FieldSellerVAT:
		return compact(got, ".-") == compact(want, ".-")
	}
	return compact(got, "") == compact(want, "")
}

func normalName(s string) string {
	var b strings.Builder
	for _, r := range norm.NFKC.String(strings.ToLower(s)) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// compact is s in upper case without whitespace and the separators drop.
func compact(s, drop string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) || strings.ContainsRune(drop, r) {
			return -1
		}
		return unicode.ToUpper(r)
	}, norm.NFKC.String(strings.TrimSpace(s)))
}

// Print writes the per-field table: text layer and OCR, first sight and
// after one correction, with the Factur-X sample's readings beside.
func Print(w io.Writer, text, ocr Tally, fxText, fxOCR *Tally) {
	fmt.Fprintf(w, "%-14s %11s %11s %11s %11s", "field", "text first", "text learn", "OCR first", "OCR learn")
	if fxText != nil {
		fmt.Fprintf(w, " %9s %9s", "FX text", "FX OCR")
	}
	fmt.Fprintln(w)
	mark := func(t *Tally, f string) string {
		s := t.First[f]
		switch {
		case s.Total == 0:
			return "-"
		case s.Right == s.Total:
			return "right"
		}
		return "wrong"
	}
	for _, f := range Fields {
		fmt.Fprintf(w, "%-14s %11s %11s %11s %11s", f, text.First[f], text.Learned[f], ocr.First[f], ocr.Learned[f])
		if fxText != nil {
			fmt.Fprintf(w, " %9s %9s", mark(fxText, f), mark(fxOCR, f))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%-14s %11d %11d %11d %11d\n", "documents", text.Documents, text.LearnedDocuments, ocr.Documents, ocr.LearnedDocuments)
	fmt.Fprintf(w, "%-14s %11s %11s %11s %11s\n", "all fields", "", fmt.Sprintf("%d", text.Complete), "", fmt.Sprintf("%d", ocr.Complete))
	fmt.Fprintf(w, "%-14s %11d %11s %11d\n", "pages", text.Pages, "", ocr.Pages)
	fmt.Fprintf(w, "%-14s %11s %11s %11s\n", "time per page", round(text.PerPage()), "", round(ocr.PerPage()))
	for _, t := range []struct {
		name string
		t    *Tally
	}{{"text", &text}, {"OCR", &ocr}, {"Factur-X text", fxText}, {"Factur-X OCR", fxOCR}} {
		if t.t != nil && len(t.t.Failures) > 0 {
			fmt.Fprintf(w, "%s: %d documents unreadable, first: %s\n", t.name, len(t.t.Failures), t.t.Failures[0])
		}
	}
}

func round(d time.Duration) string {
	if d >= time.Second {
		return d.Round(10 * time.Millisecond).String()
	}
	return d.Round(100 * time.Microsecond).String()
}

// parallel runs do for 0..n-1, workers at a time, and returns the first
// error (the others still run).
func parallel(ctx context.Context, n, workers int, do func(int) error) error {
	if workers < 1 {
		workers = 1
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(i); err != nil {
					mu.Lock()
					if first == nil {
						first = err
					}
					mu.Unlock()
				}
			}
		}()
	}
	for i := 0; i < n && ctx.Err() == nil; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if first == nil {
		first = ctx.Err()
	}
	return first
}
