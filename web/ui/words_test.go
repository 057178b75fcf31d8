package ui_test

import (
	"context"
	"strings"
	"testing"

	"greatbook/internal/auth"
	"greatbook/web/webtest"
)

// The supplier rules page names each supplier as its invoices do, with the
// key the rule is remembered by (its VAT id) beside it; a supplier no
// document names keeps its key alone.
func TestSupplierRulesNameTheSupplier(t *testing.T) {
	t.Parallel()
	a := webtest.NewSite(t)
	o, _, c, _ := a.SignedInClient(t, auth.RoleAdmin)
	ctx := context.Background()
	if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
		received_via, received_by, status, doc_type, source_ref, fields, queued_at)
		VALUES ($1, repeat('a', 64), 'application/xml', 1, 'api', 'test', 'pending', 'invoice', 'vat:SE556677889901/INV-9',
		        '{"seller": {"name": "Zeta Paper AB"}, "number": "INV-9"}', now())`, o.ID); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"vat:SE556677889901", "vat:DE999999999"} {
		if _, err := a.DB.Pool.Exec(ctx, `INSERT INTO supplier_accounts (org_id, supplier_key, account_id, created_by)
			SELECT $1, $2, id, 'test' FROM accounts WHERE org_id = $1 AND code = '6200'`, o.ID, key); err != nil {
			t.Fatal(err)
		}
	}
	page := webtest.Doc(t, webtest.Get(t, c, a.URL+"/admin/supplier-rules"))
	named := page.Find(`[data-testid=supplier-rule][data-supplier-key="vat:SE556677889901"]`)
	if got := strings.TrimSpace(named.Find("[data-testid=rule-supplier-name]").Text()); got != "Zeta Paper AB" {
		t.Errorf("the supplier's name: %q (row %q)", got, strings.Join(strings.Fields(named.Text()), " "))
	}
	if got := named.Find("[data-testid=rule-supplier-key]").Text(); got != "VAT id SE556677889901" {
		t.Errorf("the supplier's key: %q", got)
	}
	unnamed := page.Find(`[data-testid=supplier-rule][data-supplier-key="vat:DE999999999"]`)
	if n := unnamed.Find("[data-testid=rule-supplier-name]").Length(); n != 0 {
		t.Errorf("a supplier no document names has a name: %q", unnamed.Text())
	}
	if got := unnamed.Find("[data-testid=rule-supplier-key]").Text(); got != "VAT id DE999999999" {
		t.Errorf("the unnamed supplier's key: %q", got)
	}
}
