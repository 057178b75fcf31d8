package ledger

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"

	"greatbook/internal/money"
)

// encodeV1Reference is the fingerprint encoding as first written (each
// string through encoding/json, each line through fmt): the stored
// fingerprints were made by it, so a faster encode must give the same
// bytes for every request.
func encodeV1Reference(f facts) []byte {
	jsonString := func(s string) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		return strings.TrimSuffix(b.String(), "\n")
	}
	var b strings.Builder
	w := func(k, v string) { b.WriteString(k); b.WriteByte('='); b.WriteString(v); b.WriteByte('\n') }
	b.WriteString(fingerprintVersion + "\n")
	w("org", fmt.Sprint(f.key.OrgID))
	w("source_type", jsonString(f.key.SourceType))
	w("source_id", jsonString(f.key.SourceID))
	w("entry_set", jsonString(f.key.EntrySet))
	w("date", f.date)
	w("currency", f.currency)
	w("base_currency", f.baseCurrency)
	w("description", jsonString(f.description))
	w("reverses", fmt.Sprint(f.reversesID))
	w("lines", fmt.Sprint(len(f.lines)))
	for i, l := range f.lines {
		dims := "{}"
		if len(l.dimensions) > 0 {
			var d strings.Builder
			d.WriteByte('{')
			for j, k := range slices.Sorted(maps.Keys(l.dimensions)) {
				if j > 0 {
					d.WriteByte(',')
				}
				d.WriteString(jsonString(k) + ":" + jsonString(l.dimensions[k]))
			}
			d.WriteByte('}')
			dims = d.String()
		}
		fmt.Fprintf(&b, "line=%d account=%s debit=%s credit=%s base_debit=%s base_credit=%s dimensions=%s\n",
			i, jsonString(l.account), money.Canonical(l.debit), money.Canonical(l.credit),
			money.Canonical(l.baseDebit), money.Canonical(l.baseCredit), dims)
	}
	return []byte(b.String())
}

// TestFingerprintEncodingIsUnchanged: the encoding gives the bytes the
// first encoder gave, for any text (quotes, backslashes, control
// characters, U+2028, invalid UTF-8, HTML characters) in every field.
func TestFingerprintEncodingIsUnchanged(t *testing.T) {
	text := rapid.OneOf(rapid.String(), rapid.StringMatching(`[ -~]{0,12}`),
		rapid.SampledFrom([]string{"", `a"b`, `c\d`, "e\u2028f", "g\u2029", "h\x00i", "\xff\xfe", "<&>", "tab\there", "ü€"}),
		rapid.Map(rapid.SliceOf(rapid.Byte()), func(b []byte) string { return string(b) }))
	rapid.Check(t, func(t *rapid.T) {
		f := facts{key: SourceKey{OrgID: rapid.Int64().Draw(t, "org"), SourceType: text.Draw(t, "type"), SourceID: text.Draw(t, "id"),
			EntrySet: text.Draw(t, "set")}, date: "2026-01-02", currency: "EUR", baseCurrency: "SEK",
			description: text.Draw(t, "description"), reversesID: rapid.Int64().Draw(t, "reverses")}
		for i := range rapid.IntRange(0, 4).Draw(t, "lines") {
			dims := map[string]string{}
			for range rapid.IntRange(0, 3).Draw(t, fmt.Sprintf("dims%d", i)) {
				dims[text.Draw(t, "key")] = text.Draw(t, "value")
			}
			f.lines = append(f.lines, factLine{account: text.Draw(t, "account"), debit: decimal.New(rapid.Int64().Draw(t, "debit"), -2),
				baseDebit: decimal.New(rapid.Int64().Draw(t, "base"), -3), dimensions: dims})
		}
		if got, want := string(f.encode()), string(encodeV1Reference(f)); got != want {
			t.Fatalf("encoding changed:\n got %q\nwant %q", got, want)
		}
	})
}

// benchRequest is the ledger bench's new post: a three-line entry in the
// org's base currency.
func benchRequest() Request {
	return Request{SourceKey: SourceKey{OrgID: 7, SourceType: "bench", SourceID: "1000000000001", EntrySet: "bill"},
		Date: "2026-11-20", Currency: "EUR", Description: "bench", Actor: "bench",
		Lines: []Line{
			{Account: "6000", Debit: decimal.RequireFromString("100.00")},
			{Account: "1400", Debit: decimal.RequireFromString("25.00")},
			{Account: "2000", Credit: decimal.RequireFromString("125.00")},
		}}
}

// TestAPostsOwnWorkCostsFewAllocations: the Go side of a new post of three
// lines allocates a bounded handful for its fingerprint and its checks,
// not an encoding/json encoder for every string, a fmt printer for every
// line and a field name for every check that passes (a CPU profile of new
// posts at 4 clients found the fingerprint and validateShape a quarter of
// the post's own work, beside pgx's exchange with the server).
func TestAPostsOwnWorkCostsFewAllocations(t *testing.T) {
	req := benchRequest()
	f := requestFacts(req, "EUR")
	for _, c := range []struct {
		name string
		most float64
		run  func()
	}{
		{"fingerprint", 25, func() { _ = f.fingerprint() }},      // was 62
		{"validateShape", 32, func() { _ = validateShape(req) }}, // was 52
	} {
		if n := testing.AllocsPerRun(50, c.run); n > c.most {
			t.Errorf("%s of a three-line entry takes %.0f allocations, want at most %.0f", c.name, n, c.most)
		}
	}
}
