package main

import (
	"context"
	"fmt"
	"math/rand"
	"slices"

	"greatbook/internal/app"
	"greatbook/internal/einvoice"
	"greatbook/internal/org"
	"greatbook/internal/textfields/specimen"
)

// demoReadLanguages are the languages of the plain PDF invoices (no
// e-invoice inside) the demo files: a reviewer sees them read from their
// text layer.
var demoReadLanguages = []string{"de", "nl"}

// loadDemoReadPDFs files one plain PDF invoice, addressed to the demo org,
// in each of demoReadLanguages. The same bytes arrive again on a later demo
// run and file nothing new.
func loadDemoReadPDFs(ctx context.Context, a *app.App, o org.Org) error {
	for n, lang := range demoReadLanguages {
		i := slices.IndexFunc(specimen.Layouts(), func(l specimen.Layout) bool { return l.Language == lang })
		l := specimen.Layouts()[i]
		d := l.Invoice(rand.New(rand.NewSource(int64(2026 + n))))
		d.Buyer = einvoice.Party{Name: demoLegalName, Address: einvoice.Address{Line1: "Storgatan 1", Postcode: "111 22", City: "Stockholm", Country: "SE"}}
		pdf, err := specimen.Render(l, d)
		if err != nil {
			return fmt.Errorf("demo: plain PDF %s: %w", d.Number, err)
		}
		if _, _, err := ingestContent(ctx, a, o.ID, fmt.Sprintf("invoice-%s.pdf", d.Number), pdf); err != nil {
			return fmt.Errorf("demo: plain PDF %s: %w", d.Number, err)
		}
	}
	return nil
}
