package einvoice

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// addSeeds adds every test document (the published samples included) and every file of the repository's
// hostile-input corpus to a fuzz target's seed corpus, plus a few hand-made PDFs that reach the carver's
// rarer paths.
func addSeeds(f *testing.F) {
	f.Helper()
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
		f.Add(readTestdata(f, strings.TrimPrefix(path, "testdata"+string(filepath.Separator))))
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range hostileSeeds(f) {
		f.Add(seed)
	}
	cii := readTestdata(f, "cii-invoice.xml")
	f.Add(testPDF{objectStream: true, attachments: []testAttachment{{name: "factur-x.xml", data: cii, flate: true, untyped: true}}}.build())
	f.Add(testPDF{attachments: []testAttachment{{name: "factur-x.xml", data: cii, length: "wrong"}}}.build())
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

// checkCIIRoundTrip: whatever a parser read, BuildCII writes and ParseCII reads back unchanged. Only
// the type code may change: BuildCII writes 380 or 381 when there is none, or when it contradicts the
// document's type (CII has no other place to say it).
func checkCIIRoundTrip(t *testing.T, d Document) {
	t.Helper()
	xmlData, err := BuildCII(d)
	if err != nil {
		return // a date that is not YYYY-MM-DD: BuildCII refuses it, Validate reports it
	}
	back, err := ParseCII(xmlData)
	if err != nil {
		t.Fatalf("ParseCII(BuildCII(d)): %v\n%s", err, xmlData)
	}
	if d.TypeCode == "" || docTypeFor(d.TypeCode) != d.Type {
		d.TypeCode = back.TypeCode
	}
	if !sameFields(t, back, d) {
		t.Fatalf("BuildCII round trip changed the document\n got %s\nwant %s", comparable(t, back), comparable(t, d))
	}
}

func FuzzParseUBL(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseUBL(data)
		checkParseResult(t, d, err, FormatUBL, false)
		if err == nil {
			checkCIIRoundTrip(t, d)
		}
	})
}

func FuzzParseCII(f *testing.F) {
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseCII(data)
		checkParseResult(t, d, err, FormatCII, false)
		if err == nil {
			checkCIIRoundTrip(t, d)
		}
	})
}

func FuzzCarvePDF(f *testing.F) {
	addSeeds(f)
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
	addSeeds(f)
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
	addSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		format := Detect(data)
		d, err := Parse(data)
		switch {
		case err == nil:
			if d.Format != format {
				t.Fatalf("Parse gave %q, Detect %q", d.Format, format)
			}
		case errors.Is(err, ErrNoStructuredData):
			if format != FormatUnknown {
				t.Fatalf("Detect says %q, Parse found no structured data", format)
			}
		default:
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("unexpected error type %T: %v", err, err)
			}
			// A cap may stop the carving before Detect's own carving found the invoice; either way the
			// error names its cap.
			if pe.Format != format && pe.Code != CodeInputCap {
				t.Fatalf("ParseError for %q, Detect says %q", pe.Format, format)
			}
		}
		if err == nil {
			_ = d.SourceRef()
			_ = ValidateAt(d, testNow)
		}
	})
}

// hostileSeeds are the files of the repository's hostile-input corpus (testdata/hostile), without the
// sidecars and the README.
func hostileSeeds(f *testing.F) [][]byte {
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
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, data)
	}
	return seeds
}
