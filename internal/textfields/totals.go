package textfields

import (
	"sort"

	"greatbook/internal/money"
)

// addTaxSums adds, for tax amounts read on consecutive lines (one per VAT
// rate, "MwSt. 19 %" and "MwSt. 7 %" with no line of their total), their
// sum as a candidate for the tax; the choice of the totals takes it when
// net + tax = payable says so.
func (r *reader) addTaxSums() {
	cs := r.cands[FieldTax]
	var run []candidate
	flush := func() {
		if len(run) < 2 {
			return
		}
		sum := run[0]
		for _, c := range run[1:] {
			sum.amount = sum.amount.Add(c.amount)
			sum.Box = union(sum.Box, c.Box)
			sum.Confidence = min(sum.Confidence, c.Confidence)
			sum.Label += " + " + c.Label
		}
		sum.Value = money.Canonical(sum.amount)
		r.cands[FieldTax] = append(r.cands[FieldTax], sum)
	}
	for _, c := range cs {
		if n := len(run); n > 0 {
			prev := run[n-1]
			if c.line == nil || prev.line == nil || c.line.page != prev.line.page || c.line.index != prev.line.index+1 ||
				c.line.box.Y0-prev.line.box.Y1 > 2*prev.line.height() {
				flush()
				run = nil
			}
		}
		if c.line != nil && !c.anchored {
			run = append(run, c)
		}
	}
	flush()
}

// chooseTotals picks net, tax and payable together: the most confident
// combination, one where net + tax = payable winning over any other.
func (r *reader) chooseTotals(chosen map[string]candidate) {
	top := func(field string) []*candidate {
		cs := append([]candidate{}, r.cands[field]...)
		if field == FieldPayable {
			for _, g := range r.cands[kindGross] {
				g.Confidence *= 0.95
				cs = append(cs, g)
			}
		}
		sort.SliceStable(cs, func(i, j int) bool { return better(cs[i], cs[j], true) })
		out := []*candidate{nil}
		for i := range cs {
			if i >= 6 {
				break
			}
			out = append(out, &cs[i])
		}
		return out
	}
	nets, taxes, payables := top(FieldNet), top(FieldTax), top(FieldPayable)
	score := func(c *candidate) float64 {
		if c == nil {
			return 0
		}
		if c.anchored {
			return c.Confidence + 1
		}
		return c.Confidence
	}
	var bestN, bestT, bestP *candidate
	bestScore := -1.0
	for _, n := range nets {
		for _, t := range taxes {
			for _, p := range payables {
				s := score(n) + score(t) + score(p)
				if n != nil && t != nil && p != nil && n.amount.Add(t.amount).Equal(p.amount) && !p.amount.IsZero() {
					s += 1.5
				}
				if s > bestScore {
					bestScore, bestN, bestT, bestP = s, n, t, p
				}
			}
		}
	}
	for i, c := range []*candidate{bestN, bestT, bestP} {
		if c != nil {
			chosen[[]string{FieldNet, FieldTax, FieldPayable}[i]] = *c
		}
	}
	if g, ok := r.best(kindGross); ok {
		chosen[kindGross] = g
	}
}
