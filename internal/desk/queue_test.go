package desk_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/desk"
	"greatbook/internal/ledger"
)

func ids(rows []desk.QueueRow) []int64 {
	out := make([]int64, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out
}

func TestTheQueuePagesSearchesAndBadges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	var all []int64
	for i := range 7 {
		id := w.Doc(t, 0)
		w.Named(t, id, fmt.Sprintf("Supplier %c AB", 'A'+i), fmt.Sprintf("INV-%03d", i), fmt.Sprintf("%d.50", 100+i))
		all = append(all, id)
	}
	slices.Reverse(all) // newest first

	// Pages of three, older and back newer again: every row once, in order.
	var seen []int64
	f := desk.QueueFilter{Tab: desk.TabNeedsReview, PageSize: 3}
	var pages []desk.QueuePage
	for {
		p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, p)
		seen = append(seen, ids(p.Rows)...)
		if p.Older == 0 {
			break
		}
		f.Before = p.Older
	}
	if !slices.Equal(seen, all) || len(pages) != 3 {
		t.Fatalf("pages of three gave %v in %d pages, want %v in 3", seen, len(pages), all)
	}
	last := pages[len(pages)-1]
	back, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabNeedsReview, PageSize: 3, After: last.Newer})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(back.Rows), ids(pages[1].Rows)) || back.Newer == 0 || back.Older == 0 {
		t.Fatalf("paging back newer gave %v (newer %d, older %d), want the middle page %v", ids(back.Rows), back.Newer, back.Older, ids(pages[1].Rows))
	}
	if pages[0].Counts[desk.TabNeedsReview] != (desk.TabCount{N: 7}) || pages[0].Counts[desk.TabPosted] != (desk.TabCount{}) {
		t.Fatalf("tab counts %v", pages[0].Counts)
	}

	search := func(q string) []int64 {
		t.Helper()
		p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabAll, Query: q})
		if err != nil {
			t.Fatal(err)
		}
		return ids(p.Rows)
	}
	first := all[len(all)-1] // Supplier A AB, INV-000, 100.50
	for q, want := range map[string][]int64{
		"supplier a ab": {first}, // supplier, any case, substring
		"inv-000":       {first}, // number prefix
		"100.50":        {first}, // amount
		"100,5":         {first}, // amount with a decimal comma
		"AB":            all,     // every supplier
		"50%":           nil,     // LIKE wildcards are literal
		"_":             nil,
	} {
		if got := search(q); !slices.Equal(got, want) {
			t.Errorf("search %q: %v, want %v", q, got, want)
		}
	}

	// Badges: a duplicate's group has two members; once one is accepted the
	// other's row says so.
	dup := w.Doc(t, first)
	if _, err := w.App.Decisions.Approve(ctx, w.Org.ID, first, w.Actor); err != nil {
		t.Fatal(err)
	}
	p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabFlagged})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Rows) != 1 || p.Rows[0].ID != dup || p.Rows[0].GroupSize != 2 || !p.Rows[0].GroupAccepts || p.Rows[0].FlagReason != "duplicate" {
		t.Fatalf("flagged tab: %+v", p.Rows)
	}
}

// dated sets a filed document's issue and due dates (empty: none).
func (w *world) dated(t *testing.T, id int64, issued, due string) {
	t.Helper()
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET fields =
		CASE WHEN $3 = '' THEN fields - 'due_date' ELSE jsonb_set(fields, '{due_date}', to_jsonb($3::text)) END
		|| jsonb_build_object('issue_date', $2::text) WHERE id = $1`, id, issued, due); err != nil {
		t.Fatal(err)
	}
}

func TestTheDeskSortsByAColumnWithTheIdAsTieBreaker(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{})
	type row struct {
		id                int64
		issued, due, paid string
	}
	var rows []row
	for i, r := range []row{
		{issued: "2026-11-03", due: "2026-12-01", paid: "300.00"},
		{issued: "2026-11-01", due: "", paid: "1000.00"},
		{issued: "2026-11-02", due: "2026-12-01", paid: "20.00"},
		{issued: "2026-11-02", due: "2026-11-15", paid: "300.00"},
		{issued: "2026-10-30", due: "2026-12-24", paid: "5.00"},
		{issued: "2026-11-05", due: "2026-11-15", paid: "999.99"},
		{issued: "2026-11-04", due: "2027-01-10", paid: "1000.01"},
	} {
		r.id = w.Doc(t, 0)
		w.Named(t, r.id, fmt.Sprintf("Supplier %d", i), fmt.Sprintf("S-%d", i), r.paid)
		w.dated(t, r.id, r.issued, r.due)
		rows = append(rows, r)
	}
	want := func(key desk.SortKey, desc bool) []int64 {
		sorted := slices.Clone(rows)
		slices.SortStableFunc(sorted, func(a, b row) int {
			c := 0
			switch key {
			case desk.SortIssued:
				c = strings.Compare(a.issued, b.issued)
			case desk.SortDue: // no due date sorts last ascending, first descending (PostgreSQL's NULLS default)
				c = strings.Compare(cmpOr(a.due, "~"), cmpOr(b.due, "~"))
			case desk.SortAmount:
				c = decimalCompare(t, a.paid, b.paid)
			}
			if c == 0 {
				c = int(a.id - b.id)
			}
			if desc {
				return -c
			}
			return c
		})
		out := make([]int64, len(sorted))
		for i, r := range sorted {
			out[i] = r.id
		}
		return out
	}
	for _, key := range desk.SortKeys {
		for _, desc := range []bool{false, true} {
			order := desk.QueueOrder{Key: key, Desc: desc}
			t.Run(order.String(), func(t *testing.T) {
				// Pages of three, as the desk's URL carries them: every row once, in order.
				f := desk.ParseQueueFilter(desk.QueueFilter{Tab: desk.TabNeedsReview, Order: order}.Values())
				f.PageSize = 3
				var got []int64
				for range 5 {
					p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, ids(p.Rows)...)
					if order.String() == "-received" {
						if p.Older == 0 {
							break
						}
						f.Before = p.Older
						continue
					}
					if p.NextOffset < 0 {
						break
					}
					f = desk.ParseQueueFilter(desk.QueueFilter{Tab: f.Tab, Order: f.Order, Offset: p.NextOffset}.Values())
					f.PageSize = 3
				}
				if w := want(key, desc); !slices.Equal(got, w) {
					t.Errorf("order %s: %v, want %v", order, got, w)
				}
			})
		}
	}
}

func cmpOr(s, fallback string) string {
	if s == "" {
		return fallback
	}
	return s
}

func decimalCompare(t *testing.T, a, b string) int {
	t.Helper()
	var x, y float64
	if _, err := fmt.Sscan(a, &x); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscan(b, &y); err != nil {
		t.Fatal(err)
	}
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// priced sets a filed document's currency, amount payable and issue date.
func (w *world) priced(t *testing.T, id int64, currency, payable, issued string) {
	t.Helper()
	if _, err := w.DB.Pool.Exec(context.Background(), `UPDATE intake_documents SET fields = jsonb_set(jsonb_set(jsonb_set(fields,
		'{currency}', to_jsonb($2::text)), '{totals,payable}', to_jsonb($3::text)), '{issue_date}', to_jsonb($4::text))
		WHERE id = $1`, id, currency, payable, issued); err != nil {
		t.Fatal(err)
	}
}

// The desk sorts amounts in the org's base currency, converted at the rate
// the bookkeeper would use (the remembered rate of the issue date or of
// the six days before it); a document in a currency without such a rate
// sorts after every converted one, in either direction. Pages of two, as
// the desk's URL carries them, hold every row once; a rate remembered or
// changed after filing moves the documents it converts.
func TestTheDeskSortsAmountsInTheBaseCurrency(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{}) // its base currency is SEK
	id := map[string]int64{}
	for _, d := range []struct{ name, currency, payable string }{
		{"sek-24231", "SEK", "24231.00"},
		{"eur-1020", "EUR", "1020.00"}, // 11,730 SEK at 11.50
		{"eur-3000", "EUR", "3000.00"}, // 34,500 SEK
		{"sek-500", "SEK", "500.00"},
		{"usd-100", "USD", "100.00"}, // no USD rate
		{"sek-11730", "SEK", "11730.00"},
	} {
		id[d.name] = w.Doc(t, 0)
		w.priced(t, id[d.name], d.currency, d.payable, "2026-11-10")
	}
	rate := func(currency, date, rate string) {
		t.Helper()
		if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
			VALUES ($1, $2, $3::date, $4::numeric, 'test') ON CONFLICT (org_id, currency, rate_date) DO UPDATE SET rate = EXCLUDED.rate`,
			w.Org.ID, currency, date, rate); err != nil {
			t.Fatal(err)
		}
	}
	// Remembered after the documents were filed. The bookkeeper would not
	// use a rate from after the issue date, nor one more than six days older.
	rate("EUR", "2026-11-09", "11.50")
	rate("EUR", "2026-11-11", "50")
	rate("EUR", "2026-11-03", "99")

	order := func(o desk.QueueOrder) []int64 {
		t.Helper()
		f := desk.ParseQueueFilter(desk.QueueFilter{Tab: desk.TabNeedsReview, Order: o}.Values())
		f.PageSize = 2
		var got []int64
		for range 10 {
			p, err := desk.Queue(ctx, w.DB.Pool, w.Org.ID, f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, ids(p.Rows)...)
			if p.NextOffset < 0 {
				break
			}
			f = desk.ParseQueueFilter(desk.QueueFilter{Tab: f.Tab, Order: f.Order, Offset: p.NextOffset}.Values())
			f.PageSize = 2
		}
		return got
	}
	names := func(names ...string) []int64 {
		out := make([]int64, len(names))
		for i, n := range names {
			out[i] = id[n]
		}
		return out
	}
	check := func(o desk.QueueOrder, want []int64) {
		t.Helper()
		if got := order(o); !slices.Equal(got, want) {
			t.Errorf("order %s: %v, want %v (%v)", o, got, want, id)
		}
		// j and k walk the same order.
		for i, x := range want {
			p, err := desk.Position(ctx, w.DB.Pool, w.Org.ID, desk.QueueFilter{Tab: desk.TabNeedsReview, Order: o}, x)
			if err != nil {
				t.Fatal(err)
			}
			var prev, next int64
			if i > 0 {
				prev = want[i-1]
			}
			if i+1 < len(want) {
				next = want[i+1]
			}
			if p.Previous != prev || p.Next != next {
				t.Errorf("order %s: position of %d: %+v, want previous %d, next %d", o, x, p, prev, next)
			}
		}
	}
	// 11,730 SEK twice: the id breaks the tie.
	check(desk.QueueOrder{Key: desk.SortAmount, Desc: true}, names("eur-3000", "sek-24231", "sek-11730", "eur-1020", "sek-500", "usd-100"))
	check(desk.QueueOrder{Key: desk.SortAmount}, names("sek-500", "eur-1020", "sek-11730", "sek-24231", "eur-3000", "usd-100"))

	// A changed rate moves the documents it converts; a new one converts.
	rate("EUR", "2026-11-09", "30") // 30,600 and 90,000 SEK
	rate("USD", "2026-11-10", "10") // 1,000 SEK
	check(desk.QueueOrder{Key: desk.SortAmount, Desc: true}, names("eur-3000", "eur-1020", "sek-24231", "sek-11730", "usd-100", "sek-500"))
}

// A posted document keeps the rate its journal entry was posted at (an
// answered rate the bookkeeper was not asked to remember, here), whatever
// rate is remembered later; a new base currency converts every document
// again.
func TestAPostedDocumentSortsAtItsEntrysRate(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	w := newWorld(t, app.Config{}) // its base currency is SEK
	id := w.Doc(t, 0)
	w.priced(t, id, "EUR", "1020.00", "2026-11-10")
	base := func() string {
		t.Helper()
		var s *string
		if err := w.DB.Pool.QueryRow(ctx, `SELECT payable_base::text FROM intake_documents WHERE id = $1`, id).Scan(&s); err != nil {
			t.Fatal(err)
		}
		if s == nil {
			return "none"
		}
		return decimal.RequireFromString(*s).String()
	}
	if got := base(); got != "none" {
		t.Fatalf("with no rate: %s", got)
	}
	at20 := decimal.RequireFromString("20400")
	res, err := ledger.Post(ctx, w.DB.Pool, ledger.Request{
		SourceKey: ledger.SourceKey{OrgID: w.Org.ID, SourceType: "intake", SourceID: fmt.Sprint(id), EntrySet: "bill"},
		Date:      "2026-11-10", Currency: "EUR", Actor: "test",
		Lines: []ledger.Line{{Account: ledger.GeneralExpenses, Debit: decimal.RequireFromString("1020"), BaseDebit: &at20},
			{Account: ledger.AccountsPayable, Credit: decimal.RequireFromString("1020"), BaseCredit: &at20}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE intake_documents SET status = 'posted', result_entry_id = $2 WHERE id = $1`, id, res.Entry.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := w.DB.Pool.Exec(ctx, `INSERT INTO exchange_rates (org_id, currency, rate_date, rate, created_by)
		VALUES ($1, 'EUR', '2026-11-10', 11.5, 'test')`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	if got := base(); got != "20400" {
		t.Fatalf("posted at 20: %s", got)
	}
	if _, err := w.DB.Pool.Exec(ctx, `UPDATE orgs SET base_currency = 'EUR' WHERE id = $1`, w.Org.ID); err != nil {
		t.Fatal(err)
	}
	if got := base(); got != "1020" {
		t.Fatalf("in a base currency of EUR: %s", got)
	}
}
