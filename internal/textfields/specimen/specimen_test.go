package specimen

import (
	"bytes"
	"os/exec"
	"strings"
	"testing"

	"greatbook/internal/apchecks"
)

func TestLayouts(t *testing.T) {
	t.Parallel()
	layouts := Layouts()
	if len(layouts) < 24 {
		t.Fatalf("%d layouts, want at least 24", len(layouts))
	}
	perLanguage := map[string]int{}
	names := map[string]bool{}
	for _, l := range layouts {
		perLanguage[l.Language]++
		if names[l.Name] {
			t.Errorf("layout %s twice", l.Name)
		}
		names[l.Name] = true
		if !ValidVATID(l.Seller.VATID) {
			t.Errorf("%s: seller VAT id %s has wrong check digits", l.Name, l.Seller.VATID)
		}
		if _, err := apchecks.ValidIBAN(l.IBAN); err != nil {
			t.Errorf("%s: IBAN %s: %v", l.Name, l.IBAN, err)
		}
	}
	for _, lang := range []string{"en", "de", "fr", "nl"} {
		if perLanguage[lang] < 5 {
			t.Errorf("%d layouts in %s, want at least 5", perLanguage[lang], lang)
		}
	}
	if len(perLanguage) != 4 {
		t.Errorf("languages %v, want en, de, fr, nl", perLanguage)
	}
}

// TestVATIDCheckDigits holds the check-digit schemes to published valid
// numbers, so that the generator and ValidVATID cannot be wrong together.
func TestVATIDCheckDigits(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"DE136695976", "FR40303265045", "NL004495445B01", "BE0477472701", "ATU13585627", "GB980780684"} {
		if !ValidVATID(id) {
			t.Errorf("ValidVATID(%s) = false, want true", id)
		}
	}
	for _, id := range []string{"DE136695975", "FR41303265045", "NL004495446B01", "BE0477472702", "ATU13585628", "GB980780685"} {
		if ValidVATID(id) {
			t.Errorf("ValidVATID(%s) = true, want false", id)
		}
	}
}

func TestGenerate(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("pdftotext"); err != nil {
		t.Skip("pdftotext (poppler-utils) is not installed")
	}
	n := 2 * len(Layouts())
	specimens, err := Generate(1, n)
	if err != nil {
		t.Fatal(err)
	}
	again, err := Generate(1, n)
	if err != nil {
		t.Fatal(err)
	}
	pages := map[int]int{}
	for i, s := range specimens {
		if !bytes.Equal(s.PDF, again[i].PDF) {
			t.Errorf("%s: the same seed rendered different bytes", s.Layout)
		}
		d := s.Truth
		if !d.Totals.Payable.Equal(d.Totals.Net.Add(d.Totals.Tax)) || len(d.Lines) == 0 {
			t.Errorf("%s: totals do not add up: %+v", s.Layout, d.Totals)
		}
		// fpdf writes an empty EmbeddedFiles name tree; a file would need a Filespec.
		if bytes.Contains(s.PDF, []byte("/Filespec")) {
			t.Errorf("%s: the PDF embeds a file", s.Layout)
		}
		l := layoutNamed(t, s.Layout)
		cmd := exec.Command("pdftotext", "-layout", "-", "-")
		cmd.Stdin = bytes.NewReader(s.PDF)
		text, err := cmd.Output()
		if err != nil {
			t.Fatalf("%s: pdftotext: %v", s.Layout, err)
		}
		pages[bytes.Count(text, []byte("\f"))]++
		for _, want := range []string{d.Number, l.Numbers.Plain(d.Totals.Payable), l.Dates.Format(d.IssueDate, l.Language), d.Seller.VATID} {
			if !strings.Contains(string(text), want) {
				t.Errorf("%s: the text layer lacks %q", s.Layout, want)
			}
		}
	}
	if pages[1] == 0 || len(pages) < 2 {
		t.Errorf("pages per specimen %v, want one-page and longer ones", pages)
	}
	other, err := Generate(2, 1)
	if err != nil {
		t.Fatal(err)
	}
	if other[0].Truth.Number == specimens[0].Truth.Number && other[0].Truth.IssueDate == specimens[0].Truth.IssueDate {
		t.Error("another seed drew the same invoice")
	}
	if other[0].Truth.Seller != specimens[0].Truth.Seller {
		t.Error("a layout's seller changed with the seed")
	}
}

func layoutNamed(t *testing.T, name string) Layout {
	t.Helper()
	for _, l := range Layouts() {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no layout %s", name)
	return Layout{}
}
