package bench

import (
	"context"
	"fmt"
	"time"

	"greatbook/internal/pagetext"
	"greatbook/internal/textfields/specimen"
)

// ReadingOptions are the counts of the reading figure.
type ReadingOptions struct {
	Specimens int  // invoices read from their text layer, cycling through the layouts
	Scans     int  // of those, the first ones also read as scans (OCR)
	DPI       int  // the scans' resolution
	Workers   int  // documents read at a time
	ShowWrong bool // print the first wrong readings of each set, for tuning
}

// Reading measures how well invoices without e-invoice data are read from
// their text: specimens of known values in every layout, from their text
// layer and from scans of them, per field at first sight and after one
// corrected invoice of the same supplier, and the Factur-X sample with its
// XML left out (text layer and scan), with the reading time per page.
func Reading(ctx context.Context, e *Env, o ReadingOptions) error {
	start := time.Now()
	specimens, err := specimen.Generate(1, o.Specimens)
	if err != nil {
		return err
	}
	o.Scans = min(o.Scans, len(specimens))
	scans, err := specimen.ScanCases(ctx, specimens[:o.Scans], o.DPI, o.Workers)
	if err != nil {
		return err
	}
	fxText, fxScan, err := specimen.FacturXCases(ctx, o.DPI)
	if err != nil {
		return err
	}
	lim := pagetext.Limits{DPI: o.DPI}
	text := specimen.Measure(ctx, specimen.TextCases(specimens), o.Workers, lim)
	ocr := specimen.Measure(ctx, scans, o.Workers, lim)
	fxt := specimen.Measure(ctx, []specimen.Case{fxText}, 1, lim)
	fxo := specimen.Measure(ctx, []specimen.Case{fxScan}, 1, lim)
	layouts := specimen.Layouts()
	languages := map[string]bool{}
	for _, l := range layouts[:min(len(layouts), o.Specimens)] {
		languages[l.Language] = true
	}
	fmt.Fprintf(e.Out, "\nreading invoices from their text: %d specimens in %d layouts, %d languages (text layer); "+
		"%d of them scanned at %d dpi (OCR); the Factur-X sample without its XML (FX); %d documents at a time\n",
		o.Specimens, min(len(layouts), o.Specimens), len(languages), o.Scans, o.DPI, o.Workers)
	fmt.Fprintln(e.Out, "first: no layout; learn: the supplier's layout learned from its first invoice, on the others")
	specimen.Print(e.Out, text, ocr, &fxt, &fxo)
	if o.ShowWrong {
		for _, t := range []specimen.Tally{text, ocr, fxt, fxo} {
			for _, w := range t.Wrong {
				fmt.Fprintln(e.Out, "  wrong: "+w)
			}
		}
	}
	fmt.Fprintf(e.Out, "(the reading figure took %s in all)\n", time.Since(start).Round(time.Second))
	return nil
}
