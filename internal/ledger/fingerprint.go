package ledger

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/money"
)

// facts are the immutable facts of an entry in canonical form: what the
// fingerprint covers and what a replay is compared on. A request and a
// stored entry (historical ones included) reduce to the same facts when
// they describe the same entry.
type facts struct {
	key          SourceKey
	date         string
	currency     string
	baseCurrency string
	description  string
	reversesID   int64
	lines        []factLine
}

type factLine struct {
	account    string
	debit      decimal.Decimal
	credit     decimal.Decimal
	baseDebit  decimal.Decimal
	baseCredit decimal.Decimal
	dimensions map[string]string
}

// requestFacts reduces a request to facts. For an entry in the base
// currency an omitted base amount is the amount itself.
func requestFacts(r Request, baseCurrency string) facts {
	f := facts{key: r.SourceKey, date: r.Date, currency: r.Currency, baseCurrency: baseCurrency,
		description: r.Description, reversesID: r.ReversesID}
	for _, l := range r.Lines {
		fl := factLine{account: strings.TrimSpace(l.Account), debit: l.Debit, credit: l.Credit, dimensions: l.Dimensions}
		fl.baseDebit, fl.baseCredit = l.Debit, l.Credit
		if l.BaseDebit != nil || l.BaseCredit != nil || r.Currency != baseCurrency {
			fl.baseDebit, fl.baseCredit = decimal.Zero, decimal.Zero
			if l.BaseDebit != nil {
				fl.baseDebit = *l.BaseDebit
			}
			if l.BaseCredit != nil {
				fl.baseCredit = *l.BaseCredit
			}
		}
		f.lines = append(f.lines, fl)
	}
	return f
}

// entryFacts reduces a stored entry to facts, the same way for entries with
// and without a stored fingerprint.
func entryFacts(e Entry) facts {
	f := facts{key: e.SourceKey, date: e.Date, currency: e.Currency, baseCurrency: e.BaseCurrency,
		description: e.Description, reversesID: e.ReversesID}
	for _, l := range e.Lines {
		f.lines = append(f.lines, factLine{account: l.Account, debit: l.Debit, credit: l.Credit,
			baseDebit: l.BaseDebit, baseCredit: l.BaseCredit, dimensions: l.Dimensions})
	}
	return f
}

// Fingerprint encoding, version 1. The SHA-256 of these UTF-8 lines, each
// ending in "\n":
//
//	greatbook.ledger.entry.v1
//	org=<org id in decimal>
//	source_type=<JSON string>
//	source_id=<JSON string>
//	entry_set=<JSON string>
//	date=<YYYY-MM-DD>
//	currency=<ISO 4217 code>
//	base_currency=<ISO 4217 code>
//	description=<JSON string>
//	reverses=<entry id in decimal, or 0>
//	lines=<number of lines>
//	line=<index> account=<JSON string> debit=<D> credit=<D> base_debit=<D> base_credit=<D> dimensions=<JSON object>
//
// (one "line=" line per line, in order). <D> is the canonical decimal text:
// no exponent, no trailing fractional zeros, "0" for zero — so "10.0" and
// "10.00" encode the same. The dimensions object has its keys sorted and no
// spaces. JSON strings are as Go's encoding/json writes them (with HTML
// escaping off). Line order is a fact: lines are numbered.
const fingerprintVersion = "greatbook.ledger.entry.v1"

func (f facts) encode() []byte {
	b := make([]byte, 0, 256+128*len(f.lines))
	w := func(k, v string) []byte {
		b = append(b, k...)
		b = append(b, '=')
		b = append(b, v...)
		return append(b, '\n')
	}
	b = append(b, fingerprintVersion+"\n"...)
	b = w("org", strconv.FormatInt(f.key.OrgID, 10))
	b = w("source_type", jsonString(f.key.SourceType))
	b = w("source_id", jsonString(f.key.SourceID))
	b = w("entry_set", jsonString(f.key.EntrySet))
	b = w("date", f.date)
	b = w("currency", f.currency)
	b = w("base_currency", f.baseCurrency)
	b = w("description", jsonString(f.description))
	b = w("reverses", strconv.FormatInt(f.reversesID, 10))
	b = w("lines", strconv.Itoa(len(f.lines)))
	for i, l := range f.lines {
		b = append(b, "line="...)
		b = strconv.AppendInt(b, int64(i), 10)
		for _, field := range [...]struct{ name, value string }{
			{" account=", jsonString(l.account)}, {" debit=", money.Canonical(l.debit)}, {" credit=", money.Canonical(l.credit)},
			{" base_debit=", money.Canonical(l.baseDebit)}, {" base_credit=", money.Canonical(l.baseCredit)},
			{" dimensions=", canonicalDimensions(l.dimensions)},
		} {
			b = append(b, field.name...)
			b = append(b, field.value...)
		}
		b = append(b, '\n')
	}
	return b
}

func (f facts) fingerprint() []byte {
	sum := sha256.Sum256(f.encode())
	return sum[:]
}

// jsonString is s as encoding/json writes it with HTML escaping off. Text
// of printable ASCII other than '"' and '\\' (every key, code and most
// descriptions) is written as it is, quoted, without an encoder.
func jsonString(s string) string {
	plain := true
	for i := 0; i < len(s) && plain; i++ {
		plain = s[i] >= 0x20 && s[i] < 0x7f && s[i] != '"' && s[i] != '\\'
	}
	if plain {
		return `"` + s + `"`
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

func canonicalDimensions(d map[string]string) string {
	if len(d) == 0 {
		return "{}"
	}
	keys := make([]string, 0, len(d))
	for k := range d {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var b strings.Builder
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(jsonString(k))
		b.WriteByte(':')
		b.WriteString(jsonString(d[k]))
	}
	b.WriteByte('}')
	return b.String()
}

// differences lists each fact on which requested differs from stored.
// Amounts are shown with the currency's minor units.
func differences(stored, requested facts) []Difference {
	var ds []Difference
	add := func(field, s, r string) {
		if s != r {
			ds = append(ds, Difference{Field: field, Stored: s, Requested: r})
		}
	}
	add("date", stored.date, requested.date)
	add("currency", stored.currency, requested.currency)
	add("description", stored.description, requested.description)
	add("reverses_id", strconv.FormatInt(stored.reversesID, 10), strconv.FormatInt(requested.reversesID, 10))
	add("lines.length", strconv.Itoa(len(stored.lines)), strconv.Itoa(len(requested.lines)))
	amount := func(d decimal.Decimal, cur string) string {
		if c, ok := money.Lookup(cur); ok {
			if scale(d) <= c.MinorUnits {
				return money.Format(d, c.MinorUnits)
			}
		}
		return money.Canonical(d)
	}
	sameAmount := func(a, b decimal.Decimal) bool { return a.Equal(b) }
	// In the base currency the base amounts only echo the amounts: name
	// them only when one side is in a foreign currency.
	foreign := stored.currency != stored.baseCurrency || requested.currency != requested.baseCurrency
	for i := 0; i < min(len(stored.lines), len(requested.lines)); i++ {
		s, r := stored.lines[i], requested.lines[i]
		p := fmt.Sprintf("lines[%d].", i)
		add(p+"account", s.account, r.account)
		for _, side := range []struct {
			name     string
			s, r     decimal.Decimal
			currency string
		}{
			{"debit", s.debit, r.debit, stored.currency}, {"credit", s.credit, r.credit, stored.currency},
			{"base_debit", s.baseDebit, r.baseDebit, stored.baseCurrency}, {"base_credit", s.baseCredit, r.baseCredit, stored.baseCurrency},
		} {
			if !foreign && strings.HasPrefix(side.name, "base_") {
				continue
			}
			if !sameAmount(side.s, side.r) {
				ds = append(ds, Difference{Field: p + side.name, Stored: amount(side.s, side.currency), Requested: amount(side.r, side.currency)})
			}
		}
		keys := map[string]bool{}
		for k := range s.dimensions {
			keys[k] = true
		}
		for k := range r.dimensions {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		slices.Sort(sorted)
		for _, k := range sorted {
			sv, sok := s.dimensions[k]
			rv, rok := r.dimensions[k]
			if sv != rv || sok != rok {
				ds = append(ds, Difference{Field: p + "dimensions." + k, Stored: sv, Requested: rv})
			}
		}
	}
	return ds
}
