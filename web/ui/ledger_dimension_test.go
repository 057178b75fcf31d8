package ui_test

import (
	"context"
	"testing"

	"github.com/PuerkitoBio/goquery"
	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/web/webtest"
)

// postCoded posts an EUR entry whose debit lines carry the dimensions
// given, against accounts payable.
func postCoded(t *testing.T, a *webtest.Site, orgID int64, sourceID string, debits ...ledger.Line) {
	t.Helper()
	total := decimal.Zero
	for _, l := range debits {
		total = total.Add(l.Debit)
	}
	lines := append(debits, ledger.Line{Account: ledger.AccountsPayable, Credit: total})
	if _, err := ledger.Post(context.Background(), a.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: orgID, SourceType: "test", SourceID: sourceID, EntrySet: "main"},
		Date:      "2026-11-20", Currency: "EUR", Description: "entry " + sourceID, Actor: "test", Lines: lines,
	}); err != nil {
		t.Fatal(err)
	}
}

func debit(account, amount string, dims map[string]string) ledger.Line {
	return ledger.Line{Account: account, Debit: decimal.RequireFromString(amount), Dimensions: dims}
}

// tbRows are the trial balance's rows as account/value: balance.
func tbRows(d *goquery.Document) map[string]string {
	out := map[string]string{}
	d.Find(`[data-testid=tb-row]`).Each(func(_ int, r *goquery.Selection) {
		account, _ := r.Attr("data-account")
		value, _ := r.Attr("data-value")
		out[account+"/"+value] = r.Find(`[data-testid=tb-balance]`).Text()
	})
	return out
}

func TestTheLedgerFiltersAndTheTrialBalanceGroupsByDimension(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	codingDimension(t, a, o.ID)
	postCoded(t, a, o.ID, "split", debit("6000", "100.00", map[string]string{"cost_center": "OPS"}),
		debit("6000", "50.00", map[string]string{"cost_center": "RND"}))
	postCoded(t, a, o.ID, "ops", debit("6100", "30.00", map[string]string{"cost_center": "OPS"}))
	postCoded(t, a, o.ID, "none", debit("6000", "10.00", nil))

	// Grouped by cost centre: a row per account and value, the lines
	// without one on their own row, and the whole still balances.
	d := getPage(t, c, a.URL+"/ledger/trial-balance?dimension=cost_center")
	want := map[string]string{"2000/": "-190.00", "6000/": "10.00", "6000/OPS": "100.00", "6000/RND": "50.00", "6100/OPS": "30.00"}
	got := tbRows(d)
	if len(got) != len(want) {
		t.Fatalf("trial balance by cost centre: %v", got)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("trial balance by cost centre, %s: %q, want %s (%v)", k, got[k], v, got)
		}
	}
	if d.Find(`[data-testid=tb-balanced] .posted`).Length() != 1 {
		t.Fatal("the trial balance by cost centre does not balance")
	}
	if d.Find(`#tb-dimension option[value=cost_center][selected]`).Length() != 1 || d.Find(`#tb-dimension option[value=supplier]`).Length() != 1 {
		t.Fatal("the dimension choice does not offer the org's and the bookkeeper's dimensions")
	}

	// One value: only its lines, said to need not balance.
	d = getPage(t, c, a.URL+"/ledger/trial-balance?dimension=cost_center&value=OPS")
	if got := tbRows(d); len(got) != 2 || got["6000/OPS"] != "100.00" || got["6100/OPS"] != "30.00" {
		t.Fatalf("trial balance of OPS: %v", got)
	}
	if d.Find(`[data-testid=tb-filtered]`).Length() != 1 {
		t.Fatal("a trial balance of one value does not say it need not balance")
	}

	// Without a dimension the trial balance is as before: a row per account.
	if got := tbRows(getPage(t, c, a.URL+"/ledger/trial-balance")); len(got) != 3 || got["6000/"] != "160.00" {
		t.Fatalf("trial balance: %v", got)
	}

	// The journal keeps the entries with a line of the dimension, of the value.
	for query, n := range map[string]int{"": 3, "?dimension=cost_center": 2, "?dimension=cost_center&value=RND": 1,
		"?dimension=cost_center&value=NONE": 0, "?dimension=supplier": 0, "?value=RND": 3} {
		if got := getPage(t, c, a.URL+"/ledger"+query).Find(`[data-testid=entry-row]`).Length(); got != n {
			t.Errorf("ledger%s: %d entries, want %d", query, got, n)
		}
	}
}
