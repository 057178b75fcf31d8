package web_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

// postEUR posts a two-line EUR entry of amount from debit account to credit account.
func postEUR(t *testing.T, a *site, orgID int64, sourceID, debit, credit, amount string) ledger.Entry {
	t.Helper()
	res, err := ledger.Post(context.Background(), a.db.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: orgID, SourceType: "test", SourceID: sourceID, EntrySet: "main"},
		Date:      "2026-11-20", Currency: "EUR", Description: "entry " + sourceID, Actor: "test",
		Lines: []ledger.Line{{Account: debit, Debit: decimal.RequireFromString(amount)}, {Account: credit, Credit: decimal.RequireFromString(amount)}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Entry
}

func TestTheTrialBalanceHasTotalsAndSaysItBalances(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	o, _, c, _ := a.signedInClient(t, auth.RoleReviewer)
	postEUR(t, a, o.ID, "1", "6000", "2000", "1200.50")
	postEUR(t, a, o.ID, "2", "5000", "2000", "99.50")

	d := doc(t, get(t, c, a.URL+"/ledger/trial-balance"))
	totals := d.Find("[data-testid=tb-totals]")
	if totals.Length() != 1 {
		t.Fatal("no totals row on the trial balance")
	}
	for testid, want := range map[string]string{"tb-total-debit": "1,300.00", "tb-total-credit": "1,300.00"} {
		// S3 switches the money format to thousands separators; accept either.
		got := strings.TrimSpace(totals.Find("[data-testid=" + testid + "]").Text())
		if got != want && got != strings.ReplaceAll(want, ",", "") {
			t.Errorf("%s = %q, want %q", testid, got, want)
		}
	}
	if got := totals.Find("[data-testid=tb-balanced]").Text(); !strings.Contains(got, "balanced") {
		t.Errorf("balanced mark: %q", got)
	}
}

func TestTrialBalanceTotalsShowTheDifference(t *testing.T) {
	t.Parallel()
	rows := []ledger.BalanceRow{{Debit: decimal.RequireFromString("10")}, {Credit: decimal.RequireFromString("7.5")}}
	tot := ledger.Totals(rows)
	if tot.Balanced() || !tot.Difference.Equal(decimal.RequireFromString("2.5")) {
		t.Errorf("totals %+v", tot)
	}
	if !ledger.Totals(nil).Balanced() {
		t.Error("an empty trial balance balances")
	}
}

// The API's reversal keeps its contract (no body needed) and takes an
// optional reason, recorded in the audit trail like the page's.
func TestTheReversalAPITakesAnOptionalReason(t *testing.T) {
	t.Parallel()
	a := newApp(t)
	c, u := a.api(t, auth.RoleReviewer)
	first := postEUR(t, a, u.OrgID, "r1", "6000", "2000", "10.00")
	second := postEUR(t, a, u.OrgID, "r2", "6000", "2000", "20.00")
	if status, body := c.postJSON("/api/v1/journal-entries/"+itoa(first.ID)+"/reverse", ""); status != 201 {
		t.Fatalf("reverse without a body: %d %v", status, body)
	}
	status, body := c.postJSON("/api/v1/journal-entries/"+itoa(second.ID)+"/reverse", `{"reason": "billed twice"}`)
	if status != 201 {
		t.Fatalf("reverse with a reason: %d %v", status, body)
	}
	if n := testkit.Count(t, a.db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'reverse_entry'
		AND subject_id = $2 AND detail->>'reason' = 'billed twice'`, u.OrgID, int64(body["id"].(float64))); n != 1 {
		t.Errorf("%d audit events with the API's reason", n)
	}
}
