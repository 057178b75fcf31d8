package einvoicetest

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

	"greatbook/internal/einvoice"
)

// SeedKind is the input a fuzz target reads: a seed of another kind only reaches the target's first
// refusal, and a PDF's or a large XML's costs seconds under -race in a target that refuses it.
type SeedKind int

// The kinds of seeds.
const (
	AnySeed SeedKind = iota
	XMLSeed
	JSONSeed
	PDFSeed
)

// KindOf tells a seed's kind the way Parse dispatches on it: XML and JSON by their first byte after a
// byte order mark and whitespace, a PDF by its header within the first kilobyte otherwise.
func KindOf(data []byte) SeedKind {
	trimmed := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xEF\xBB\xBF")), " \t\r\n")
	switch {
	case len(trimmed) > 0 && trimmed[0] != '<' && trimmed[0] != '{' && bytes.Contains(trimmed[:min(len(trimmed), 1024)], []byte("%PDF-")):
		return PDFSeed
	case len(trimmed) > 0 && trimmed[0] == '<':
		return XMLSeed
	case len(trimmed) > 0 && trimmed[0] == '{':
		return JSONSeed
	}
	return AnySeed
}

// AddSeeds adds the test documents of kind (the published samples included) and the files of that kind
// of the repository's hostile-input corpus to a fuzz target's seed corpus, plus, for PDFs, a few
// hand-made ones that reach the carver's rarer paths. AnySeed adds every one.
func AddSeeds(f *testing.F, kind SeedKind) {
	f.Helper()
	for _, seed := range AllSeeds(f) {
		if kind == AnySeed || KindOf(seed) == kind {
			f.Add(seed)
		}
	}
}

var seeds struct {
	once sync.Once
	all  [][]byte
}

// AllSeeds reads and builds the seeds once for all the targets.
func AllSeeds(f testing.TB) [][]byte {
	f.Helper()
	seeds.once.Do(func() {
		dir := testdataDir(f)
		err := filepath.WalkDir(dir, func(path string, entry fs.DirEntry, err error) error {
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
			seeds.all = append(seeds.all, ReadTestdata(f, strings.TrimPrefix(path, dir+string(filepath.Separator))))
			return nil
		})
		if err != nil {
			f.Fatal(err)
		}
		seeds.all = append(seeds.all, hostileSeeds(f)...)
		cii := ReadTestdata(f, "cii-invoice.xml")
		seeds.all = append(seeds.all,
			PDF{ObjectStream: true, Attachments: []EmbeddedFile{{Name: "factur-x.xml", Data: cii, Flate: true, Untyped: true}}}.Build(),
			PDF{Attachments: []EmbeddedFile{{Name: "factur-x.xml", Data: cii, Length: "wrong"}}}.Build())
	})
	if len(seeds.all) == 0 {
		f.Fatal("no seeds")
	}
	return seeds.all
}

// CheckParseResult holds for every parser: no panic, and an error is a *ParseError for the expected
// format (or ErrNoStructuredData where a parser may give it).
func CheckParseResult(t *testing.T, d einvoice.Document, err error, format einvoice.Format, mayLackData bool) {
	t.Helper()
	if err != nil {
		var pe *einvoice.ParseError
		switch {
		case errors.As(err, &pe):
			if pe.Format != format {
				t.Fatalf("ParseError for %q, want %q: %v", pe.Format, format, err)
			}
		case mayLackData && errors.Is(err, einvoice.ErrNoStructuredData):
		default:
			t.Fatalf("unexpected error type %T: %v", err, err)
		}
		return
	}
	if d.Format != format {
		t.Fatalf("Format = %q, want %q", d.Format, format)
	}
	_ = d.SourceRef()
	_ = einvoice.ValidateAt(d, Now)
}

// Syntax is an XML syntax a builder writes and a parser reads back, for CheckBuildRoundTrips.
type Syntax struct {
	Name  string
	Build func(einvoice.Document) ([]byte, error)
	Parse func([]byte) (einvoice.Document, error)
}

// CheckBuildRoundTrips: whatever a parser read, the builders of syntaxes (cii.Build and ubl.Build) write
// and their parsers read back unchanged. Only the type code may change: the builders write 380 or 381
// when there is none, or when it contradicts the document's type (CII has no other place to say it, and
// UBL's root must agree with it).
func CheckBuildRoundTrips(t *testing.T, d einvoice.Document, syntaxes ...Syntax) {
	t.Helper()
	for _, syntax := range syntaxes {
		xmlData, err := syntax.Build(d)
		if err != nil {
			return // a date that is not YYYY-MM-DD: the builders refuse it, Validate reports it
		}
		back, err := syntax.Parse(xmlData)
		if err != nil {
			t.Fatalf("Parse%s(Build%s(d)): %v\n%s", syntax.Name, syntax.Name, err, xmlData)
		}
		want := d
		if want.TypeCode == "" || einvoice.DocTypeFor(want.TypeCode) != want.Type {
			want.TypeCode = back.TypeCode
		}
		if !SameFields(t, back, want) {
			t.Fatalf("Build%s round trip changed the document\n got %s\nwant %s", syntax.Name, Comparable(t, back), Comparable(t, want))
		}
	}
}

// fuzzStandIns replace the corpus files whose whole point is to spend what a cap allows (megabytes
// inflated, a work budget scanned): as seeds they would cost seconds on every run of every target for
// no new path. Each stand-in is the same attack built smaller by the same code; the full-size files stay
// with the tests that measure them (TestCarvingAQuadraticObjectStreamIsLinear, TestHostileCorpus) and
// the caps they reach with TestCarveLimits and TestInflatedBytesCountAgainstTheTotalEvenWhenRefused.
var fuzzStandIns = map[string]func() []byte{
	"quadratic-objstm-10k.pdf": func() []byte { return QuadraticObjectStreamPDF(2_000, 256<<10) },
	"quadratic-objstm-17k.pdf": func() []byte { return QuadraticObjectStreamPDF(3_500, 400<<10) },
	// Five streams of zeros, a thousand to one, 64 KiB each: under the caps, which cost 16 MiB of
	// inflating per stream to reach.
	"pdf-bomb.pdf": func() []byte {
		zeros := make([]byte, 64<<10)
		var atts []EmbeddedFile
		for i := range 5 {
			atts = append(atts, EmbeddedFile{Name: fmt.Sprintf("bomb-%d.xml", i), Data: zeros, Flate: true})
		}
		return PDF{Lines: []string{"five small deflate bombs"}, Attachments: atts}.Build()
	},
}

// hostileSeeds are the files of the repository's hostile-input corpus (testdata/hostile), without the
// sidecars and the README, the costly ones as their fuzzStandIns.
func hostileSeeds(f testing.TB) [][]byte {
	f.Helper()
	paths, err := filepath.Glob(filepath.Join(HostileDir(f), "*"))
	if err != nil || len(paths) == 0 {
		f.Fatalf("no hostile corpus in %s: %v", HostileDir(f), err)
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
