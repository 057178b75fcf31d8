package specimen

import (
	"bytes"
	"context"
	"net/http"
	"os/exec"
	"strings"
	"testing"

	"greatbook/internal/einvoice/read"
)

func needTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s (poppler-utils) is not installed", tool)
		}
	}
}

func TestRasterise(t *testing.T) {
	t.Parallel()
	needTools(t, "pdftoppm", "pdftotext")
	specimens, err := Generate(3, len(Layouts()))
	if err != nil {
		t.Fatal(err)
	}
	one, long := specimens[0], specimens[0]
	for _, s := range specimens {
		if layoutNamed(t, s.Layout).MaxLines > 8 {
			long = s
			break
		}
	}
	ctx := context.Background()
	sc := Scan{DPI: 100, Rotate: 0.6, Noise: 0.002, Seed: 1}
	png, err := Rasterise(ctx, one.PDF, sc)
	if err != nil {
		t.Fatal(err)
	}
	if got := http.DetectContentType(png); got != "image/png" {
		t.Errorf("a one-page scan is %s, want image/png", got)
	}
	again, err := Rasterise(ctx, one.PDF, sc)
	if err != nil || !bytes.Equal(png, again) {
		t.Errorf("the same scan gave other bytes (%v)", err)
	}
	multi, err := Rasterise(ctx, long.PDF, Scan{DPI: 100})
	if err != nil {
		t.Fatal(err)
	}
	if got := http.DetectContentType(multi); got != "application/pdf" {
		t.Fatalf("a %s scan is %s, want application/pdf", long.Layout, got)
	}
	if bytes.Contains(multi, []byte("/MediaBox [0 0 210")) {
		t.Error("the scan's pages are 210 points wide, not 210 mm")
	}
	cmd := exec.Command("pdftotext", "-", "-")
	cmd.Stdin = bytes.NewReader(multi)
	text, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.TrimSpace(strings.ReplaceAll(string(text), "\f", "")) != "" {
		t.Errorf("the scan has a text layer: %q", text)
	}
	if n := bytes.Count(text, []byte("\f")); n < 2 {
		t.Errorf("the scan of %s has %d pages, want 2 or more", long.Layout, n)
	}
}

func TestStripXML(t *testing.T) {
	t.Parallel()
	needTools(t, "pdftocairo", "pdftotext")
	sample, err := FacturXSample()
	if err != nil {
		t.Fatal(err)
	}
	truth, err := read.Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	stripped, err := StripXML(context.Background(), sample)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := read.Parse(stripped); err == nil {
		t.Error("the stripped PDF still parses")
	}
	cmd := exec.Command("pdftotext", "-layout", "-", "-")
	cmd.Stdin = bytes.NewReader(stripped)
	text, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(text), truth.Number) || !strings.Contains(string(text), truth.Seller.Name) {
		t.Errorf("the stripped text layer lacks the number %s or seller %s", truth.Number, truth.Seller.Name)
	}
}
