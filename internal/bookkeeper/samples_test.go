package bookkeeper_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/read"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// statedPayables are the amounts due (BT-115) the published examples state,
// read off the documents by hand. Every example the project keeps must be
// here: a new one fails the test until its stated payable is added.
var statedPayables = map[string]string{
	"en16931-cii-example2.xml":     "801.78",
	"en16931-ubl-creditnote1.xml":  "100.11",
	"en16931-ubl-example2.xml":     "801.78",
	"mustang-EN16931_Einfach.pdf":  "529.87",
	"peppol-bis3-base-example.xml": "1656.25",
}

// TestEveryPublishedExamplePostsItsPayable takes every one of the
// published examples in einvoice/testdata/samples: each goes through the
// real pipeline, is read with its stated payable and no fatal finding, is
// filed pending, and on approval the bookkeeper posts a balanced entry whose
// accounts-payable line is that payable to the cent.
func TestEveryPublishedExamplePostsItsPayable(t *testing.T) {
	t.Parallel()
	dir := "../einvoice/testdata/samples"
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := newFixture(t, "EUR")
	ctx := context.Background()
	seen := 0
	for i, e := range entries {
		name := e.Name()
		if e.IsDir() || strings.HasSuffix(name, ".md") || strings.HasSuffix(name, ".txt") {
			continue
		}
		seen++
		t.Run(name, func(t *testing.T) {
			want, ok := statedPayables[name]
			if !ok {
				t.Fatalf("add the payable %s states to statedPayables", name)
			}
			content, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			parsed, err := read.Parse(content)
			if err != nil {
				t.Fatal(err)
			}
			// One org per example, keeping its books in the example's
			// currency with a default expense account: nothing to ask.
			o := testkit.OrgWith(t, f.db, fmt.Sprintf("sample-%d", i), parsed.Currency)
			if _, err := f.db.Pool.Exec(ctx, `UPDATE orgs SET default_expense_account_id =
				(SELECT id FROM accounts WHERE org_id = $1 AND code = '6000') WHERE id = $1`, o.ID); err != nil {
				t.Fatal(err)
			}
			res, err := f.app.Pipeline.Ingest(ctx, intake.Arrival{OrgID: o.ID, Content: content, MediaType: "application/octet-stream", Filename: name, Via: "api", Actor: "t"})
			if err != nil {
				t.Fatal(err)
			}
			if err := f.app.Pipeline.Process(ctx, res.RunID); err != nil {
				t.Fatal(err)
			}
			// The app's own workers may hold the run: wait for its filing.
			var doc intake.Document
			testkit.Eventually(t, 60*time.Second, "the document was never filed", func() (bool, error) {
				doc, err = intake.NewPGStore(f.db.Pool).Get(ctx, o.ID, res.Document.ID)
				return doc.Status != intake.Received, err
			})
			var fields einvoice.Document
			var findings []einvoice.Finding
			_ = json.Unmarshal(doc.Fields, &fields)
			_ = json.Unmarshal(doc.Findings, &findings)
			if doc.Status != intake.Pending || einvoice.HasFatal(findings) {
				t.Fatalf("filed %s %q with findings %s", doc.Status, doc.FlagReason, doc.Findings)
			}
			payable := decimal.RequireFromString(want)
			if !fields.Totals.Payable.Equal(payable) {
				t.Fatalf("read payable %s, the document states %s", fields.Totals.Payable, want)
			}

			a, err := f.app.Decisions.Approve(ctx, o.ID, doc.ID, f.actor)
			if err != nil || a.Launch.Outcome != "launched" {
				t.Fatalf("approve: %+v %v", a, err)
			}
			f.org = o
			entry := f.waitPosted(t, doc.ID)
			var debits, credits, toSupplier decimal.Decimal
			for _, l := range entry.Lines {
				debits, credits = debits.Add(l.Debit), credits.Add(l.Credit)
				if l.Account == ledger.AccountsPayable {
					toSupplier = toSupplier.Add(l.Credit).Sub(l.Debit)
				}
			}
			if fields.Type == einvoice.TypeCreditNote {
				toSupplier = toSupplier.Neg()
			}
			if !debits.Equal(credits) || !toSupplier.Equal(payable) {
				t.Fatalf("entry debits %s, credits %s, accounts payable %s; want balanced at %s: %+v", debits, credits, toSupplier, want, entry.Lines)
			}
		})
	}
	if seen != len(statedPayables) {
		t.Fatalf("%d examples in %s, %d stated payables", seen, dir, len(statedPayables))
	}
}
