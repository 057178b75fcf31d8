package bankstatement_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"greatbook/internal/apperr"
	"greatbook/internal/bankstatement"
	st "greatbook/internal/bankstatement/statementtest"
)

const ourIBAN = "NL91ABNA0417164300"

// validate checks a statement against the ISO 20022 schema with Debian's
// xmllint (the XSDs are those moov-io/iso20022 ships).
func validate(t *testing.T, schema string, doc []byte) {
	t.Helper()
	xmllint, err := exec.LookPath("xmllint")
	if err != nil {
		t.Skip("xmllint is not installed (make test-deps installs libxml2-utils as root)")
	}
	path := filepath.Join(t.TempDir(), "statement.xml")
	if err := os.WriteFile(path, doc, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(xmllint, "--noout", "--schema", filepath.Join("testdata", schema), path).CombinedOutput(); err != nil {
		t.Fatalf("the statement does not validate: %v\n%s\n%s", err, out, doc)
	}
}

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// line is an entry as the tests compare it.
func line(e bankstatement.Entry) string {
	s := fmt.Sprintf("%s %s %s %s %s ref=%s e2e=%s", e.Direction, e.Amount.StringFixed(2), e.Currency, e.Status, e.BookingDate,
		e.AcctSvcrRef, e.EndToEndID)
	if e.ReturnReason != "" {
		s += " return=" + e.ReturnReason
	}
	if e.Unsplit {
		s += " unsplit"
	}
	return s
}

func lines(s bankstatement.Statement) []string {
	var out []string
	for _, e := range s.Entries {
		out = append(out, line(e))
	}
	return out
}

func TestParseReadsRealStatements(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		file, schema, kind, id string
		want                   []string
	}{
		{file: "postfinance-camt053.xml", schema: "camt.053.001.08.xsd", kind: bankstatement.Camt053, id: "20201124375204229003973",
			want: []string{
				"credit 4.50 CHF BOOK 2020-11-24 ref=0758103031480900 e2e=",
				"debit 77.70 CHF BOOK 2020-11-24 ref=0758103031480977 e2e=",
				"credit 1500.00 CHF BOOK 2020-11-24 ref=07582000303F0C7U e2e=",
				"credit 1537.00 CHF BOOK 2020-11-24 ref=07582000303KBMSU e2e=",
				"credit 1692.22 CHF BOOK 2020-11-24 ref=07582000303KBMSU e2e=",
			}},
		{file: "postfinance-camt054-return.xml", schema: "camt.054.001.08.xsd", kind: bankstatement.Camt054, id: "20201124375204228763930",
			want: []string{"credit 500.00 CHF BOOK 2020-11-24 ref=075820002ZZTJR1K e2e=EndToEndId-001-03-04 return=AC01"}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			b := read(t, tc.file)
			validate(t, tc.schema, b)
			s, err := bankstatement.Parse(b)
			if err != nil {
				t.Fatal(err)
			}
			if s.MessageType != tc.kind || s.ID != tc.id {
				t.Fatalf("statement %s %q", s.MessageType, s.ID)
			}
			if got := lines(s); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			if !s.Entries[0].Booked() || s.Entries[len(s.Entries)-1].IsReturn() != (tc.kind == bankstatement.Camt054) {
				t.Fatalf("booked/return: %+v", s.Entries)
			}
		})
	}
}

func TestParseSplitsBatchEntriesAndKeepsWhatItCannotSplit(t *testing.T) {
	t.Parallel()
	b := st.Camt053("STMT-1", ourIBAN,
		st.Paid("GB-1-17", "336.90"),
		st.Entry{Amount: "30.00", Reference: "BATCH", Batch: []st.Transaction{st.Tx("GB-1-18", "10.00"), st.Tx("GB-1-19", "20.00")}},
		st.Entry{Amount: "31.00", Reference: "BAD-SUM", Batch: []st.Transaction{st.Tx("GB-1-20", "10.00"), st.Tx("GB-1-21", "20.00")}},
		st.Entry{Amount: "30.00", Reference: "NO-AMOUNTS", Batch: []st.Transaction{st.Tx("GB-1-22", ""), st.Tx("GB-1-23", "")}},
		st.Entry{Amount: "5.00", Status: "PDNG", Date: "2026-12-12", EndToEndID: "GB-1-24"},
		st.Returned("GB-1-17", "336.90", "AC04"),
		st.Entry{Amount: "99.99", Credit: true, Currency: "USD", Reference: "FX"},
	)
	validate(t, "camt.053.001.08.xsd", b)
	s, err := bankstatement.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"debit 336.90 EUR BOOK 2026-12-11 ref=REF-GB-1-17 e2e=GB-1-17",
		"debit 10.00 EUR BOOK 2026-12-11 ref=BATCH e2e=GB-1-18",
		"debit 20.00 EUR BOOK 2026-12-11 ref=BATCH e2e=GB-1-19",
		"debit 31.00 EUR BOOK 2026-12-11 ref=BAD-SUM e2e= unsplit",
		"debit 30.00 EUR BOOK 2026-12-11 ref=NO-AMOUNTS e2e= unsplit",
		"debit 5.00 EUR PDNG 2026-12-12 ref= e2e=GB-1-24",
		"credit 336.90 EUR BOOK 2026-12-11 ref=RTR-GB-1-17 e2e=GB-1-17 return=AC04",
		"credit 99.99 USD BOOK 2026-12-11 ref=FX e2e=",
	}
	if got := lines(s); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s.Entries[5].Booked() || !s.Entries[6].IsReturn() || s.Entries[0].IsReturn() {
		t.Fatal("booked or return misread")
	}
}

func TestParseRefusesWhatItCannotRead(t *testing.T) {
	t.Parallel()
	good := string(st.Camt053("S", ourIBAN, st.Paid("GB-1-1", "10.00")))
	entry := func(old, new string) string { return strings.Replace(good, old, new, 1) }
	for _, tc := range []struct{ name, doc, want string }{
		{"empty", "", "no document element"},
		{"not XML", "hello", "no document element"},
		{"a NUL byte", entry("<Id>S</Id>", "<Id>S\x00</Id>"), "NUL"},
		{"invalid UTF-8", entry("<Id>S</Id>", "<Id>S\xff</Id>"), "UTF-8"},
		{"a DTD", strings.Replace(good, "<Document", `<!DOCTYPE Document [<!ENTITY x "y">]><Document`, 1), "DTD"},
		{"an undeclared entity", entry("<Id>S</Id>", "<Id>&x;</Id>"), "not well-formed"},
		{"another encoding", strings.Replace(good, `encoding="UTF-8"`, `encoding="ISO-8859-1"`, 1), "not well-formed"},
		{"another message", strings.ReplaceAll(good, "camt.053.001.08", "camt.053.001.04"), "is not camt.053.001.08"},
		{"a pain.001", strings.ReplaceAll(good, "camt.053.001.08", "pain.001.001.09"), "is not camt.053.001.08"},
		{"another root", strings.ReplaceAll(good, "Document", "Doc"), "not Document"},
		{"two roots", good + good[strings.Index(good, "<Document"):], "more than one document"},
		{"no statement", strings.Replace(entry("<Stmt>", "<Stmx>"), "</Stmt>", "</Stmx>", 1), "no statement"},
		{"a bad amount", entry(">10.00<", ">ten<"), "amount"},
		{"a negative amount", entry(">10.00<", ">-10.00<"), "amount"},
		{"an exponent", entry(">10.00<", ">1e1<"), "amount"},
		{"a zero amount", entry(">10.00<", ">0.00<"), "amount"},
		{"a currency", entry(`<Amt Ccy="EUR">10.00`, `<Amt Ccy="eur">10.00`), "currency"},
		{"no currency", entry(`<Amt Ccy="EUR">10.00`, `<Amt>10.00`), "currency"},
		{"a side", entry("<CdtDbtInd>DBIT", "<CdtDbtInd>BOTH"), "CdtDbtInd"},
		{"no status", entry("<Sts><Cd>BOOK</Cd></Sts>", ""), "no status"},
		{"a date", entry("<Dt>2026-12-11</Dt></BookgDt>", "<Dt>2026-13-45</Dt></BookgDt>"), "booking date"},
		{"booked without a date", entry("<BookgDt><Dt>2026-12-11</Dt></BookgDt>", ""), "without a booking date"},
		{"a long EndToEndId", entry("GB-1-1</EndToEndId>", strings.Repeat("x", 36)+"</EndToEndId>"), "longer than 35"},
		{"a long text", entry("<Id>S</Id>", "<Id>"+strings.Repeat("x", 1001)+"</Id>"), "more than 1000 bytes"},
		{"too deep", entry("<Id>S</Id>", "<Id>S</Id>"+strings.Repeat("<X>", 40)+strings.Repeat("</X>", 40)), "deeper than"},
		{"unclosed", good[:len(good)-20], "not well-formed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := bankstatement.Parse([]byte(tc.doc))
			if apperr.CodeOf(err) != apperr.Invalid || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want invalid with %q", err, tc.want)
			}
		})
	}
	if _, err := bankstatement.Parse(append([]byte(good), bytes.Repeat([]byte(" "), bankstatement.MaxBytes)...)); apperr.CodeOf(err) != apperr.Invalid {
		t.Fatalf("over MaxBytes: %v", err)
	}
}

// TestParseStaysLinear: a statement twice as long costs at most about twice
// the allocations, whatever its shape (many entries, many transactions in
// one entry, many unknown elements).
func TestParseStaysLinear(t *testing.T) {
	shapes := map[string]func(n int) []byte{
		"entries": func(n int) []byte {
			var es []st.Entry
			for i := range n {
				es = append(es, st.Paid(fmt.Sprintf("GB-1-%d", i), "10.00"))
			}
			return st.Camt053("S", ourIBAN, es...)
		},
		"transactions": func(n int) []byte {
			var txs []st.Transaction
			for i := range n {
				txs = append(txs, st.Transaction{EndToEndID: fmt.Sprintf("GB-1-%d", i), Amount: "1.00"})
			}
			return st.Camt053("S", ourIBAN, st.Entry{Amount: fmt.Sprintf("%d.00", n), Batch: txs})
		},
		"unknown elements": func(n int) []byte {
			good := string(st.Camt053("S", ourIBAN, st.Paid("GB-1-1", "10.00")))
			return []byte(strings.Replace(good, "<NtryDtls>", "<NtryDtls>"+strings.Repeat("<X><Y>z</Y></X>", n), 1))
		},
	}
	for name, build := range shapes {
		t.Run(name, func(t *testing.T) {
			small, large := build(2000), build(4000)
			allocs := func(b []byte) float64 {
				return testing.AllocsPerRun(3, func() {
					if _, err := bankstatement.Parse(b); err != nil {
						t.Fatal(err)
					}
				})
			}
			a, b := allocs(small), allocs(large)
			if b > 2.3*a {
				t.Fatalf("%.0f allocations for %d bytes, %.0f for %d bytes: not linear", a, len(small), b, len(large))
			}
		})
	}
}

// TestParseNeverPanics feeds the parser statements built of random entries
// and then mangled: it answers a statement or an invalid error, never
// panics, and every entry it returns is one reconciliation can read.
func TestParseNeverPanics(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		var es []st.Entry
		for range rapid.IntRange(0, 6).Draw(t, "entries") {
			es = append(es, st.Entry{
				Amount:       rapid.SampledFrom([]string{"10.00", "0.01", "999999999.99", "1", "0", "-1", "1e3", ""}).Draw(t, "amount"),
				Currency:     rapid.SampledFrom([]string{"EUR", "USD", "eu", ""}).Draw(t, "currency"),
				Credit:       rapid.Bool().Draw(t, "credit"),
				Status:       rapid.SampledFrom([]string{"BOOK", "PDNG", "INFO"}).Draw(t, "status"),
				Date:         rapid.SampledFrom([]string{"2026-12-11", "2026-02-30", "x"}).Draw(t, "date"),
				EndToEndID:   rapid.StringN(0, 40, -1).Draw(t, "e2e"),
				ReturnReason: rapid.SampledFrom([]string{"", "AC01"}).Draw(t, "reason"),
			})
		}
		doc := st.Camt053(rapid.StringN(0, 10, -1).Draw(t, "id"), ourIBAN, es...)
		if rapid.Bool().Draw(t, "mangle") && len(doc) > 0 {
			at := rapid.IntRange(0, len(doc)-1).Draw(t, "at")
			cut := rapid.IntRange(0, min(20, len(doc)-at)).Draw(t, "cut")
			doc = append(doc[:at:at], append([]byte(rapid.String().Draw(t, "insert")), doc[at+cut:]...)...)
		}
		s, err := bankstatement.Parse(doc)
		if err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("error %v is not invalid", err)
			}
			return
		}
		for _, e := range s.Entries {
			if !e.Amount.IsPositive() || len(e.Currency) != 3 || (e.Direction != bankstatement.Debit && e.Direction != bankstatement.Credit) ||
				e.Status == "" || (e.Booked() && e.BookingDate == "") || len(e.EndToEndID) > 35 {
				t.Fatalf("an entry reconciliation cannot read: %+v", e)
			}
		}
	})
}

func FuzzParse(f *testing.F) {
	for _, name := range []string{"postfinance-camt053.xml", "postfinance-camt054-return.xml"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add(st.Camt053("S", ourIBAN, st.Paid("GB-1-1", "10.00"), st.Returned("GB-1-1", "10.00", "AC04"),
		st.Entry{Amount: "30.00", Batch: []st.Transaction{st.Tx("GB-1-2", "10.00"), st.Tx("GB-1-3", "20.00")}}))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := bankstatement.Parse(data)
		if err != nil {
			if apperr.CodeOf(err) != apperr.Invalid {
				t.Fatalf("error %v is not invalid", err)
			}
			return
		}
		for _, e := range s.Entries {
			if !e.Amount.IsPositive() || len(e.Currency) != 3 || e.Status == "" || len(e.EndToEndID) > 35 {
				t.Fatalf("an entry reconciliation cannot read: %+v", e)
			}
		}
	})
}
