package en16931

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"
)

// Violation is one broken business rule: its official id and flag, the business term it concerns, where in the
// model, and the official text with the numbers involved where the rule is arithmetic.
type Violation struct {
	Rule         string // official id, e.g. "BR-CO-16"
	Flag         string // "fatal" or "warning", as the official schematron flags the rule
	BusinessTerm string // e.g. "BT-115"
	Field        string // where in the invoice, e.g. "totals", "line 3", "VAT breakdown S 19"
	Message      string
}

// Fatal reports whether the violation makes the invoice invalid.
func (v Violation) Fatal() bool { return v.Flag == "fatal" }

// Rule is one business rule of the rule set: id, the business term it concerns, the context it is judged in
// (in words, for the README) and the check that reports each place where it does not hold.
type Rule struct {
	ID           string
	BusinessTerm string
	Context      string
	check        func(inv *Invoice, fail func(field, detail string))
	xrechnung    bool // a BR-DE rule: judged only for an XRechnung document (BT-24), always a warning
}

// Flag is the rule's flag in this product: the official one of EN 16931, "warning" for XRechnung's rules.
func (r Rule) Flag() string {
	if r.xrechnung {
		return "warning"
	}
	return officialRules[r.ID].Flag
}

// OfficialFlag is the flag the rule's publisher gives it (CEN, or KoSIT for XRechnung's BR-DE rules).
func (r Rule) OfficialFlag() string {
	if r.xrechnung {
		return xrechnungRules[r.ID].Official
	}
	return officialRules[r.ID].Flag
}

// XRechnung reports whether the rule is one of XRechnung's (BR-DE-*), judged only when BT-24 says XRechnung.
func (r Rule) XRechnung() bool { return r.xrechnung }

// Message is the rule's official text.
func (r Rule) Message() string {
	if r.xrechnung {
		return xrechnungRules[r.ID].Message
	}
	return officialRules[r.ID].Message
}

// Rules lists the rules this package implements, in a stable order.
func Rules() []Rule {
	out := append([]Rule(nil), ruleSet...)
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Check judges the invoice by every implemented rule, each where its context exists.
func Check(inv *Invoice) []Violation {
	if inv == nil {
		return nil
	}
	var out []Violation
	xrechnung := inv.IsXRechnung()
	for _, r := range ruleSet {
		if r.xrechnung && !xrechnung {
			continue
		}
		r.check(inv, func(field, detail string) {
			msg := r.Message()
			if detail != "" {
				msg += " (" + detail + ")"
			}
			out = append(out, Violation{Rule: r.ID, Flag: r.Flag(), BusinessTerm: r.BusinessTerm, Field: field, Message: msg})
		})
	}
	return out
}

// Validate reads a document of the given syntax ("ubl" or "cii") and judges it by the rules.
func Validate(format string, data []byte) ([]Violation, error) {
	var inv *Invoice
	var err error
	switch format {
	case "ubl":
		inv, err = FromUBL(data)
	case "cii":
		inv, err = FromCII(data)
	default:
		return nil, fmt.Errorf("en16931: unknown syntax %q", format)
	}
	if err != nil {
		return nil, err
	}
	return Check(inv), nil
}

var hundred = decimal.NewFromInt(100)

// xround is XPath's round: to the nearest integer, halves towards positive infinity.
func xround(d decimal.Decimal) decimal.Decimal { return d.Add(decimal.New(5, -1)).Floor() }

// round2 is the schematron's round(x * 10 * 10) div 100.
func round2(d decimal.Decimal) decimal.Decimal { return xround(d.Mul(hundred)).Div(hundred) }

func sumOf(amounts []Amount) (decimal.Decimal, bool) {
	total := decimal.Zero
	for _, a := range amounts {
		d, ok := a.Dec()
		if !ok {
			return total, false
		}
		total = total.Add(d)
	}
	return total, true
}

// decimalsAtMost2 is string-length(substring-after(x, '.')) <= 2 over the text as written.
func decimalsAtMost2(a Amount) bool {
	_, after, found := strings.Cut(a.Value, ".")
	return !found || len([]rune(after)) <= 2
}

func parseDate(t Text) (time.Time, bool) {
	d, err := time.Parse("2006-01-02", strings.TrimSpace(t.Value))
	return d, err == nil
}

func f(d decimal.Decimal) string { return d.StringFixed(2) }

// v shows an amount as written, or "absent".
func v(a Amount) string {
	if !a.Present {
		return "absent"
	}
	return strings.TrimSpace(a.Value)
}

func lineField(i int, l Line) string {
	if l.ID.Filled() {
		return "line " + l.ID.Norm()
	}
	return fmt.Sprintf("line %d", i+1)
}

// ruleSet is every implemented rule; vatCategoryRules and codeListRules add theirs at init.
var ruleSet []Rule

func rule(id, term, context string, check func(inv *Invoice, fail func(field, detail string))) {
	ruleSet = append(ruleSet, Rule{ID: id, BusinessTerm: term, Context: context, check: check})
}

// documentRule is a rule judged on the invoice as a whole: it fails when ok is false.
func documentRule(id, term string, ok func(inv *Invoice) bool) {
	rule(id, term, "invoice", func(inv *Invoice, fail func(string, string)) {
		if !ok(inv) {
			fail("invoice", "")
		}
	})
}

// lineRule is a rule judged on each invoice line (BG-25): it fails on the lines where ok is false.
func lineRule(id, term string, ok func(l Line) (bool, string)) {
	rule(id, term, "invoice line (BG-25)", func(inv *Invoice, fail func(string, string)) {
		for i, l := range inv.Lines {
			if good, detail := ok(l); !good {
				fail(lineField(i, l), detail)
			}
		}
	})
}

// init adds the rules of EN 16931 itself, section by section, in the order Rules lists them.
func init() {
	registerDocumentRules()
	registerTotalsRules()
	registerAllowanceChargeRules()
	registerLineRules()
	registerPeriodRules()
	registerPartyRules()
	registerPaymentRules()
	registerReferenceRules()
	registerVATBreakdownRules()
}

// registerDocumentRules adds the rules on the invoice as a whole.
func registerDocumentRules() {
	documentRule("BR-01", "BT-24", func(inv *Invoice) bool { return inv.CustomizationID.Filled() })
	documentRule("BR-02", "BT-1", func(inv *Invoice) bool { return inv.ID.Filled() })
	documentRule("BR-03", "BT-2", func(inv *Invoice) bool { return inv.IssueDate.Filled() })
	documentRule("BR-04", "BT-3", func(inv *Invoice) bool { return inv.TypeCode.Filled() })
	documentRule("BR-05", "BT-5", func(inv *Invoice) bool { return inv.Currency.Filled() })
	documentRule("BR-06", "BT-27", func(inv *Invoice) bool { return inv.Seller.LegalName.Filled() })
	documentRule("BR-07", "BT-44", func(inv *Invoice) bool { return inv.Buyer.LegalName.Filled() })
	documentRule("BR-08", "BG-5", func(inv *Invoice) bool { return inv.Seller.Address.Present })
	documentRule("BR-10", "BG-8", func(inv *Invoice) bool { return inv.Buyer.Address.Present })
	documentRule("BR-16", "BG-25", func(inv *Invoice) bool { return len(inv.Lines) > 0 })
	documentRule("BR-53", "BT-111", func(inv *Invoice) bool {
		if !inv.TaxCurrency.Present {
			return true
		}
		for _, tt := range inv.TaxTotals {
			if tt.Amount.Present && tt.Amount.Currency.Present && tt.Amount.Currency.Value == inv.TaxCurrency.Value {
				return true
			}
		}
		return false
	})
	documentRule("BR-CO-03", "BT-7", func(inv *Invoice) bool {
		return !(inv.TaxPointDate.Present && inv.Period.DescriptionCode.Present)
	})
	rule("BR-CO-15", "BT-112", "invoice", func(inv *Invoice, fail func(string, string)) {
		if !inv.Currency.Present {
			return
		}
		var matching []Amount
		for _, tt := range inv.TaxTotals {
			if tt.Amount.Present && tt.Amount.Currency.Present && tt.Amount.Currency.Value == inv.Currency.Value {
				matching = append(matching, tt.Amount)
			}
		}
		if len(matching) != 1 {
			fail("totals", fmt.Sprintf("%d total VAT amounts in the invoice currency %s, expected 1", len(matching), inv.Currency.Norm()))
			return
		}
		incl, ok1 := inv.Totals.TaxInclusive.Dec()
		excl, ok2 := inv.Totals.TaxExclusive.Dec()
		vat, ok3 := matching[0].Dec()
		if !ok1 || !ok2 || !ok3 || !incl.Equal(round2(excl.Add(vat))) {
			fail("totals", fmt.Sprintf("total with VAT %s ≠ total without VAT %s + VAT %s", v(inv.Totals.TaxInclusive), v(inv.Totals.TaxExclusive), v(matching[0])))
		}
	})
	documentRule("BR-CO-18", "BG-23", func(inv *Invoice) bool {
		for _, tt := range inv.TaxTotals {
			if len(tt.Breakdowns) > 0 {
				return true
			}
		}
		return false
	})
	rule("BR-DEC-13", "BT-110", "invoice", func(inv *Invoice, fail func(string, string)) {
		for _, tt := range inv.TaxTotals {
			if tt.Amount.Currency.Present && tt.Amount.Currency.Value == inv.Currency.Value && !decimalsAtMost2(tt.Amount) {
				fail("totals", "total VAT "+v(tt.Amount))
			}
		}
	})
	rule("BR-DEC-15", "BT-111", "invoice", func(inv *Invoice, fail func(string, string)) {
		for _, tt := range inv.TaxTotals {
			if inv.TaxCurrency.Present && tt.Amount.Currency.Present && tt.Amount.Currency.Value == inv.TaxCurrency.Value && !decimalsAtMost2(tt.Amount) {
				fail("totals", "total VAT in accounting currency "+v(tt.Amount))
			}
		}
	})
}

// registerTotalsRules adds the rules on the document totals (BG-22), judged where the totals exist.
func registerTotalsRules() {
	totals := func(id, term string, check func(t Totals, inv *Invoice) (bool, string)) {
		rule(id, term, "document totals (BG-22)", func(inv *Invoice, fail func(string, string)) {
			if !inv.Totals.Present {
				return
			}
			if ok, detail := check(inv.Totals, inv); !ok {
				fail("totals", detail)
			}
		})
	}
	totals("BR-12", "BT-106", func(t Totals, _ *Invoice) (bool, string) { return t.LineNet.Present, "" })
	totals("BR-13", "BT-109", func(t Totals, _ *Invoice) (bool, string) { return t.TaxExclusive.Present, "" })
	totals("BR-14", "BT-112", func(t Totals, _ *Invoice) (bool, string) { return t.TaxInclusive.Present, "" })
	totals("BR-15", "BT-115", func(t Totals, _ *Invoice) (bool, string) { return t.Payable.Present, "" })
	totals("BR-CO-10", "BT-106", func(t Totals, inv *Invoice) (bool, string) {
		nets := make([]Amount, len(inv.Lines))
		for i, l := range inv.Lines {
			nets[i] = l.NetAmount
		}
		sum, ok := sumOf(nets)
		got, ok2 := t.LineNet.Dec()
		return ok && ok2 && got.Equal(round2(sum)), fmt.Sprintf("sum of line net amounts %s ≠ Σ line net amounts %s", v(t.LineNet), f(round2(sum)))
	})
	allowanceTotal := func(id, term string, charge bool) {
		totals(id, term, func(t Totals, inv *Invoice) (bool, string) {
			stated := t.AllowanceTotal
			name := "allowances"
			if charge {
				stated, name = t.ChargeTotal, "charges"
			}
			var amounts []Amount
			for _, ac := range inv.Allowances {
				if (charge && ac.IsCharge()) || (!charge && ac.IsAllowance()) {
					amounts = append(amounts, ac.Amount)
				}
			}
			if !stated.Present && len(amounts) == 0 {
				return true, ""
			}
			sum, ok := sumOf(amounts)
			got, ok2 := stated.Dec()
			return ok && ok2 && got.Equal(round2(sum)), fmt.Sprintf("sum of %s %s ≠ Σ document level %s %s", name, v(stated), name, f(round2(sum)))
		})
	}
	allowanceTotal("BR-CO-11", "BT-107", false)
	allowanceTotal("BR-CO-12", "BT-108", true)
	totals("BR-CO-13", "BT-109", func(t Totals, _ *Invoice) (bool, string) {
		detail := fmt.Sprintf("total without VAT %s ≠ line net %s − allowances %s + charges %s", v(t.TaxExclusive), v(t.LineNet), v(t.AllowanceTotal), v(t.ChargeTotal))
		excl, ok1 := t.TaxExclusive.Dec()
		net, ok2 := t.LineNet.Dec()
		if !ok1 || !ok2 {
			return false, detail
		}
		charges, ok3 := optionalDec(t.ChargeTotal)
		allowances, ok4 := optionalDec(t.AllowanceTotal)
		if !ok3 || !ok4 {
			return false, detail
		}
		want := net.Add(charges).Sub(allowances)
		if t.ChargeTotal.Present || t.AllowanceTotal.Present {
			want = round2(want)
		}
		return excl.Equal(want), detail
	})
	totals("BR-CO-16", "BT-115", func(t Totals, _ *Invoice) (bool, string) {
		detail := fmt.Sprintf("amount due %s ≠ total with VAT %s − paid %s + rounding %s", v(t.Payable), v(t.TaxInclusive), orZero(t.Prepaid), orZero(t.Rounding))
		due, ok1 := t.Payable.Dec()
		incl, ok2 := t.TaxInclusive.Dec()
		if !ok1 || !ok2 {
			return false, detail
		}
		prepaid, ok3 := optionalDec(t.Prepaid)
		rounding, ok4 := optionalDec(t.Rounding)
		if !ok3 || !ok4 {
			return false, detail
		}
		expected := incl
		if t.Prepaid.Present {
			expected = round2(incl.Sub(prepaid))
		}
		if t.Rounding.Present {
			due = round2(due.Sub(rounding))
		}
		return due.Equal(expected), detail
	})
	decimals := func(id, term string, get func(Totals) Amount) {
		totals(id, term, func(t Totals, _ *Invoice) (bool, string) { a := get(t); return decimalsAtMost2(a), v(a) })
	}
	decimals("BR-DEC-09", "BT-106", func(t Totals) Amount { return t.LineNet })
	decimals("BR-DEC-10", "BT-107", func(t Totals) Amount { return t.AllowanceTotal })
	decimals("BR-DEC-11", "BT-108", func(t Totals) Amount { return t.ChargeTotal })
	decimals("BR-DEC-12", "BT-109", func(t Totals) Amount { return t.TaxExclusive })
	decimals("BR-DEC-14", "BT-112", func(t Totals) Amount { return t.TaxInclusive })
	decimals("BR-DEC-16", "BT-113", func(t Totals) Amount { return t.Prepaid })
	decimals("BR-DEC-17", "BT-114", func(t Totals) Amount { return t.Rounding })
	decimals("BR-DEC-18", "BT-115", func(t Totals) Amount { return t.Payable })
}

// The predicates on an allowance or charge that the document level and line level rules share.
func hasAmount(ac AllowanceCharge) (bool, string) { return ac.Amount.Present, "" }

func hasVATCategory(ac AllowanceCharge) (bool, string) {
	return ac.TaxCategory.IsVAT && ac.TaxCategory.Code.Present, ""
}

func hasReason(ac AllowanceCharge) (bool, string) {
	return ac.Reason.Present || ac.ReasonCode.Present, ""
}

func amountDecimals(ac AllowanceCharge) (bool, string) {
	return decimalsAtMost2(ac.Amount), v(ac.Amount)
}

func baseDecimals(ac AllowanceCharge) (bool, string) {
	return decimalsAtMost2(ac.BaseAmount), v(ac.BaseAmount)
}

// registerAllowanceChargeRules adds the rules on document level allowances (BG-20) and charges (BG-21).
func registerAllowanceChargeRules() {
	docAC := func(id, term string, charge bool, ok func(ac AllowanceCharge) (bool, string)) {
		context := "document level allowance (BG-20)"
		if charge {
			context = "document level charge (BG-21)"
		}
		rule(id, term, context, func(inv *Invoice, fail func(string, string)) {
			for i, ac := range inv.Allowances {
				if (charge && !ac.IsCharge()) || (!charge && !ac.IsAllowance()) {
					continue
				}
				if good, detail := ok(ac); !good {
					fail(fmt.Sprintf("%s %d", strings.Fields(context)[2], i+1), detail)
				}
			}
		})
	}
	docAC("BR-31", "BT-92", false, hasAmount)
	docAC("BR-32", "BT-95", false, hasVATCategory)
	docAC("BR-33", "BT-97", false, hasReason)
	docAC("BR-CO-21", "BT-97", false, hasReason)
	docAC("BR-DEC-01", "BT-92", false, amountDecimals)
	docAC("BR-DEC-02", "BT-93", false, baseDecimals)
	docAC("BR-36", "BT-99", true, hasAmount)
	docAC("BR-37", "BT-102", true, hasVATCategory)
	docAC("BR-38", "BT-104", true, hasReason)
	docAC("BR-CO-22", "BT-104", true, hasReason)
	docAC("BR-DEC-05", "BT-99", true, amountDecimals)
	docAC("BR-DEC-06", "BT-100", true, baseDecimals)
}

// registerLineRules adds the rules on invoice lines (BG-25) and their allowances (BG-27) and charges (BG-28).
func registerLineRules() {
	lineRule("BR-21", "BT-126", func(l Line) (bool, string) { return l.ID.Filled(), "" })
	lineRule("BR-22", "BT-129", func(l Line) (bool, string) { return l.Quantity.Present, "" })
	lineRule("BR-23", "BT-130", func(l Line) (bool, string) { return l.UnitCode.Present, "" })
	lineRule("BR-24", "BT-131", func(l Line) (bool, string) { return l.NetAmount.Present, "" })
	lineRule("BR-25", "BT-153", func(l Line) (bool, string) { return l.ItemName.Filled(), "" })
	lineRule("BR-26", "BT-146", func(l Line) (bool, string) { return l.Price.Present, "" })
	lineRule("BR-27", "BT-146", func(l Line) (bool, string) {
		p, ok := l.Price.Dec()
		return ok && !p.IsNegative(), "net price " + v(l.Price)
	})
	lineRule("BR-28", "BT-148", func(l Line) (bool, string) {
		if !l.GrossPrice.Present {
			return true, ""
		}
		p, ok := l.GrossPrice.Dec()
		return ok && !p.IsNegative(), "gross price " + v(l.GrossPrice)
	})
	lineRule("BR-CO-04", "BT-151", func(l Line) (bool, string) { return l.Category.IsVAT && l.Category.Code.Present, "" })
	lineRule("BR-DEC-23", "BT-131", func(l Line) (bool, string) { return decimalsAtMost2(l.NetAmount), v(l.NetAmount) })
	lineAC := func(id, term string, charge bool, ok func(ac AllowanceCharge) (bool, string)) {
		context := "invoice line allowance (BG-27)"
		if charge {
			context = "invoice line charge (BG-28)"
		}
		rule(id, term, context, func(inv *Invoice, fail func(string, string)) {
			for i, l := range inv.Lines {
				for _, ac := range l.AllowanceCharges {
					if (charge && !ac.IsCharge()) || (!charge && !ac.IsAllowance()) {
						continue
					}
					if good, detail := ok(ac); !good {
						fail(lineField(i, l), detail)
					}
				}
			}
		})
	}
	lineAC("BR-41", "BT-136", false, hasAmount)
	lineAC("BR-42", "BT-139", false, hasReason)
	lineAC("BR-CO-23", "BT-139", false, hasReason)
	lineAC("BR-DEC-24", "BT-136", false, amountDecimals)
	lineAC("BR-DEC-25", "BT-137", false, baseDecimals)
	lineAC("BR-43", "BT-141", true, hasAmount)
	lineAC("BR-44", "BT-144", true, hasReason)
	lineAC("BR-CO-24", "BT-144", true, hasReason)
	lineAC("BR-DEC-27", "BT-141", true, amountDecimals)
	lineAC("BR-DEC-28", "BT-142", true, baseDecimals)
}

// registerPeriodRules adds the rules on the invoice and line periods.
func registerPeriodRules() {
	periodEnd := func(p Period) (bool, string) {
		if !p.Start.Present || !p.End.Present {
			return true, ""
		}
		s, ok1 := parseDate(p.Start)
		e, ok2 := parseDate(p.End)
		return ok1 && ok2 && !e.Before(s), "start " + p.Start.Norm() + ", end " + p.End.Norm()
	}
	invoicePeriod := func(id, term string, ok func(p Period) (bool, string)) {
		rule(id, term, "invoicing period (BG-14)", func(inv *Invoice, fail func(string, string)) {
			if inv.Period.Present {
				if good, detail := ok(inv.Period); !good {
					fail("invoicing period", detail)
				}
			}
		})
	}
	invoicePeriod("BR-29", "BT-74", periodEnd)
	invoicePeriod("BR-CO-19", "BG-14", func(p Period) (bool, string) {
		return p.Start.Present || p.End.Present || p.DescriptionCode.Present, ""
	})
	lineRule("BR-30", "BT-135", func(l Line) (bool, string) {
		if !l.Period.Present {
			return true, ""
		}
		return periodEnd(l.Period)
	})
	lineRule("BR-CO-20", "BG-26", func(l Line) (bool, string) {
		return !l.Period.Present || l.Period.Start.Present || l.Period.End.Present, ""
	})
}

// registerPartyRules adds the rules on the parties.
func registerPartyRules() {
	rule("BR-09", "BT-40", "seller postal address (BG-5)", func(inv *Invoice, fail func(string, string)) {
		if inv.Seller.Address.Present && !inv.Seller.Address.Country.Filled() {
			fail("seller address", "")
		}
	})
	rule("BR-11", "BT-55", "buyer postal address (BG-8)", func(inv *Invoice, fail func(string, string)) {
		if inv.Buyer.Address.Present && !inv.Buyer.Address.Country.Filled() {
			fail("buyer address", "")
		}
	})
	rule("BR-57", "BT-80", "deliver to address (BG-15)", func(inv *Invoice, fail func(string, string)) {
		if inv.Delivery.Address.Present && !inv.Delivery.Address.Country.Present {
			fail("deliver to address", "")
		}
	})
	rule("BR-62", "BT-34-1", "seller electronic address (BT-34)", func(inv *Invoice, fail func(string, string)) {
		if inv.Seller.ElectronicAddress.Present && !inv.Seller.ElectronicAddress.Scheme.Present {
			fail("seller", "")
		}
	})
	rule("BR-63", "BT-49-1", "buyer electronic address (BT-49)", func(inv *Invoice, fail func(string, string)) {
		if inv.Buyer.ElectronicAddress.Present && !inv.Buyer.ElectronicAddress.Scheme.Present {
			fail("buyer", "")
		}
	})
	rule("BR-CO-26", "BT-29", "seller (BG-4)", func(inv *Invoice, fail func(string, string)) {
		s := inv.Seller
		if !s.Present || s.VATID.Present || s.LegalID.Present {
			return
		}
		for _, id := range s.IDs {
			if id.Scheme.Value != "SEPA" {
				return
			}
		}
		fail("seller", "")
	})
	rule("BR-17", "BT-59", "payee (BG-10)", func(inv *Invoice, fail func(string, string)) {
		p, s := inv.Payee, inv.Seller
		if !p.Present {
			return
		}
		ok := p.Name.Present && !(s.Name.Present && p.Name.Value == s.Name.Value)
		sellerIDs := make(map[string]bool, len(s.IDs))
		for _, sid := range s.IDs {
			sellerIDs[sid.Value] = true
		}
		for _, pid := range p.IDs {
			if sellerIDs[pid.Value] {
				ok = false
			}
		}
		if !ok {
			fail("payee", "")
		}
	})
	taxRep := func(id, term string, ok func(p Party) bool) {
		rule(id, term, "seller tax representative (BG-11)", func(inv *Invoice, fail func(string, string)) {
			if inv.TaxRep.Present && !ok(inv.TaxRep) {
				fail("seller tax representative", "")
			}
		})
	}
	taxRep("BR-18", "BT-62", func(p Party) bool { return p.Name.Filled() })
	taxRep("BR-19", "BG-12", func(p Party) bool { return p.Address.Present })
	taxRep("BR-56", "BT-63", func(p Party) bool { return p.VATID.Present })
	rule("BR-20", "BT-69", "tax representative postal address (BG-12)", func(inv *Invoice, fail func(string, string)) {
		if inv.TaxRep.Present && inv.TaxRep.Address.Present && !inv.TaxRep.Address.Country.Filled() {
			fail("seller tax representative address", "")
		}
	})
	rule("BR-CO-09", "BT-31", "VAT identifiers", func(inv *Invoice, fail func(string, string)) {
		for _, id := range inv.VATIdentifiers {
			prefix := id.Value
			if r := []rune(prefix); len(r) > 2 {
				prefix = string(r[:2])
			}
			if !inCodeList(CodeListCO09, prefix) || len([]rune(prefix)) < 2 {
				fail("VAT identifier", id.Value)
			}
		}
	})
}

// registerPaymentRules adds the rules on payment instructions (BG-16).
func registerPaymentRules() {
	rule("BR-49", "BT-81", "payment instructions (BG-16)", func(inv *Invoice, fail func(string, string)) {
		for _, pm := range inv.PaymentMeans {
			if !pm.Code.Present {
				fail("payment instructions", "")
			}
		}
	})
	rule("BR-61", "BT-84", "payment instructions (BG-16)", func(inv *Invoice, fail func(string, string)) {
		for _, pm := range inv.PaymentMeans {
			code := pm.Code.Norm()
			if code != "30" && code != "58" {
				continue
			}
			found := false
			for _, acc := range pm.PayeeAccounts {
				found = found || acc.Present
			}
			if !found {
				fail("payment instructions", "payment means "+code)
			}
		}
	})
	rule("BR-50", "BT-84", "payment account (BG-17)", func(inv *Invoice, fail func(string, string)) {
		for _, pm := range inv.PaymentMeans {
			if pm.Code.Value != "30" && pm.Code.Value != "58" {
				continue
			}
			for _, acc := range pm.PayeeAccounts {
				if !acc.Filled() {
					fail("payment account", "")
				}
			}
		}
	})
	rule("BR-51", "BT-87", "payment card information (BG-18)", func(inv *Invoice, fail func(string, string)) {
		for _, pm := range inv.PaymentMeans {
			if pm.CardNumber.Present && len([]rune(pm.CardNumber.Norm())) > 10 {
				fail("payment card", "")
			}
		}
	})
}

// registerReferenceRules adds the rules on references and item details.
func registerReferenceRules() {
	rule("BR-52", "BT-122", "additional supporting document (BG-24)", func(inv *Invoice, fail func(string, string)) {
		for _, d := range inv.SupportingDocs {
			if !d.Filled() {
				fail("supporting document", "")
			}
		}
	})
	rule("BR-55", "BT-25", "preceding invoice reference (BG-3)", func(inv *Invoice, fail func(string, string)) {
		for _, id := range inv.PrecedingIDs {
			if !id.Present {
				fail("preceding invoice", "")
			}
		}
	})
	lineRule("BR-54", "BG-32", func(l Line) (bool, string) {
		for _, a := range l.Attributes {
			if !a.Name.Present || !a.Value.Present {
				return false, ""
			}
		}
		return true, ""
	})
	lineRule("BR-64", "BT-157-1", func(l Line) (bool, string) { return !l.StandardID.Present || l.StandardID.Scheme.Present, "" })
	lineRule("BR-65", "BT-158-1", func(l Line) (bool, string) {
		for _, c := range l.Classifications {
			if !c.Scheme.Present {
				return false, ""
			}
		}
		return true, ""
	})
}

// registerVATBreakdownRules adds the rules on the VAT breakdown (BG-23) and the total VAT.
func registerVATBreakdownRules() {
	breakdown := func(id, term string, ok func(b VATBreakdown) (bool, string)) {
		rule(id, term, "VAT breakdown (BG-23)", func(inv *Invoice, fail func(string, string)) {
			for _, tt := range inv.TaxTotals {
				for _, b := range tt.Breakdowns {
					if good, detail := ok(b); !good {
						fail(breakdownField(b), detail)
					}
				}
			}
		})
	}
	breakdown("BR-45", "BT-116", func(b VATBreakdown) (bool, string) { return b.TaxableAmount.Present, "" })
	breakdown("BR-46", "BT-117", func(b VATBreakdown) (bool, string) { return b.TaxAmount.Present, "" })
	breakdown("BR-47", "BT-118", func(b VATBreakdown) (bool, string) { return b.Category.IsVAT && b.Category.Code.Present, "" })
	breakdown("BR-48", "BT-119", func(b VATBreakdown) (bool, string) {
		return b.Category.IsVAT && (b.Category.Rate.Present || b.Category.Code.Norm() == "O"), ""
	})
	breakdown("BR-CO-17", "BT-117", func(b VATBreakdown) (bool, string) {
		detail := fmt.Sprintf("VAT %s ≠ taxable %s × rate %s %%", v(b.TaxAmount), v(b.TaxableAmount), v(b.Category.Rate))
		tax, okTax := b.TaxAmount.Dec()
		if !okTax {
			return false, detail
		}
		if !(b.Category.IsVAT && b.Category.Rate.Present) {
			return xround(tax).IsZero(), detail
		}
		rate, ok := b.Category.Rate.Dec()
		if !ok {
			return false, detail
		}
		if xround(rate).IsZero() {
			return xround(tax).IsZero(), detail
		}
		taxable, ok := b.TaxableAmount.Dec()
		if !ok {
			return false, detail
		}
		want := round2(taxable.Abs().Mul(rate.Div(hundred)))
		one := decimal.NewFromInt(1)
		return tax.Abs().Sub(one).LessThan(want) && tax.Abs().Add(one).GreaterThan(want), detail
	})
	breakdown("BR-DEC-19", "BT-116", func(b VATBreakdown) (bool, string) { return decimalsAtMost2(b.TaxableAmount), v(b.TaxableAmount) })
	breakdown("BR-DEC-20", "BT-117", func(b VATBreakdown) (bool, string) { return decimalsAtMost2(b.TaxAmount), v(b.TaxAmount) })
	rule("BR-CO-14", "BT-110", "total VAT", func(inv *Invoice, fail func(string, string)) {
		for _, tt := range inv.TaxTotals {
			if len(tt.Breakdowns) == 0 {
				continue
			}
			var amounts []Amount
			for _, b := range tt.Breakdowns {
				amounts = append(amounts, b.TaxAmount)
			}
			sum, ok := sumOf(amounts)
			got, ok2 := tt.Amount.Dec()
			if !ok || !ok2 || !got.Equal(round2(sum)) {
				fail("total VAT", fmt.Sprintf("total VAT %s ≠ Σ VAT category tax amounts %s", v(tt.Amount), f(round2(sum))))
			}
		}
	})
}

// optionalDec is the value of an optional amount: zero when a is absent; ok is false when a is present
// but not a number.
func optionalDec(a Amount) (decimal.Decimal, bool) {
	if !a.Present {
		return decimal.Zero, true
	}
	return a.Dec()
}

func orZero(a Amount) string {
	if !a.Present {
		return "0.00"
	}
	return v(a)
}

func breakdownField(b VATBreakdown) string {
	field := "VAT breakdown " + b.Category.Code.Norm()
	if b.Category.Rate.Present {
		field += " " + strings.TrimSpace(b.Category.Rate.Value) + "%"
	}
	return field
}
