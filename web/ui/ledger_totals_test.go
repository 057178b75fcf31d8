package ui_test

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/auth"
	"greatbook/internal/ledger"
	"greatbook/web/webtest"
)

func TestTheTrialBalanceHasTotalsAndSaysItBalances(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleReviewer)
	webtest.PostEUR(t, a, o.ID, "1", "6000", "2000", "1200.50")
	webtest.PostEUR(t, a, o.ID, "2", "5000", "2000", "99.50")

	d := webtest.Doc(t, webtest.Get(t, c, a.URL+"/ledger/trial-balance"))
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
