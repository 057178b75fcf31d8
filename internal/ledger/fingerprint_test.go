package ledger

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/shopspring/decimal"
	"pgregory.net/rapid"
)

// genAmount draws a positive amount in cents.
func genAmount(t *rapid.T, label string) decimal.Decimal {
	return decimal.New(rapid.Int64Range(1, 1_000_000_000).Draw(t, label), -2)
}

func genDimensions(t *rapid.T, label string) map[string]string {
	keys := rapid.SliceOfDistinct(rapid.StringMatching(`[a-z][a-z0-9_]{0,8}`), rapid.ID[string]).Draw(t, label+".keys")
	m := map[string]string{}
	for _, k := range keys {
		m[k] = rapid.StringMatching(`[A-Za-z0-9 ]{1,8}`).Draw(t, label+"."+k)
	}
	return m
}

func genRequest(t *rapid.T) (Request, string) {
	base := "EUR"
	cur := rapid.SampledFrom([]string{"EUR", "USD", "SEK"}).Draw(t, "currency")
	r := Request{
		SourceKey: SourceKey{OrgID: rapid.Int64Range(1, 1000).Draw(t, "org"),
			SourceType: rapid.StringMatching(`[a-z][a-z0-9_]{0,10}`).Draw(t, "source_type"),
			SourceID:   rapid.StringMatching(`[A-Za-z0-9-]{1,12}`).Draw(t, "source_id"),
			EntrySet:   rapid.StringMatching(`[a-z/]{1,10}`).Draw(t, "entry_set")},
		Date:        fmt.Sprintf("2026-%02d-%02d", rapid.IntRange(1, 12).Draw(t, "month"), rapid.IntRange(1, 28).Draw(t, "day")),
		Currency:    cur,
		Description: rapid.String().Draw(t, "description"),
		ReversesID:  rapid.Int64Range(0, 5).Draw(t, "reverses"),
	}
	n := rapid.IntRange(2, 6).Draw(t, "lines")
	for i := range n {
		l := Line{Account: rapid.StringMatching(`[0-9]{4}`).Draw(t, fmt.Sprintf("account%d", i)),
			Dimensions: genDimensions(t, fmt.Sprintf("dims%d", i))}
		amount := genAmount(t, fmt.Sprintf("amount%d", i))
		if rapid.Bool().Draw(t, fmt.Sprintf("debit%d", i)) {
			l.Debit = amount
		} else {
			l.Credit = amount
		}
		if cur != base {
			b := genAmount(t, fmt.Sprintf("base%d", i))
			if l.Debit.IsPositive() {
				l.BaseDebit = &b
			} else {
				l.BaseCredit = &b
			}
		}
		r.Lines = append(r.Lines, l)
	}
	return r, base
}

// rewrite writes every amount with extra trailing zeros and rebuilds every
// dimension map through JSON with its keys in reverse order.
func rewrite(t *rapid.T, r Request) Request {
	out := r
	out.Lines = nil
	for i, l := range r.Lines {
		extra := int32(rapid.IntRange(0, 4).Draw(t, fmt.Sprintf("zeros%d", i)))
		widen := func(d decimal.Decimal) decimal.Decimal {
			return decimal.New(d.Coefficient().Int64()*pow10(extra), d.Exponent()-extra)
		}
		nl := Line{Account: l.Account, Debit: widen(l.Debit), Credit: widen(l.Credit)}
		if l.BaseDebit != nil {
			b := widen(*l.BaseDebit)
			nl.BaseDebit = &b
		}
		if l.BaseCredit != nil {
			b := widen(*l.BaseCredit)
			nl.BaseCredit = &b
		}
		keys := make([]string, 0, len(l.Dimensions))
		for k := range l.Dimensions {
			keys = append(keys, k)
		}
		var buf bytes.Buffer
		buf.WriteByte('{')
		for j := len(keys) - 1; j >= 0; j-- {
			k, _ := json.Marshal(keys[j])
			v, _ := json.Marshal(l.Dimensions[keys[j]])
			buf.Write(k)
			buf.WriteByte(':')
			buf.Write(v)
			if j > 0 {
				buf.WriteByte(',')
			}
		}
		buf.WriteByte('}')
		_ = json.Unmarshal(buf.Bytes(), &nl.Dimensions)
		out.Lines = append(out.Lines, nl)
	}
	return out
}

func pow10(n int32) int64 {
	p := int64(1)
	for range n {
		p *= 10
	}
	return p
}

func cloneRequest(r Request) Request {
	out := r
	out.Lines = nil
	for _, l := range r.Lines {
		nl := l
		nl.Dimensions = map[string]string{}
		for k, v := range l.Dimensions {
			nl.Dimensions[k] = v
		}
		out.Lines = append(out.Lines, nl)
	}
	return out
}

var oneCent = decimal.New(1, -2)

// mutations each change exactly one immutable fact.
var mutations = map[string]func(t *rapid.T, r *Request){
	"org":         func(t *rapid.T, r *Request) { r.OrgID++ },
	"source_type": func(t *rapid.T, r *Request) { r.SourceType += "x" },
	"source_id":   func(t *rapid.T, r *Request) { r.SourceID += "x" },
	"entry_set":   func(t *rapid.T, r *Request) { r.EntrySet += "x" },
	"date":        func(t *rapid.T, r *Request) { r.Date = r.Date[:8] + "29" },
	"currency": func(t *rapid.T, r *Request) {
		if r.Currency == "USD" {
			r.Currency = "SEK"
		} else {
			r.Currency = "USD"
		}
	},
	"description": func(t *rapid.T, r *Request) { r.Description += "." },
	"reverses":    func(t *rapid.T, r *Request) { r.ReversesID += 7 },
	"account": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		r.Lines[i].Account += "1"
	},
	"amount": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		if r.Lines[i].Debit.IsPositive() {
			r.Lines[i].Debit = r.Lines[i].Debit.Add(oneCent)
		} else {
			r.Lines[i].Credit = r.Lines[i].Credit.Add(oneCent)
		}
	},
	"side": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		l := &r.Lines[i]
		l.Debit, l.Credit = l.Credit, l.Debit
		l.BaseDebit, l.BaseCredit = l.BaseCredit, l.BaseDebit
	},
	"base amount": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		l := &r.Lines[i]
		b := l.Debit.Add(oneCent)
		if l.BaseDebit != nil {
			b = l.BaseDebit.Add(oneCent)
		}
		if l.Debit.IsPositive() {
			l.BaseDebit = &b
		} else {
			b = l.Credit.Add(oneCent)
			if l.BaseCredit != nil {
				b = l.BaseCredit.Add(oneCent)
			}
			l.BaseCredit = &b
		}
	},
	"dimension value": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		for k := range r.Lines[i].Dimensions {
			r.Lines[i].Dimensions[k] += "!"
			return
		}
		r.Lines[i].Dimensions["project"] = "P"
	},
	"dimension added": func(t *rapid.T, r *Request) {
		i := rapid.IntRange(0, len(r.Lines)-1).Draw(t, "line")
		r.Lines[i].Dimensions["zz_new_dimension"] = "x"
	},
	"line removed": func(t *rapid.T, r *Request) { r.Lines = r.Lines[:len(r.Lines)-1] },
	"line added": func(t *rapid.T, r *Request) {
		r.Lines = append(r.Lines, Line{Account: "9999", Debit: oneCent, BaseDebit: &oneCent})
	},
}

func TestFingerprintProperties(t *testing.T) {
	names := make([]string, 0, len(mutations))
	for k := range mutations {
		names = append(names, k)
	}
	rapid.Check(t, func(t *rapid.T) {
		r, base := genRequest(t)
		fp := requestFacts(r, base).fingerprint()
		if again := requestFacts(rewrite(t, r), base).fingerprint(); !bytes.Equal(fp, again) {
			t.Fatalf("fingerprint changed with formatting or map order:\n%s\n%s",
				requestFacts(r, base).encode(), requestFacts(rewrite(t, r), base).encode())
		}
		name := rapid.SampledFrom(names).Draw(t, "mutation")
		m := cloneRequest(r)
		mutations[name](t, &m)
		if bytes.Equal(fp, requestFacts(m, base).fingerprint()) {
			t.Fatalf("fingerprint unchanged by mutation %q:\n%s", name, requestFacts(m, base).encode())
		}
	})
}

// A stored entry reduces to the facts of the request that created it: the
// same fingerprint, also for a base-currency entry whose base amounts were
// implied.
func TestStoredEntryReducesToTheRequestFacts(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r, base := genRequest(t)
		f := requestFacts(r, base)
		e := Entry{SourceKey: r.SourceKey, Date: r.Date, Currency: r.Currency, BaseCurrency: base,
			Description: r.Description, ReversesID: r.ReversesID}
		for _, l := range f.lines {
			// As read back from numeric(20,4).
			e.Lines = append(e.Lines, EntryLine{Account: l.account, Debit: l.debit.Round(4), Credit: l.credit.Round(4),
				BaseDebit: l.baseDebit.Round(4), BaseCredit: l.baseCredit.Round(4), Dimensions: l.dimensions})
		}
		if !bytes.Equal(entryFacts(e).fingerprint(), f.fingerprint()) {
			t.Fatalf("stored and requested facts differ:\n%s\n%s", entryFacts(e).encode(), f.encode())
		}
		if ds := differences(entryFacts(e), f); len(ds) != 0 {
			t.Fatalf("differences between equal facts: %v", ds)
		}
	})
}
