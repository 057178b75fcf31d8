package read

import (
	"testing"

	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
)

// TestPayeeIBANIsRead reads the payee's account (BT-84) from every format that carries one, as the
// document states it: the AP checks compare it with the supplier's earlier invoices.
func TestPayeeIBANIsRead(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, want string }{
		{"samples/en16931-ubl-example2.xml", "NO9386011117947"},
		{"samples/en16931-ubl-creditnote1.xml", "BE91000000143476"},
		{"samples/peppol-bis3-base-example.xml", "IBAN32423940"},
		{"samples/en16931-cii-example2.xml", "NO9386011117947"},
		{"cii-invoice.xml", "DE02120300000000202051"},
		{"zugferd1-comfort.xml", "DE02120300000000202051"},
		{"facturx-basicwl.xml", "DE75512108001245126199"},
		{"json-invoice-with-totals.json", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(einvoicetest.ReadTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if d.PayeeIBAN != tt.want {
				t.Errorf("payee IBAN %q, want %q", d.PayeeIBAN, tt.want)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		d, err := Parse([]byte(`{"type": "invoice", "number": "1", "issue_date": "2026-11-20", "currency": "EUR",
			"seller": {"name": "S"}, "buyer": {"name": "B"}, "payee_iban": "DE89 3704 0044 0532 0130 00",
			"lines": [{"description": "x", "quantity": "1", "unit_price": "1.00", "tax_rate": "0"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if d.PayeeIBAN != "DE89 3704 0044 0532 0130 00" {
			t.Errorf("payee IBAN %q", d.PayeeIBAN)
		}
		out, err := ownjson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out)
		if err != nil || back.PayeeIBAN != d.PayeeIBAN {
			t.Errorf("own JSON lost the payee IBAN: %q, %v", back.PayeeIBAN, err)
		}
	})
}
