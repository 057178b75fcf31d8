package bookkeeper

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/ledger"
	"greatbook/internal/money"
	"greatbook/internal/storable"
)

// EntrySet is the entry set of a document's journal entry.
const EntrySet = "bill"

// Bill is what the bookkeeper posts for a supplier document.
type Bill struct {
	OrgID    int64
	IntakeID int64
	Document einvoice.Document
	Supplier string // the seller identity of the source ref
	Expense  string // expense account code
	// Coding, when set, covers the document (coding.Covers): the entry
	// debits each row's account with its amount instead of Expense.
	Coding       []coding.Row
	BaseCurrency string
	// Rate converts one unit of the document's currency to base currency
	// (1 when they are the same).
	Rate decimal.Decimal
}

// Entry builds the journal entry of a bill from the document's stated
// amounts, as EN 16931 states them, never recomputed from its lines (a
// document may have none, as Factur-X BASIC WL has not). A supplier invoice
// debits the expense account with each VAT breakdown's taxable amount
// (BT-116) and input VAT with its tax (BT-117), per rate; what the total
// without VAT (BT-109) or the total VAT (BT-110) holds beyond the breakdown
// goes on the same accounts without a rate; the rounding amount (BT-114) is
// an expense. It credits prepaid expenses with the paid amount (BT-113) and
// accounts payable with the amount due (BT-115). A credit note mirrors it.
//
// A coded bill debits, instead of the expense account by VAT rate, each
// coding row's account with its amount and dimensions: the rows cover the
// lines' nets and the document-level allowances and charges (rows without
// a line, allowances negative), so they sum to the total without VAT.
// Tax is never coded: input VAT posts per the breakdown as above. The
// rounding amount and any discrepancy go to the first row's account.
//
// The entry balances to the amount due to the cent whatever the document
// says: when its stated amounts do not add up (an invalid e-invoice a
// reviewer approved with an acknowledgement), the difference is an expense
// line with the dimension kind=discrepancy, for someone to follow up.
//
// A foreign-currency entry carries base amounts at the rate, rounded to the
// base currency's minor units, any rounding difference put on accounts
// payable. The same bill always builds the same entry, so a re-run replays it.
func (b Bill) Entry() (ledger.Request, error) {
	d := b.Document
	cur, ok := money.Lookup(d.Currency)
	if !ok {
		return ledger.Request{}, fmt.Errorf("bookkeeper: unknown currency %q", d.Currency)
	}
	base, ok := money.Lookup(b.BaseCurrency)
	if !ok {
		return ledger.Request{}, fmt.Errorf("bookkeeper: unknown base currency %q", b.BaseCurrency)
	}
	req := ledger.Request{
		SourceKey:   ledger.SourceKey{OrgID: b.OrgID, SourceType: ledger.SourceTypeIntake, SourceID: strconv.FormatInt(b.IntakeID, 10), EntrySet: EntrySet},
		Date:        d.IssueDate,
		Currency:    d.Currency,
		Description: description(d),
		Actor:       "system:bookkeeper",
	}
	req.Lines = b.lines(b.amounts(cur.MinorUnits), base.MinorUnits)
	if len(req.Lines) < 2 {
		return ledger.Request{}, fmt.Errorf("bookkeeper: document %d has nothing to post (all amounts are zero)", b.IntakeID)
	}
	return req, nil
}

// billAmount is one amount of a bill's entry in the document's currency, as an invoice posts it (a
// credit note mirrors it).
type billAmount struct {
	account string
	debit   bool // before mirroring for a credit note
	value   decimal.Decimal
	dims    map[string]string
}

// amounts lists what Entry posts for b's document, each amount rounded to minor units and positive
// (a negative amount moves to the other side), zeros left out, and a discrepancy line where the
// stated amounts do not balance.
func (b Bill) amounts(minor int32) []billAmount {
	d := b.Document
	var amounts []billAmount
	// debits − credits so far, at the currency's minor units, before mirroring.
	var balance decimal.Decimal
	add := func(account string, debit bool, v decimal.Decimal, dims map[string]string) {
		v = v.Round(minor)
		if debit {
			balance = balance.Add(v)
		} else {
			balance = balance.Sub(v)
		}
		if v.IsZero() {
			return
		}
		if v.IsNegative() {
			debit, v = !debit, v.Neg()
		}
		amounts = append(amounts, billAmount{account, debit, v, dims})
	}
	round := func(v decimal.Decimal) decimal.Decimal { return v.Round(minor) }
	dims := func(extra ...string) map[string]string {
		m := map[string]string{}
		if b.Supplier != "" {
			m["supplier"] = b.Supplier
		}
		for i := 0; i+1 < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	subtotals := append([]einvoice.TaxSubtotal(nil), d.TaxSubtotals...)
	sort.SliceStable(subtotals, func(i, j int) bool { return subtotals[i].Rate.LessThan(subtotals[j].Rate) })
	expense := b.Expense
	if len(b.Coding) > 0 {
		expense = b.Coding[0].Account
		for _, r := range b.Coding {
			m := dims()
			for k, v := range r.Dimensions {
				if _, own := m[k]; !own { // the bookkeeper's supplier dimension stays its own
					m[k] = v
				}
			}
			add(r.Account, true, r.Amount, m)
		}
	} else {
		expensed := decimal.Zero
		for _, st := range subtotals {
			add(b.Expense, true, st.Taxable, dims("vat_rate", money.Canonical(st.Rate)))
			expensed = expensed.Add(round(st.Taxable))
		}
		add(b.Expense, true, round(d.Totals.Net).Sub(expensed), dims())
	}
	taxed := decimal.Zero
	for _, st := range subtotals {
		add(ledger.InputVAT, true, st.Tax, map[string]string{"vat_rate": money.Canonical(st.Rate)})
		taxed = taxed.Add(round(st.Tax))
	}
	add(ledger.InputVAT, true, round(d.Totals.Tax).Sub(taxed), nil)
	add(expense, true, d.Totals.Rounding, map[string]string{"kind": "rounding"})
	add("1500", false, d.Totals.Prepaid, nil)
	add(ledger.AccountsPayable, false, d.Totals.Payable, dims())
	if !balance.IsZero() {
		// The stated amounts do not add up: see Entry's doc comment.
		add(expense, true, balance.Neg(), dims("kind", "discrepancy"))
	}
	return amounts
}

// lines turns amounts into the entry's lines: mirrored for a credit note and, in a foreign currency,
// with base amounts at b.Rate rounded to baseMinor units, the rounding difference on accounts payable.
func (b Bill) lines(amounts []billAmount, baseMinor int32) []ledger.Line {
	credit := b.Document.Type == einvoice.TypeCreditNote
	foreign := b.Document.Currency != b.BaseCurrency
	var lines []ledger.Line
	var baseDebits, baseCredits decimal.Decimal
	payable := -1
	for _, a := range amounts {
		debit := a.debit != credit // a credit note mirrors every line
		l := ledger.Line{Account: a.account, Dimensions: a.dims}
		if debit {
			l.Debit = a.value
		} else {
			l.Credit = a.value
		}
		if foreign {
			bv := a.value.Mul(b.Rate).Round(baseMinor)
			if debit {
				l.BaseDebit = &bv
				baseDebits = baseDebits.Add(bv)
			} else {
				l.BaseCredit = &bv
				baseCredits = baseCredits.Add(bv)
			}
		}
		if a.account == ledger.AccountsPayable {
			payable = len(lines)
		}
		lines = append(lines, l)
	}
	if foreign && payable >= 0 && !baseDebits.Equal(baseCredits) {
		// Rounding each line to base units may leave a cent over: put it on payables.
		l := &lines[payable]
		diff := baseDebits.Sub(baseCredits)
		if l.BaseCredit != nil {
			v := l.BaseCredit.Add(diff)
			l.BaseCredit = &v
		} else {
			v := l.BaseDebit.Sub(diff)
			l.BaseDebit = &v
		}
	}
	return lines
}

func description(d einvoice.Document) string {
	kind := "invoice"
	if d.Type == einvoice.TypeCreditNote {
		kind = "credit note"
	}
	// Cut at a character boundary: a cut inside one is not UTF-8, and the
	// ledger refuses the entry.
	return storable.Clean(strings.TrimSpace(fmt.Sprintf("%s %s %s", d.Seller.Name, kind, d.Number)), 500)
}
