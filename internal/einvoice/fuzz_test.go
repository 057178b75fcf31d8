package einvoice

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// seedKind is the input a fuzz target reads: a seed of another kind only reaches the target's first
// refusal, and a PDF's or a large XML's costs seconds under -race in a target that refuses it.
type seedKind int

const (
	anySeed seedKind = iota
	xmlSeed
	jsonSeed
	pdfSeed
)

// kindOf tells a seed's kind the way Parse dispatches on it.
func kindOf(data []byte) seedKind {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, utf8BOM), " \t\r\n")
	switch {
	case isPDF(trimmed):
		return pdfSeed
	case len(trimmed) > 0 && trimmed[0] == '<':
		return xmlSeed
	case len(trimmed) > 0 && trimmed[0] == '{':
		return jsonSeed
	}
	return anySeed
}

// addSeeds adds the test documents of kind (the published samples included) and the files of that kind
// of the repository's hostile-input corpus to a fuzz target's seed corpus, plus, for PDFs, a few
// hand-made ones that reach the carver's rarer paths. anySeed adds every one.
func addSeeds(f *testing.F, kind seedKind) {
	f.Helper()
	for _, seed := range allSeeds(f) {
		if kind == anySeed || kindOf(seed) == kind {
			f.Add(seed)
		}
	}
}

var seeds struct {
	once sync.Once
	all  [][]byte
}

// allSeeds reads and builds the seeds once for all the targets.
func allSeeds(f testing.TB) [][]byte {
	f.Helper()
	seeds.once.Do(func() {
		err := filepath.WalkDir("testdata", func(path string, entry fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if entry.IsDir() {
				if entry.Name() == "fuzz" {
					return filepath.SkipDir // the engine reads its own corpus there
				}
				return nil
			}
			if strings.HasPrefix(entry.Name(), ".") {
				return nil
			}
			seeds.all = append(seeds.all, readTestdata(f, strings.TrimPrefix(path, "testdata"+string(filepath.Separator))))
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
		seeds.all = append(seeds.all, hostileSeeds(f)...)
		cii := readTestdata(f, "cii-invoice.xml")
		seeds.all = append(seeds.all,
			testPDF{objectStream: true, attachments: []testAttachment{{name: "factur-x.xml", data: cii, flate: true, untyped: true}}}.build(),
			testPDF{attachments: []testAttachment{{name: "factur-x.xml", data: cii, length: "wrong"}}}.build())
	})
	if len(seeds.all) == 0 {
		f.Fatal("no seeds")
	}
	return seeds.all
}

// checkParseResult holds for every parser: no panic, and an error is a *ParseError for the expected
// format (or ErrNoStructuredData where a parser may give it).
func checkParseResult(t *testing.T, d Document, err error, format Format, mayLackData bool) {
	t.Helper()
	if err != nil {
		var pe *ParseError
		switch {
		case errors.As(err, &pe):
			if pe.Format != format {
				t.Fatalf("ParseError for %q, want %q: %v", pe.Format, format, err)
			}
		case mayLackData && errors.Is(err, ErrNoStructuredData):
		default:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		return
	}
	if d.Format != format {
		t.Fatalf("Format = %q, want %q", d.Format, format)
	}
	_ = d.SourceRef()
	_ = ValidateAt(d, testNow)
}

// checkBuildRoundTrips: whatever a parser read, BuildCII and BuildUBL write and ParseCII and ParseUBL
// read back unchanged. Only the type code may change: the builders write 380 or 381 when there is none,
// or when it contradicts the document's type (CII has no other place to say it, and UBL's root must
// agree with it).
func checkBuildRoundTrips(t *testing.T, d Document) {
	t.Helper()
	for _, syntax := range []struct {
		name  string
		build func(Document) ([]byte, error)
		parse func([]byte) (Document, error)
	}{{"CII", BuildCII, ParseCII}, {"UBL", BuildUBL, ParseUBL}} {
		xmlData, err := syntax.build(d)
		if err != nil {
			return // a date that is not YYYY-MM-DD: the builders refuse it, Validate reports it
		}
		back, err := syntax.parse(xmlData)
		if err != nil {
			t.Fatalf("Parse%s(Build%s(d)): %v\n%s", syntax.name, syntax.name, err, xmlData)
		}
		want := d
		if want.TypeCode == "" || DocTypeFor(want.TypeCode) != want.Type {
			want.TypeCode = back.TypeCode
		}
		if !sameFields(t, back, want) {
			t.Fatalf("Build%s round trip changed the document\n got %s\nwant %s", syntax.name, comparable(t, back), comparable(t, want))
		}
	}
}

func FuzzParseUBL(f *testing.F) {
	addSeeds(f, xmlSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseUBL(data)
		checkParseResult(t, d, err, FormatUBL, false)
		if err == nil {
			checkBuildRoundTrips(t, d)
		}
	})
}

func FuzzParseCII(f *testing.F) {
	addSeeds(f, xmlSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseCII(data)
		checkParseResult(t, d, err, FormatCII, false)
		if err == nil {
			checkBuildRoundTrips(t, d)
		}
	})
}

func FuzzParseZUGFeRD1(f *testing.F) {
	addSeeds(f, xmlSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseZUGFeRD1(data)
		checkParseResult(t, d, err, FormatZUGFeRD1, false)
		if err == nil {
			checkBuildRoundTrips(t, d)
		}
	})
}

// TestFuzzSeedsReachEveryParser: the seeds FuzzParse starts from are read by every parser Parse
// dispatches to, the ZUGFeRD 1.0 one bare and in a PDF among them, and include the profiles without
// lines and the documents that are not invoices, so mutations start on each path.
func TestFuzzSeedsReachEveryParser(t *testing.T) {
	reached := map[string]bool{}
	for _, seed := range allSeeds(t) {
		if kindOf(seed) == pdfSeed && len(seed) > 1<<20 {
			continue // the hostile PDFs: TestHostileCorpus reads them
		}
		d, err := Parse(seed)
		var pe *ParseError
		switch {
		case err == nil:
			reached[string(d.Format)] = true
			reached[string(d.Format)+"/"+string(d.Profile)] = true
		case errors.As(err, &pe) && pe.Code == CodeNotAnInvoice:
			reached[string(pe.Format)+"/"+CodeNotAnInvoice] = true
		}
	}
	for _, want := range []string{"ubl", "cii", "facturx", "json", "zugferd1",
		"zugferd1/zugferd1_basic", "zugferd1/zugferd1_comfort", "facturx/zugferd1_comfort",
		"cii/minimum", "cii/basic_wl", "facturx/basic_wl", "cii/not_an_invoice", "facturx/not_an_invoice"} {
		if !reached[want] {
			t.Errorf("no fuzz seed parses as %s", want)
		}
	}
}

func FuzzCarvePDF(f *testing.F) {
	addSeeds(f, pdfSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		attachments := CarveAttachments(data)
		if len(attachments) > maxAttachments {
			t.Fatalf("%d attachments, more than %d", len(attachments), maxAttachments)
		}
		for _, a := range attachments {
			if len(a.Data) > maxAttachmentSize {
				t.Fatalf("attachment of %d bytes, more than %d", len(a.Data), maxAttachmentSize)
			}
		}
		d, err := ParseFacturX(data)
		checkParseResult(t, d, err, FormatFacturX, true)
	})
}

func FuzzParseJSON(f *testing.F) {
	addSeeds(f, jsonSeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseJSON(data)
		checkParseResult(t, d, err, FormatJSON, false)
		if err != nil {
			return
		}
		own, err := d.MarshalOwnJSON()
		if err != nil {
			return // an amount too long for the format, which MarshalOwnJSON refuses rather than truncates
		}
		back, err := ParseJSON(own)
		if err != nil {
			t.Fatalf("ParseJSON(MarshalOwnJSON(d)): %v\n%s", err, own)
		}
		if !sameFields(t, back, d) {
			t.Fatalf("own JSON round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
		}
	})
}

func FuzzParse(f *testing.F) {
	addSeeds(f, anySeed)
	f.Fuzz(func(t *testing.T, data []byte) {
		// Detect carves a PDF as Parse does, with the same carveCII, so for a PDF its answer is
		// FormatFacturX exactly when Parse finds an embedded invoice; formatOf, which does not carve,
		// names what Parse reads it as, and the PDF is carved once.
		format := formatOf(data)
		d, err := Parse(data)
		switch {
		case err == nil:
			if d.Format != format {
				t.Fatalf("Parse gave %q, Detect %q", d.Format, format)
			}
		case errors.Is(err, ErrNoStructuredData):
			if format != FormatUnknown && format != FormatFacturX {
				t.Fatalf("Detect says %q, Parse found no structured data", format)
			}
		default:
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			// A charset Parse cannot read is refused before the format is known; a cap names itself.
			if pe.Format != format && pe.Code != CodeInputCap && pe.Code != CodeUnsupportedCharset {
				t.Fatalf("ParseError for %q, Detect says %q", pe.Format, format)
			}
		}
		if err == nil {
			_ = d.SourceRef()
			_ = ValidateAt(d, testNow)
		}
	})
}

// fuzzStandIns replace the corpus files whose whole point is to spend what a cap allows (megabytes
// inflated, a work budget scanned): as seeds they would cost seconds on every run of every target for
// no new path. Each stand-in is the same attack built smaller by the same code; the full-size files stay
// with the tests that measure them (TestCarvingAQuadraticObjectStreamIsLinear, TestHostileCorpus) and
// the caps they reach with TestCarveLimits and TestInflatedBytesCountAgainstTheTotalEvenWhenRefused.
var fuzzStandIns = map[string]func() []byte{
	"quadratic-objstm-10k.pdf": func() []byte { return quadraticObjectStreamPDF(2_000, 256<<10) },
	"quadratic-objstm-17k.pdf": func() []byte { return quadraticObjectStreamPDF(3_500, 400<<10) },
	// Five streams of zeros, a thousand to one, 64 KiB each: under the caps, which cost 16 MiB of
	// inflating per stream to reach.
	"pdf-bomb.pdf": func() []byte {
		zeros := make([]byte, 64<<10)
		var atts []testAttachment
		for i := range 5 {
			atts = append(atts, testAttachment{name: fmt.Sprintf("bomb-%d.xml", i), data: zeros, flate: true})
		}
		return testPDF{lines: []string{"five small deflate bombs"}, attachments: atts}.build()
	},
}

// hostileSeeds are the files of the repository's hostile-input corpus (testdata/hostile), without the
// sidecars and the README, the costly ones as their fuzzStandIns.
func hostileSeeds(f testing.TB) [][]byte {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join(hostileDir, "*"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no hostile corpus in %s: %v", hostileDir, err)
	}
	var seeds [][]byte
	for _, path := range paths {
		if strings.HasSuffix(path, ".want.json") || strings.HasSuffix(path, ".md") {
			continue
		}
		if standIn, ok := fuzzStandIns[filepath.Base(path)]; ok {
			seeds = append(seeds, standIn())
			continue
		}
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return seeds
}
