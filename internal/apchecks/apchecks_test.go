package apchecks

import (
	"strings"
	"testing"
	"time"

	"greatbook/internal/einvoice"
)

var arrival = time.Date(2026, 12, 3, 9, 30, 0, 0, time.UTC)

func codes(r Report) string {
	var out []string
	for _, f := range r.Findings {
		if f.Severity != einvoice.SeverityWarning {
			return "not a warning: " + f.Code
		}
		out = append(out, f.Code)
	}
	return strings.Join(out, ",")
}

func TestChecks(t *testing.T) {
	t.Parallel()
	acme := Org{LegalName: "Acme Handels GmbH", VATID: "DE 123 456 789", MaxIssueAgeMonths: 18}
	acmeBerlin := acme
	acmeBerlin.Address = einvoice.Address{Line1: "Hauptstraße 1", Postcode: "10115", City: "Berlin", Country: "DE"}
	doc := func(change func(*einvoice.Document)) einvoice.Document {
		d := einvoice.Document{IssueDate: "2026-11-20", DueDate: "2026-12-20",
			Buyer: einvoice.Party{Name: "ACME Handels GmbH", VATID: "DE123456789"}}
		if change != nil {
			change(&d)
		}
		return d
	}
	tests := []struct {
		name     string
		in       Input
		want     string
		contains string
	}{
		{name: "a proper invoice", in: Input{Document: doc(nil), Org: acme}},
		{name: "no identity set says nothing", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Name: "Someone Else Ltd", VATID: "GB999"}
		}), Org: Org{MaxIssueAgeMonths: 18}}},
		{name: "VAT id without country prefix and with dots is ours", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer.VATID = "123.456.789"
		}), Org: acme}},
		{name: "another VAT id", in: Input{Document: doc(func(d *einvoice.Document) { d.Buyer.VATID = "DE987654321" }), Org: acme},
			want: CodeBuyerNotThisOrg, contains: "DE987654321"},
		{name: "another country, same digits", in: Input{Document: doc(func(d *einvoice.Document) { d.Buyer.VATID = "AT123456789" }), Org: acme},
			want: CodeBuyerNotThisOrg},
		{name: "name with punctuation and legal form is ours", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Name: "acme handels, gmbh."}
		}), Org: acme}},
		{name: "another name", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Name: "Acme Logistics GmbH"}
		}), Org: acme}, want: CodeBuyerNotThisOrg, contains: "Acme Logistics GmbH"},
		{name: "no name and no VAT id on the buyer, another postcode", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Address: einvoice.Address{Line1: "Hauptstr. 1", Postcode: "20095", City: "Hamburg", Country: "DE"}}
		}), Org: acmeBerlin}, want: CodeBuyerNotThisOrg, contains: "postcode 20095"},
		{name: "no name and no VAT id on the buyer, our address spelt otherwise", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Address: einvoice.Address{Line1: "Hauptstr. 1", Postcode: "10 115", City: "BERLIN", Country: "de"}}
		}), Org: acmeBerlin}},
		{name: "no name and no VAT id on the buyer, another country", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Address: einvoice.Address{Postcode: "10115", Country: "AT"}}
		}), Org: acmeBerlin}, want: CodeBuyerNotThisOrg, contains: "country AT"},
		{name: "no postcode on the buyer, another city", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Address: einvoice.Address{City: "München"}}
		}), Org: acmeBerlin}, want: CodeBuyerNotThisOrg, contains: "city München"},
		{name: "a name that decides is not overruled by the address", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Name: "Acme Handels GmbH", Address: einvoice.Address{Postcode: "20095"}}
		}), Org: acmeBerlin}},
		{name: "no address of the org says nothing", in: Input{Document: doc(func(d *einvoice.Document) {
			d.Buyer = einvoice.Party{Address: einvoice.Address{Postcode: "20095"}}
		}), Org: acme}},
		{name: "old", in: Input{Document: doc(func(d *einvoice.Document) { d.IssueDate, d.DueDate = "2025-06-02", "" }), Org: acme},
			want: CodeIssueDateOld, contains: "more than 18 months"},
		{name: "just within the age", in: Input{Document: doc(func(d *einvoice.Document) { d.IssueDate, d.DueDate = "2025-06-03", "" }), Org: acme}},
		{name: "a shorter configured age", in: Input{Document: doc(nil), Org: Org{MaxIssueAgeMonths: 18}}},
		{name: "tomorrow is allowed", in: Input{Document: doc(func(d *einvoice.Document) { d.IssueDate = "2026-12-04" }), Org: acme}},
		{name: "the day after tomorrow is in the future", in: Input{Document: doc(func(d *einvoice.Document) { d.IssueDate = "2026-12-05" }), Org: acme},
			want: CodeIssueDateFuture},
		{name: "due before arrival", in: Input{Document: doc(func(d *einvoice.Document) { d.DueDate = "2026-12-02" }), Org: acme},
			want: CodeDueAtArrival, contains: "2026-12-02"},
		{name: "due before issue is prepaid, not overdue", in: Input{Document: doc(func(d *einvoice.Document) { d.DueDate = "2026-11-01" }), Org: acme}},
		{name: "due on the day of arrival", in: Input{Document: doc(func(d *einvoice.Document) { d.DueDate = "2026-12-03" }), Org: acme}},
		{name: "same IBAN, spaced and lower case", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "de89 3704 0044 0532 0130 00" }),
			Org: acme, Previous: []PreviousAccount{{IBAN: "DE89370400440532013000", Documents: []int64{2, 1}}}}},
		{name: "no previous posted invoice", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "DE89370400440532013000" }), Org: acme}},
		{name: "changed IBAN", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "GB33BUKB20201555555555" }),
			Org: acme, Previous: []PreviousAccount{{IBAN: "DE89370400440532013000", Documents: []int64{2, 1}}}},
			want: CodeSupplierIBANDiff, contains: "•••• 3000 (on #2, #1)"},
		{name: "a Cyrillic letter that looks Latin", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "GB33 \u0412UKB 2020 1555 5555 55" }), Org: acme},
			want: CodeIBANCharacters, contains: "U+0412 CYRILLIC CAPITAL LETTER VE"},
		{name: "a full-width letter", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "GB33\uFF22UKB20201555555555" }), Org: acme},
			want: CodeIBANCharacters, contains: "5th character"},
		{name: "a wrong check digit", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "DE89 3704 0044 0532 0130 01" }), Org: acme},
			want: CodeIBANChecksum, contains: "DE89 3704 0044 0532 0130 01"},
		{name: "two digits swapped", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "DE89370400440523013000" }), Org: acme},
			want: CodeIBANChecksum},
		{name: "a digit missing for its country", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "DE8937040044053201300" }), Org: acme},
			want: CodeIBANLength, contains: "22"},
		{name: "an account not written as an IBAN is not judged as one", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "IBAN32423940" }), Org: acme}},
		{name: "a valid IBAN of another country, lower case", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "gb29 nwbk 6016 1331 9268 19" }), Org: acme}},
		{name: "a Cyrillic look-alike of the account paid before", in: Input{Document: doc(func(d *einvoice.Document) { d.PayeeIBAN = "GB33\u0412UKB20201555555555" }),
			Org: acme, Previous: []PreviousAccount{{IBAN: "GB33BUKB20201555555555", Documents: []int64{2}}}},
			want: CodeIBANCharacters + "," + CodeSupplierIBANDiff},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tt.in.ReceivedAt = arrival
			r := Check(tt.in)
			if got := codes(r); got != tt.want {
				t.Fatalf("findings %q, want %q (%v)", got, tt.want, r.Findings)
			}
			if tt.contains != "" && !strings.Contains(r.Findings[0].Message, tt.contains) {
				t.Errorf("message %q does not say %q", r.Findings[0].Message, tt.contains)
			}
			if strings.Contains(tt.want, CodeSupplierIBANDiff) != (r.BankChange != nil) {
				t.Errorf("bank change %v", r.BankChange)
			}
		})
	}
}

func TestConfiguredAge(t *testing.T) {
	t.Parallel()
	d := einvoice.Document{IssueDate: "2026-05-01"}
	if got := codes(Check(Input{Document: d, ReceivedAt: arrival, Org: Org{MaxIssueAgeMonths: 6}})); got != CodeIssueDateOld {
		t.Errorf("six months: %q", got)
	}
	if got := codes(Check(Input{Document: d, ReceivedAt: arrival, Org: Org{MaxIssueAgeMonths: 18}})); got != "" {
		t.Errorf("eighteen months: %q", got)
	}
}

func TestMaskIBAN(t *testing.T) {
	t.Parallel()
	if got := MaskIBAN("de89 3704 0044 0532 0130 00"); got != "DE89 •••• 3000" {
		t.Errorf("%q", got)
	}
	if got := MaskIBAN("NO9386011117947"); strings.Contains(got, "8601") || got != "NO93 •••• 7947" {
		t.Errorf("masked IBAN %q shows more than its country, check digits and last four", got)
	}
}

// Two accounts that end alike are masked so that they still differ: by
// their check digits, else by as many trailing characters as it takes.
func TestMasksTellAccountsApart(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		ibans []string
		want  []string
	}{
		{"last four differ", []string{"DE89370400440532013000", "GB33BUKB20201555555555"},
			[]string{"DE89 •••• 3000", "GB33 •••• 5555"}},
		{"same last four, other check digits", []string{"DE89370400440532013000", "DE48500105170532013000"},
			[]string{"DE89 •••• 3000", "DE48 •••• 3000"}},
		{"same last four and check digits", []string{"DE89370400440532013000", "DE89370400440532013000X3000"},
			[]string{"DE89 •••• 13000", "DE89 •••• X3000"}},
		{"one ends the other", []string{"DE89370400440532013000", "DE89013000"},
			[]string{"DE89 •••• 013000", "DE89013000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := MaskIBANs(tt.ibans...)
			if strings.Join(got, " | ") != strings.Join(tt.want, " | ") {
				t.Fatalf("masks %q, want %q", got, tt.want)
			}
		})
	}
	c := Check(Input{Document: einvoice.Document{PayeeIBAN: "DE48 5001 0517 0532 0130 00"}, ReceivedAt: arrival,
		Previous: []PreviousAccount{{IBAN: "DE89370400440532013000", Documents: []int64{2}}}})
	if c.BankChange == nil {
		t.Fatal("no bank change")
	}
	current, previous := c.BankChange.Masks()
	if current == previous[0] {
		t.Fatalf("both accounts are masked as %q", current)
	}
	msg := c.Findings[len(c.Findings)-1].Message
	if !strings.Contains(msg, "DE48 •••• 3000") || !strings.Contains(msg, "DE89 •••• 3000 (on #2)") {
		t.Errorf("the explanation does not tell the accounts apart: %s", msg)
	}
}
