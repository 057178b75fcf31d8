package read

import (
	"encoding/json"
	"fmt"
	"testing"

	"greatbook/internal/einvoice"
	"greatbook/internal/einvoice/einvoicetest"
	"greatbook/internal/einvoice/ownjson"
)

// TestPayeeIBANIsRead reads the payee's account (BT-84) and its bank (BT-86) from every format that
// carries them, as the document states them: the AP checks compare the account with the supplier's
// earlier invoices, and pay runs pay to it. The published samples are read as they are.
func TestPayeeIBANIsRead(t *testing.T) {
	t.Parallel()
	tests := []struct{ file, want, bic string }{
		{"samples/en16931-ubl-example2.xml", "NO9386011117947", "DNBANOKK"},
		{"samples/en16931-ubl-creditnote1.xml", "BE91000000143476", "BPOTBEB1"},
		{"samples/peppol-bis3-base-example.xml", "IBAN32423940", "BIC324098"},
		{"samples/en16931-cii-example2.xml", "NO9386011117947", "DNBANOKK"},
		{"samples/mustang-EN16931_Einfach.pdf", "", ""}, // states no credit transfer account
		{"cii-invoice.xml", "DE02120300000000202051", ""},
		{"zugferd1-comfort.xml", "DE02120300000000202051", ""},
		{"facturx-basicwl.xml", "DE75512108001245126199", ""},
		{"json-invoice-with-totals.json", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			t.Parallel()
			d, err := Parse(einvoicetest.ReadTestdata(t, tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if d.PayeeIBAN != tt.want || d.PayeeBIC != tt.bic {
				t.Errorf("payee IBAN %q BIC %q, want %q %q", d.PayeeIBAN, d.PayeeBIC, tt.want, tt.bic)
			}
		})
	}
	t.Run("json", func(t *testing.T) {
		t.Parallel()
		d, err := Parse([]byte(`{"type": "invoice", "number": "1", "issue_date": "2026-11-20", "currency": "EUR",
			"seller": {"name": "S"}, "buyer": {"name": "B"}, "payee_iban": "DE89 3704 0044 0532 0130 00",
			"payment": {"bic": "COBADEFFXXX"},
			"lines": [{"description": "x", "quantity": "1", "unit_price": "1.00", "tax_rate": "0"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		if d.PayeeIBAN != "DE89 3704 0044 0532 0130 00" || d.PayeeBIC != "COBADEFFXXX" {
			t.Errorf("payee IBAN %q BIC %q", d.PayeeIBAN, d.PayeeBIC)
		}
		out, err := ownjson.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		back, err := Parse(out)
		if err != nil || back.PayeeIBAN != d.PayeeIBAN || back.PayeeBIC != d.PayeeBIC {
			t.Errorf("own JSON lost the payee account: %q %q, %v", back.PayeeIBAN, back.PayeeBIC, err)
		}
	})
	t.Run("json payment", func(t *testing.T) {
		t.Parallel()
		const doc = `{"type": "invoice", "number": "1", "issue_date": "2026-11-20", "currency": "EUR",
			"seller": {"name": "S"}, "buyer": {"name": "B"}, %s
			"lines": [{"description": "x", "quantity": "1", "unit_price": "1.00", "tax_rate": "0"}]}`
		d, err := Parse([]byte(fmt.Sprintf(doc, `"payment": {"iban": "DE89370400440532013000", "bic": "COBADEFFXXX"},`)))
		if err != nil || d.PayeeIBAN != "DE89370400440532013000" || d.PayeeBIC != "COBADEFFXXX" {
			t.Errorf("payment read as %q %q, %v", d.PayeeIBAN, d.PayeeBIC, err)
		}
		fields, err := json.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		var shown struct {
			PayeeIBAN string            `json:"payee_iban"`
			Payment   *einvoice.Payment `json:"payment"`
		}
		if err := json.Unmarshal(fields, &shown); err != nil || shown.PayeeIBAN != d.PayeeIBAN ||
			shown.Payment == nil || *shown.Payment != (einvoice.Payment{IBAN: d.PayeeIBAN, BIC: d.PayeeBIC}) {
			t.Errorf("fields show %s", fields)
		}
		var back einvoice.Document
		if err := json.Unmarshal(fields, &back); err != nil || back.PayeeIBAN != d.PayeeIBAN || back.PayeeBIC != d.PayeeBIC {
			t.Errorf("fields read back as %q %q, %v", back.PayeeIBAN, back.PayeeBIC, err)
		}
		_, err = Parse([]byte(fmt.Sprintf(doc, `"payee_iban": "DE89370400440532013000", "payment": {"iban": "NO9386011117947"},`)))
		if err == nil {
			t.Error("two different accounts accepted")
		}
	})
}
