package pipeline_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/pipeline"
	"greatbook/internal/retry"
)

const testdata = "../einvoice/testdata/"

// recordingStore notes every call the pipeline makes to the queue store.
type recordingStore struct {
	*intake.MemoryStore
	mu    sync.Mutex
	calls []string
}

func (r *recordingStore) Queue(ctx context.Context, id int64, f intake.Filing) (intake.Document, error) {
	r.mu.Lock()
	r.calls = append(r.calls, "Queue")
	r.mu.Unlock()
	return r.MemoryStore.Queue(ctx, id, f)
}

func (r *recordingStore) Get(ctx context.Context, org, id int64) (intake.Document, error) {
	r.mu.Lock()
	r.calls = append(r.calls, "Get")
	r.mu.Unlock()
	return r.MemoryStore.Get(ctx, org, id)
}

// offline ingests content into a fresh in-memory store and runs the pipeline.
func offline(t *testing.T, store intake.Store, mem *intake.MemoryStore, content []byte, mediaType string, model pipeline.Extractor) (intake.Document, []pipeline.Trace) {
	t.Helper()
	ctx := context.Background()
	d, _, err := mem.Ingest(ctx, intake.Arrival{OrgID: 1, Content: content, MediaType: mediaType, Via: "api", Actor: "t"})
	if err != nil {
		t.Fatal(err)
	}
	in := pipeline.Inputs{Original: func(context.Context) ([]byte, error) { return mem.Original(d.ID), nil },
		// MaxRepairs is left to its default (2 repairs), which TestRepairLoopIsBounded pins.
		Deterministic: pipeline.Deterministic{}, Model: model,
		Now: func() time.Time { return time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC) }}
	got, trace, err := pipeline.RunOffline(ctx, store, in, d.ID, mediaType)
	if err != nil {
		t.Fatalf("pipeline: %v (trace %v)", err, trace)
	}
	return got, trace
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(testdata, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEveryDocumentFilesAsExpected(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, mediaType, status, flag, docType string
	}{
		{"samples/en16931-ubl-example2.xml", "application/xml", "pending", "", "invoice"},
		{"samples/en16931-cii-example2.xml", "application/xml", "pending", "", "invoice"},
		{"samples/en16931-ubl-creditnote1.xml", "application/xml", "pending", "", "credit_note"},
		{"samples/peppol-bis3-base-example.xml", "application/xml", "pending", "", "invoice"},
		{"samples/mustang-EN16931_Einfach.pdf", "application/pdf", "pending", "", "invoice"},
		{"ubl-invoice-multirate.xml", "application/xml", "pending", "", "invoice"},
		{"ubl-creditnote.xml", "application/xml", "pending", "", "credit_note"},
		{"ubl-corrected-384.xml", "application/xml", "pending", "", "invoice"},
		{"cii-invoice.xml", "application/xml", "pending", "", "invoice"},
		{"facturx-invoice.pdf", "application/pdf", "pending", "", "invoice"},
		{"json-invoice-with-totals.json", "application/json", "pending", "", "invoice"},
		{"json-invoice-without-totals.json", "application/json", "pending", "", "invoice"},
		{"json-credit-note.json", "application/json", "pending", "", "credit_note"},
		{"ubl-invoice-bad-total.xml", "application/xml", "flagged", "invalid_einvoice", "invoice"},
		{"zugferd1-comfort.xml", "application/xml", "pending", "", "invoice"},
		{"zugferd1-basic.xml", "application/xml", "pending", "", "invoice"},
		{"zugferd1-invoice.pdf", "application/pdf", "pending", "", "invoice"},
		{"facturx-minimum.xml", "application/xml", "pending", "", "invoice"},
		{"facturx-basicwl.xml", "application/xml", "pending", "", "invoice"},
		{"facturx-basicwl.pdf", "application/pdf", "pending", "", "invoice"},
		{"orderx-order.xml", "application/xml", "flagged", "not_an_invoice", ""},
		{"orderx-order.pdf", "application/pdf", "flagged", "not_an_invoice", ""},
		{"cii-despatch-advice.xml", "application/xml", "flagged", "not_an_invoice", ""},
		{"json-unknown-field.json", "application/json", "flagged", "extraction_failed", ""},
		{"no-embedded-xml.pdf", "application/pdf", "flagged", "needs_manual_extraction", ""},
		{"scanned-invoice.png", "image/png", "flagged", "needs_manual_extraction", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			mem := intake.NewMemoryStore()
			d, trace := offline(t, mem, mem, read(t, tc.file), tc.mediaType, nil)
			if string(d.Status) != tc.status || d.FlagReason != tc.flag || d.DocType != tc.docType {
				t.Fatalf("%s: %s %q %q, want %s %q %q (trace %v)", tc.file, d.Status, d.FlagReason, d.DocType,
					tc.status, tc.flag, tc.docType, trace)
			}
			if tc.status == "pending" && (d.SourceRef == "" || len(d.Fields) == 0) {
				t.Fatalf("filed without reference or fields: %+v", d)
			}
			for _, step := range trace {
				if step.Node == "extract" && strings.Contains(step.Note, "repair") {
					t.Fatalf("a deterministic extraction was repaired: %v", trace)
				}
			}
		})
	}
	// The UBL and CII renderings of one invoice are one invoice.
	mem := intake.NewMemoryStore()
	first, _ := offline(t, mem, mem, read(t, "samples/en16931-ubl-example2.xml"), "application/xml", nil)
	second, _ := offline(t, mem, mem, read(t, "samples/en16931-cii-example2.xml"), "application/xml", nil)
	if second.Status != intake.Flagged || second.DuplicateOf != first.ID || second.DuplicateReason != intake.SameReference {
		t.Fatalf("CII copy of the UBL invoice: %+v", second)
	}
}

func TestOnlyTheQueueNodeTouchesTheStore(t *testing.T) {
	t.Parallel()
	// By construction: nothing the stages receive can reach a store or the database.
	forbidden := []reflect.Type{
		reflect.TypeFor[intake.Store](), reflect.TypeFor[database.Executor](), reflect.TypeFor[*pgxpool.Pool](), reflect.TypeFor[pgx.Tx](),
	}
	inputs := reflect.TypeFor[pipeline.Inputs]()
	for i := range inputs.NumField() {
		f := inputs.Field(i)
		for _, bad := range forbidden {
			if f.Type == bad || (bad.Kind() == reflect.Interface && f.Type.Implements(bad)) {
				t.Errorf("pipeline.Inputs.%s (%s) gives a stage a handle to %s", f.Name, f.Type, bad)
			}
		}
	}
	// And observed: the only call is the queue's one filing.
	mem := intake.NewMemoryStore()
	rec := &recordingStore{MemoryStore: mem}
	d, trace := offline(t, rec, mem, read(t, "ubl-invoice-multirate.xml"), "application/xml", nil)
	if d.Status != intake.Pending || len(rec.calls) != 1 || rec.calls[0] != "Queue" || trace[len(trace)-1].Node != "queue" {
		t.Fatalf("store calls %v, trace %v", rec.calls, trace)
	}
}

// modelServer is a fake OpenAI-compatible server answering from a script.
type modelServer struct {
	*httptest.Server
	calls   atomic.Int32
	answers []func(w http.ResponseWriter, r *http.Request)
}

func newModelServer(t *testing.T, answers ...func(w http.ResponseWriter, r *http.Request)) *modelServer {
	m := &modelServer{answers: answers}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(m.calls.Add(1)) - 1
		if r.URL.Path != "/v1/chat/completions" || n >= len(m.answers) {
			http.Error(w, "unexpected call", http.StatusTeapot)
			return
		}
		m.answers[n](w, r)
	}))
	t.Cleanup(m.Close)
	return m
}

func status(code int, header ...string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		for i := 0; i+1 < len(header); i += 2 {
			w.Header().Set(header[i], header[i+1])
		}
		http.Error(w, http.StatusText(code), code)
	}
}

// hang answers only when the client has given up (a timeout). It reads the
// body first: the server notices a client leaving only once it has.
func hang(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

func answer(doc string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, r *http.Request) {
		body, _ := json.Marshal(map[string]any{"choices": []any{map[string]any{"message": map[string]string{"role": "assistant", "content": doc}}}})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}
}

const goodInvoice = `{"type": "invoice", "number": "SCAN-1", "issue_date": "2026-11-20", "currency": "EUR",
 "seller": {"name": "Paper Supplier AB", "vat_id": "SE556677889901"}, "buyer": {"name": "Acme Ltd"},
 "lines": [{"description": "Paper", "quantity": "2", "unit_price": "50.00", "tax_rate": "25"}],
 "totals": {"net": "100.00", "tax": "25.00", "payable": "125.00"}}`

var badInvoice = strings.Replace(goodInvoice, `"payable": "125.00"`, `"payable": "152.00"`, 1)

// modelExtractor asks the scripted server at url, recording the retry
// waits instead of sleeping them. Its per-request deadline is far above a
// loopback call on a loaded machine: each answer is scripted, so a call
// that timed out would consume the next answer and miscount the calls.
func modelExtractor(url string, waits *[]time.Duration) *pipeline.ModelExtractor {
	return modelExtractorWithin(url, waits, 30*time.Second)
}

// modelExtractorWithin is modelExtractor with a per-request deadline, for
// the test of a hanging server.
func modelExtractorWithin(url string, waits *[]time.Duration, timeout time.Duration) *pipeline.ModelExtractor {
	var mu sync.Mutex
	return pipeline.NewModelExtractor(pipeline.ModelConfig{URL: url + "/v1", Model: "test", Timeout: timeout,
		Retry: retry.Policy{Attempts: 4, Base: time.Second, Max: 8 * time.Second, MaxRetryAfter: time.Minute,
			Waiter: retry.WaitFunc(func(_ context.Context, d time.Duration) error {
				mu.Lock()
				*waits = append(*waits, d)
				mu.Unlock()
				return nil
			})}})
}

func TestModelServerRetriesAreTyped(t *testing.T) {
	t.Parallel()
	png := read(t, "scanned-invoice.png")
	for _, tc := range []struct {
		name      string
		answers   []func(http.ResponseWriter, *http.Request)
		wantCalls int
		wantOK    bool
		check     func(t *testing.T, waits []time.Duration)
		timeout   time.Duration // of each request; 0 is modelExtractor's
	}{
		{"429 honours Retry-After", []func(http.ResponseWriter, *http.Request){status(429, "Retry-After", "7"), answer(goodInvoice)}, 2, true,
			func(t *testing.T, w []time.Duration) {
				if len(w) != 1 || w[0] != 7*time.Second {
					t.Fatalf("waits %v, want the server's 7s", w)
				}
			}, 0},
		{"503 is retried with backoff", []func(http.ResponseWriter, *http.Request){status(503), status(503), answer(goodInvoice)}, 3, true,
			func(t *testing.T, w []time.Duration) {
				if len(w) != 2 || w[0] < 500*time.Millisecond || w[0] > time.Second || w[1] < time.Second || w[1] > 2*time.Second {
					t.Fatalf("waits %v, want exponential backoff with jitter", w)
				}
			}, 0},
		{"a timeout is retried", []func(http.ResponseWriter, *http.Request){hang, answer(goodInvoice)}, 2, true, nil, 2 * time.Second},
		{"400 is not retried", []func(http.ResponseWriter, *http.Request){status(400), answer(goodInvoice)}, 1, false, nil, 0},
		{"retries are bounded", []func(http.ResponseWriter, *http.Request){status(503), status(503), status(503), status(503), answer(goodInvoice)}, 4, false, nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := newModelServer(t, tc.answers...)
			var waits []time.Duration
			ex := modelExtractor(srv.URL, &waits)
			if tc.timeout != 0 {
				ex = modelExtractorWithin(srv.URL, &waits, tc.timeout)
			}
			doc, err := ex.Extract(context.Background(), png, "image/png", nil)
			if int(srv.calls.Load()) != tc.wantCalls {
				t.Fatalf("%d calls, want %d", srv.calls.Load(), tc.wantCalls)
			}
			if (err == nil) != tc.wantOK {
				t.Fatalf("err %v", err)
			}
			if err != nil && retry.IsTransient(err) {
				t.Fatal("an error left after the extractor's own retries must not be retried again")
			}
			if tc.wantOK && doc.Number != "SCAN-1" {
				t.Fatalf("doc %+v", doc)
			}
			if tc.check != nil {
				tc.check(t, waits)
			}
		})
	}
}

func TestRepairLoopIsBounded(t *testing.T) {
	t.Parallel()
	png := read(t, "scanned-invoice.png")
	t.Run("exhausted: flagged with the findings", func(t *testing.T) {
		srv := newModelServer(t, answer(badInvoice), answer(badInvoice), answer(badInvoice), answer(goodInvoice))
		var waits []time.Duration
		mem := intake.NewMemoryStore()
		d, trace := offline(t, mem, mem, png, "image/png", modelExtractor(srv.URL, &waits))
		if srv.calls.Load() != 3 {
			t.Fatalf("%d extractions, want 1 + 2 repairs (trace %v)", srv.calls.Load(), trace)
		}
		if d.Status != intake.Flagged || d.FlagReason != intake.FlagExtractionFailed || !strings.Contains(string(d.Findings), einvoice.CodePayable) {
			t.Fatalf("document %+v", d)
		}
	})
	t.Run("repaired", func(t *testing.T) {
		srv := newModelServer(t, answer(badInvoice), answer("this is not JSON"), answer(goodInvoice))
		var waits []time.Duration
		mem := intake.NewMemoryStore()
		d, _ := offline(t, mem, mem, png, "image/png", modelExtractor(srv.URL, &waits))
		if d.Status != intake.Pending || srv.calls.Load() != 3 {
			t.Fatalf("document %+v after %d calls", d, srv.calls.Load())
		}
		var fields einvoice.Document
		_ = json.Unmarshal(d.Fields, &fields)
		if fields.Number != "SCAN-1" || fields.Format != "model" {
			t.Fatalf("fields %+v", fields)
		}
	})
}

// pdfEmbedding is a minimal PDF whose one embedded file, factur-x.xml, is
// content compressed times times over, with a /Filter chain that says so.
func pdfEmbedding(content []byte, times int) []byte {
	filters := make([]string, times)
	for i := range times {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		zw.Write(content)
		zw.Close()
		content = z.Bytes()
		filters[i] = "/FlateDecode"
	}
	var pdf bytes.Buffer
	pdf.WriteString("%PDF-1.7\n")
	pdf.WriteString("1 0 obj\n<< /Type /Catalog /Names << /EmbeddedFiles << /Names [(factur-x.xml) 2 0 R] >> >> >>\nendobj\n")
	pdf.WriteString("2 0 obj\n<< /Type /Filespec /F (factur-x.xml) /UF (factur-x.xml) /EF << /F 3 0 R >> >>\nendobj\n")
	fmt.Fprintf(&pdf, "3 0 obj\n<< /Type /EmbeddedFile /Subtype /text#2Fxml /Filter [%s] /Length %d >>\nstream\n",
		strings.Join(filters, " "), len(content))
	pdf.Write(content)
	pdf.WriteString("\nendstream\nendobj\ntrailer\n<< /Root 1 0 R >>\n%%EOF\n")
	return pdf.Bytes()
}

// A Factur-X PDF whose XML is compressed three times over is read; one
// compressed more times than the reader follows still needs a person, and
// its finding says why.
func TestAnEmbeddedFileCompressedManyTimesOver(t *testing.T) {
	t.Parallel()
	cii := read(t, "cii-invoice.xml")
	mem := intake.NewMemoryStore()
	d, trace := offline(t, mem, mem, pdfEmbedding(cii, 3), "application/pdf", nil)
	if d.Status != intake.Pending || d.DocType != "invoice" {
		t.Fatalf("compressed three times: %s %q (trace %v)", d.Status, d.FlagReason, trace)
	}

	mem = intake.NewMemoryStore()
	d, trace = offline(t, mem, mem, pdfEmbedding(cii, 20), "application/pdf", nil)
	if d.Status != intake.Flagged || d.FlagReason != intake.FlagNeedsManualExtraction {
		t.Fatalf("compressed twenty times: %s %q (trace %v)", d.Status, d.FlagReason, trace)
	}
	var findings []einvoice.Finding
	if err := json.Unmarshal(d.Findings, &findings); err != nil || len(findings) != 1 {
		t.Fatalf("findings %s (%v), want one saying why", d.Findings, err)
	}
	if f := findings[0]; f.Code != einvoice.CodeEmbeddedFileUnreadable || f.Severity != einvoice.SeverityWarning ||
		!strings.Contains(f.Message, `"factur-x.xml"`) || !strings.Contains(f.Message, "compressed 20 times over") {
		t.Fatalf("finding %+v", f)
	}
}
