// Package desk is the reviewers' read side of intake: the queue with its
// tabs, search, sort orders and a document's place in it; the API's
// listing; a document's page and decision panel, with its history and the
// AP desk's checks as they read now. It decides what a reader may do, and
// changes nothing.
package desk

import (
	"cmp"
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/jackc/pgx/v5"
	"github.com/shopspring/decimal"

	"greatbook/internal/database"
	"greatbook/internal/intake"
	"greatbook/internal/org"
	"greatbook/internal/storable"
)

// Tab is a view of the queue.
type Tab string

// The desk's tabs.
const (
	TabNeedsReview Tab = "review" // pending and flagged
	// TabMine: pending and flagged documents the reader may approve now.
	TabMine     Tab = "mine"
	TabFlagged  Tab = "flagged"
	TabApproved Tab = "approved" // active
	TabPosted   Tab = "posted"   // posted, its entry standing
	TabReversed Tab = "reversed" // posted, its entry reversed in the ledger since
	TabRejected Tab = "rejected"
	TabAll      Tab = "all"
)

// Tabs in the order the desk shows them.
var Tabs = []Tab{TabNeedsReview, TabMine, TabFlagged, TabApproved, TabPosted, TabReversed, TabRejected, TabAll}

func (t Tab) statuses() []string {
	switch t {
	case TabFlagged:
		return []string{"flagged"}
	case TabApproved:
		return []string{"active"}
	case TabPosted, TabReversed:
		return []string{"posted"}
	case TabRejected:
		return []string{"rejected"}
	case TabAll:
		return []string{"received", "pending", "flagged", "active", "posted", "rejected"}
	}
	return []string{"pending", "flagged"}
}

// condition is what f's tab asks of its rows beyond their status: Posted
// and Reversed split the posted documents by whether their entry stands;
// Mine keeps those f's approver may approve (arg adds the approver as an
// argument of the statement).
func (f QueueFilter) condition(arg func(any) string) string {
	switch f.Tab {
	case TabPosted:
		return " AND NOT " + reversedSQL
	case TabReversed:
		return " AND " + reversedSQL
	case TabMine:
		return " AND " + mayApproveSQL(arg(f.Approver))
	}
	return ""
}

// SortKey is a column the desk sorts by.
type SortKey string

// The desk's sortable columns.
const (
	SortReceived SortKey = "received" // arrival: the document id's order
	SortIssued   SortKey = "issued"   // the invoice's issue date (BT-2)
	SortDue      SortKey = "due"      // its due date (BT-9)
	SortAmount   SortKey = "amount"   // the amount payable, in the org's base currency
)

// SortKeys are the keys a desk URL may name.
var SortKeys = []SortKey{SortReceived, SortIssued, SortDue, SortAmount}

// QueueOrder is the desk's order: a column and a direction; ties are
// broken by document id in the same direction, so the order is stable.
type QueueOrder struct {
	Key  SortKey
	Desc bool
}

// DefaultOrder is the desk's order when the URL names none: newest first.
var DefaultOrder = QueueOrder{Key: SortReceived, Desc: true}

// keyset says the order pages by document id cursors (Before/After);
// every other order pages by Offset.
func (o QueueOrder) keyset() bool { return o == DefaultOrder }

// String is the order as a URL names it: "due" or "-due" (descending).
func (o QueueOrder) String() string {
	if o.Desc {
		return "-" + string(o.Key)
	}
	return string(o.Key)
}

// parseQueueOrder reads an order as String writes it; anything else is the default.
func parseQueueOrder(s string) QueueOrder {
	o := QueueOrder{Key: SortKey(strings.TrimPrefix(s, "-")), Desc: strings.HasPrefix(s, "-")}
	if !slices.Contains(SortKeys, o.Key) {
		return DefaultOrder
	}
	return o
}

// MaxQueueOffset bounds how deep a sorted (non-default) order pages: each
// page reads the rows before it, so a far offset would cost a scan of
// the tab; past it the desk asks for a search instead.
const MaxQueueOffset = 10_000

// QueueFilter selects rows of the queue and orders them: the desk's
// state as its URL carries it (ParseQueueFilter, Values).
type QueueFilter struct {
	Tab Tab
	// Query searches supplier (substring), number (prefix) and amount (exact).
	Query      string
	DocType    string
	FlagReason string
	Order      QueueOrder
	// Before and After are keyset cursors (document ids) of the default
	// order; Offset pages any other order. PageSize rows.
	Before, After int64
	Offset        int
	PageSize      int
	// Approver is the signed-in reader's label (their email): the Mine tab
	// holds what they may approve. The server sets it; no URL carries it.
	Approver string
}

// ParseQueueFilter reads the desk's URL parameters (tab, q, type, flag,
// order, before, after, offset); what it does not know falls back to the
// defaults, as a hand-edited URL should.
func ParseQueueFilter(v url.Values) QueueFilter {
	f := QueueFilter{Tab: Tab(v.Get("tab")), Query: v.Get("q"), DocType: v.Get("type"), FlagReason: v.Get("flag"),
		Order: parseQueueOrder(v.Get("order"))}
	if !slices.Contains(Tabs, f.Tab) {
		f.Tab = TabNeedsReview
	}
	f.Before, _ = strconv.ParseInt(v.Get("before"), 10, 64)
	f.After, _ = strconv.ParseInt(v.Get("after"), 10, 64)
	f.Offset, _ = strconv.Atoi(v.Get("offset"))
	return f
}

// Values are the URL parameters that ParseQueueFilter reads back to f
// (the page size is the server's and is left out).
func (f QueueFilter) Values() url.Values {
	v := url.Values{}
	v.Set("tab", string(cmp.Or(f.Tab, TabNeedsReview)))
	for name, value := range map[string]string{"q": f.Query, "type": f.DocType, "flag": f.FlagReason} {
		if value != "" {
			v.Set(name, value)
		}
	}
	if f.Order != (QueueOrder{}) && f.Order != DefaultOrder {
		v.Set("order", f.Order.String())
	}
	if f.Before > 0 {
		v.Set("before", strconv.FormatInt(f.Before, 10))
	}
	if f.After > 0 {
		v.Set("after", strconv.FormatInt(f.After, 10))
	}
	if f.Offset > 0 {
		v.Set("offset", strconv.Itoa(f.Offset))
	}
	return v
}

// QueueRow is a row of the desk.
type QueueRow struct {
	ID        int64
	Status    intake.Status
	DocType   string
	Supplier  string
	Number    string
	SourceRef string
	Payable   *decimal.Decimal
	Currency  string
	// PayableBase is Payable in BaseCurrency, the org's, converted as the
	// bookkeeper converts it: nil when no rate is known yet (or there is no
	// amount).
	PayableBase  *decimal.Decimal
	BaseCurrency string
	FlagReason   string
	DuplicateOf  int64
	ReceivedAt   time.Time
	IssueDate    string // as filed, ISO 8601; empty when unknown
	DueDate      string
	GroupSize    int
	GroupAccepts bool // another member is accepted
	Version      int  // typewriter version number, 0 when not composed
	Versions     int
	// Reversed: the document was posted and its entry reversed since.
	Reversed bool
	// Approvals an undecided document has been given, of ApprovalsRequired,
	// the count the org's policy asks of it (0 once decided).
	Approvals, ApprovalsRequired int
}

// QueuePage is one page of the queue.
type QueuePage struct {
	Rows         []QueueRow
	Counts       map[Tab]TabCount
	Older, Newer int64 // cursors for the next pages, 0 when none
	// NextOffset and PrevOffset page a sorted order: -1 when there is none.
	NextOffset, PrevOffset int
	Filter                 QueueFilter
}

var amountPattern = regexp.MustCompile(`^-?[0-9]+([.,][0-9]{1,4})?$`)

// Queue lists a page of an org's queue, newest first.
func Queue(ctx context.Context, q database.Executor, orgID int64, f QueueFilter) (QueuePage, error) {
	if f.PageSize <= 0 || f.PageSize > 200 {
		f.PageSize = 50
	}
	if err := storable.CheckParameters(storable.Param{Name: "q", Value: f.Query, Max: 1000},
		storable.Param{Name: "type", Value: f.DocType, Max: 1000}, storable.Param{Name: "flag", Value: f.FlagReason, Max: 1000}); err != nil {
		return QueuePage{}, err
	}
	if f.Tab == "" {
		f.Tab = TabNeedsReview
	}
	if f.Order == (QueueOrder{}) {
		f.Order = DefaultOrder
	}
	if f.Order.keyset() {
		f.Offset = 0
	} else {
		f.Before, f.After = 0, 0
		f.Offset = min(max(f.Offset, 0), MaxQueueOffset)
	}
	s, err := findSupplierNames(ctx, q, orgID, f.Query)
	if err != nil {
		return QueuePage{}, err
	}
	sql, args, order := queueQuery(orgID, f, s)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return QueuePage{}, fmt.Errorf("desk: queue: %w", err)
	}
	list, err := pgx.CollectRows(rows, scanQueueRow)
	if err != nil {
		return QueuePage{}, fmt.Errorf("desk: queue: %w", err)
	}
	more := len(list) > f.PageSize
	if more {
		list = list[:f.PageSize]
	}
	if order == "ASC" {
		for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
			list[i], list[j] = list[j], list[i]
		}
	}
	p := QueuePage{Rows: list, Filter: f, NextOffset: -1, PrevOffset: -1}
	if f.Order.keyset() {
		p.Older, p.Newer = queueCursors(list, f, more)
	} else {
		if more && f.Offset+f.PageSize <= MaxQueueOffset {
			p.NextOffset = f.Offset + f.PageSize
		}
		if f.Offset > 0 {
			p.PrevOffset = max(f.Offset-f.PageSize, 0)
		}
	}
	var err2 error
	p.Counts, err2 = tabCounts(ctx, q, orgID, f.Approver)
	return p, err2
}

// queueQuery builds the statement for one page of the queue under filter f (one row more than the
// page, to tell whether there is a next one) and its arguments, s being what its search found among
// the supplier names; order is the direction it reads ids in, ASC when paging towards newer rows.
func queueQuery(orgID int64, f QueueFilter, s supplierSearch) (sql string, args []any, order string) {
	where, search, arg, argsOf := queueConditions(orgID, f, s)
	if !f.Order.keyset() {
		return sortedQueueQuery(where, search, arg, f), argsOf(), ""
	}
	order = "DESC"
	switch {
	case f.Before > 0:
		where = append(where, "d.id < "+arg(f.Before))
	case f.After > 0:
		where = append(where, "d.id > "+arg(f.After))
		order = "ASC"
	}
	pageSQL, limit := queuePageSQL, arg(f.PageSize+1)
	if f.byIndexAlone() {
		pageSQL = queueIDsPageSQL
	}
	if search.keys != "" {
		inner := searchPage(strings.Join(where, " AND ")+f.tabCondition(arg), search, order, limit)
		return fmt.Sprintf(queueRowsSQL, inner, "d.id "+order), argsOf(), order
	}
	if search.like != "" {
		where = append(where, search.any())
	}
	// One ordered index scan per status, (org_id, status, id), merged: a
	// tab's newest rows are found however many rows of other statuses are
	// newer. The all tab too, the table keeping no index of its own for it.
	page := func(extra string) string {
		return fmt.Sprintf(pageSQL, strings.Join(where, " AND ")+extra, "d.id "+order, limit)
	}
	var inner string
	if statuses := f.Tab.statuses(); len(statuses) == 1 {
		inner = page(" AND " + statusIs(statuses[0]) + f.condition(arg))
	} else {
		var branches []string
		for _, st := range statuses {
			branches = append(branches, "("+page(" AND "+statusIs(st)+f.condition(arg))+")")
		}
		inner = fmt.Sprintf(queueMergeSQL, strings.Join(branches, " UNION ALL "), "d.id "+order, limit)
	}
	return fmt.Sprintf(queueRowsSQL, inner, "d.id "+order), argsOf(), order
}

// tabCondition is what f's tab asks of a row, its statuses and its
// condition; nothing for the All tab, which holds every status.
func (f QueueFilter) tabCondition(arg func(any) string) string {
	if f.Tab == TabAll {
		return ""
	}
	statuses := make([]string, len(f.Tab.statuses()))
	for i, st := range f.Tab.statuses() {
		statuses[i] = "'" + st + "'"
	}
	return " AND d.status IN (" + strings.Join(statuses, ", ") + ")" + f.condition(arg)
}

// searchPage is the page of a search in the default order whose text few
// supplier names contain: each name's rows in order (an ordered scan of
// intake_supplier_name_idx per name, up to the page), and the rows of
// each other term, merged and each row kept once. It reads a page per
// name, however long the history; the other terms' rows are read whole,
// through their own indexes (intake_number_idx, intake_payable_idx),
// which a generic plan would rather trade for a walk of every id in
// order, had they an order and a limit. conditions are the filters, the
// tab's and the cursor's.
func searchPage(conditions string, search searchTerms, order, limit string) string {
	tail := " ORDER BY d.id " + order + " LIMIT " + limit
	branches := []string{"(" + fmt.Sprintf(searchSupplierSQL, search.keys, conditions+" AND "+search.like+tail) + ")"}
	for _, term := range search.others {
		branches = append(branches, "("+fmt.Sprintf(searchTermSQL, conditions+" AND "+term)+")")
	}
	return fmt.Sprintf(searchMergeSQL, strings.Join(branches, " UNION ALL "), "d.id "+order, limit)
}

// byIndexAlone says whether a page of f in the default order has no
// condition beyond the org, a status, an id bound and, on the Posted tab,
// the entry not reversed: intake_desk_idx holds all of them (the entry id
// as an included column), and the reversals are few.
func (f QueueFilter) byIndexAlone() bool {
	return strings.TrimSpace(f.Query) == "" && f.DocType == "" && f.FlagReason == "" &&
		f.Tab != TabReversed && f.Tab != TabMine
}

// statusIs is the condition that d has status st, one of the statuses the
// tabs name (never a user's text), written as a literal rather than a
// parameter: the planner then knows, in a generic plan too, which partial
// indexes (those of the sorted orders leave out received) hold the rows.
func statusIs(st string) string { return "d.status = '" + st + "'" }

// queueWhere is the search and filters of f as SQL conditions on d, with
// the function that adds an argument and the one that returns them all;
// s is what the search found among the org's supplier names
// (findSupplierNames).
func queueWhere(orgID int64, f QueueFilter, s supplierSearch) (where []string, arg func(any) string, argsOf func() []any) {
	where, search, arg, argsOf := queueConditions(orgID, f, s)
	if search.like != "" {
		where = append(where, search.any())
	}
	return where, arg, argsOf
}

// searchTerms are a search's conditions on d: the supplier's name contains
// the text (like), one of the names found (keys, the placeholder of their
// keys; empty when there were many), or another term holds (the number,
// the amount).
type searchTerms struct {
	like, keys string
	others     []string
}

// supplier is the search's condition on the supplier's name: by its key
// among the few names found, read through intake_supplier_name_idx (and
// the text again, so that the hash decides nothing alone); past
// maxSearchNames names, by the text alone, tested on each row read.
func (t searchTerms) supplier() string {
	if t.keys == "" {
		return t.like
	}
	return "(d.supplier_name IS NOT NULL AND md5(lower(d.supplier_name))::uuid = ANY(" + t.keys + "::uuid[]) AND " + t.like + ")"
}

// any holds when any of the terms does.
func (t searchTerms) any() string {
	return "(" + strings.Join(append([]string{t.supplier()}, t.others...), " OR ") + ")"
}

// queueConditions is queueWhere with the search's terms apart (none
// without a search: like is empty).
func queueConditions(orgID int64, f QueueFilter, s supplierSearch) (where []string, search searchTerms, arg func(any) string, argsOf func() []any) {
	where = []string{"d.org_id = $1"}
	args := []any{orgID}
	arg = func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	argsOf = func() []any { return args }
	if q := strings.TrimSpace(f.Query); q != "" {
		// The text is lower-cased by the database, as the names are: its
		// lower() and Go's differ past ASCII.
		search.like = "lower(d.supplier_name) LIKE lower(" + arg("%"+database.LikeEscape(q)+"%") + ")"
		if !s.many {
			search.keys = arg(s.keys)
		}
		number := "upper(d.doc_number) LIKE " + arg(strings.ToUpper(database.LikeEscape(q))+"%")
		if lo, hi, ok := prefixRange(strings.ToUpper(q)); ok {
			// The prefix's range, which a generic plan can read
			// intake_number_idx by (a LIKE pattern it cannot).
			number = "upper(d.doc_number) ~>=~ " + arg(lo) + " AND upper(d.doc_number) ~<~ " + arg(hi) + " AND " + number
		}
		search.others = []string{"(" + number + ")"}
		if amountPattern.MatchString(q) {
			if v, err := decimal.NewFromString(strings.ReplaceAll(q, ",", ".")); err == nil {
				search.others = append(search.others, "d.payable = "+arg(v.String())+"::numeric")
			}
		}
	}
	if f.DocType != "" {
		where = append(where, "d.doc_type = "+arg(f.DocType))
	}
	if f.FlagReason != "" {
		where = append(where, "d.flag_reason = "+arg(f.FlagReason))
	}
	return where, search, arg, argsOf
}

// prefixRange is the range of the strings that begin with prefix, in
// byte order (text_pattern_ops): from prefix itself up to the prefix
// with its last character the next one. ok is false when there is no such
// bound (the prefix is all U+10FFFF, the last character).
func prefixRange(prefix string) (lo, hi string, ok bool) {
	r := []rune(prefix)
	for len(r) > 0 {
		last := r[len(r)-1] + 1
		if last >= 0xD800 && last <= 0xDFFF { // surrogates are no characters
			last = 0xE000
		}
		if last <= unicode.MaxRune {
			r[len(r)-1] = last
			return prefix, string(r), true
		}
		r = r[:len(r)-1]
	}
	return "", "", false
}

// maxSearchNames is how many supplier names a search reads its rows by,
// each name's newest first: when more contain the text, they are common
// enough that walking the queue's rows in order finds a page soon.
const maxSearchNames = 200

// supplierSearch is what a search's text found among an org's supplier
// names: the keys of the names containing it (md5 of the lower-cased
// name, as intake_supplier_name_idx holds them), or many when more than
// maxSearchNames do.
type supplierSearch struct {
	keys []string
	many bool
}

// findSupplierNames reads the org's supplier names containing query (none
// for an empty one): supplier_names through its trigram index, or the
// org's names in full where they are few.
func findSupplierNames(ctx context.Context, q database.Executor, orgID int64, query string) (supplierSearch, error) {
	query = strings.TrimSpace(query)
	if query == "" {
		return supplierSearch{}, nil
	}
	rows, err := q.Query(ctx, supplierNamesSQL, orgID, "%"+database.LikeEscape(query)+"%", maxSearchNames+1)
	if err != nil {
		return supplierSearch{}, fmt.Errorf("desk: supplier names: %w", err)
	}
	keys, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return supplierSearch{}, fmt.Errorf("desk: supplier names: %w", err)
	}
	if len(keys) > maxSearchNames {
		return supplierSearch{many: true}, nil
	}
	return supplierSearch{keys: keys}, nil
}

// sortedOrderBy is the ORDER BY of an order other than the default: the
// column, then the id, both in the order's direction.
func sortedOrderBy(o QueueOrder) string {
	dir := "ASC"
	if o.Desc {
		dir = "DESC"
	}
	if o.Key == SortReceived {
		return "d.id " + dir
	}
	if o.Key == SortAmount {
		return sortColumn[o.Key] + " " + dir + " NULLS LAST, d.id " + dir
	}
	return sortColumn[o.Key] + " " + dir + ", d.id " + dir
}

// sortedQueueQuery is queueQuery for an order other than the default: the
// same merge of one ordered scan per status, ordered by the column and
// then the id, paged by offset (at most MaxQueueOffset rows skipped). Its
// rows come in the page's order (no direction to turn). A search whose
// text few supplier names contain reads its matches instead (the names'
// rows through intake_supplier_name_idx, and each other term's), and
// sorts them: as many as the matching suppliers have documents.
func sortedQueueQuery(where []string, search searchTerms, arg func(any) string, f QueueFilter) string {
	orderBy := sortedOrderBy(f.Order)
	if search.keys != "" {
		conditions := strings.Join(where, " AND ") + f.tabCondition(arg)
		var branches []string
		for _, term := range append([]string{search.supplier()}, search.others...) {
			branches = append(branches, "("+fmt.Sprintf(searchTermSQL, conditions+" AND "+term)+")")
		}
		inner := fmt.Sprintf(searchSortedSQL, strings.Join(branches, " UNION ALL "), orderBy, arg(f.Offset), arg(f.PageSize+1))
		return fmt.Sprintf(queueRowsSQL, inner, orderBy)
	}
	if search.like != "" {
		where = append(where, search.any())
	}
	limit := arg(f.Offset + f.PageSize + 1)
	page := func(extra string) string {
		return fmt.Sprintf(queuePageSQL, strings.Join(where, " AND ")+extra, orderBy, limit)
	}
	var branches []string
	statuses := f.Tab.statuses()
	for _, st := range statuses {
		branches = append(branches, "("+page(" AND "+statusIs(st)+f.condition(arg))+")")
	}
	inner := fmt.Sprintf(queueMergeOffsetSQL, strings.Join(branches, " UNION ALL "), orderBy, arg(f.Offset), arg(f.PageSize+1))
	return fmt.Sprintf(queueRowsSQL, inner, orderBy)
}

func scanQueueRow(r pgx.CollectableRow) (QueueRow, error) {
	var x QueueRow
	var payable, base *string
	var separate *bool
	var rules []byte
	err := r.Scan(&x.ID, &x.Status, &x.DocType, &x.Supplier, &x.Number, &x.SourceRef, &payable, &x.Currency, &base, &x.BaseCurrency,
		&x.FlagReason, &x.DuplicateOf, &x.ReceivedAt, &x.IssueDate, &x.DueDate, &x.GroupSize, &x.GroupAccepts, &x.Version, &x.Versions, &x.Reversed,
		&x.Approvals, &separate, &rules)
	if err != nil {
		return x, err
	}
	x.Payable, x.PayableBase = decimalOrNil(payable), decimalOrNil(base)
	if x.Status == intake.Pending || x.Status == intake.Flagged {
		policy, err := org.ScanApprovalPolicy(separate, rules)
		if err != nil {
			return x, err
		}
		x.ApprovalsRequired = policy.Required(x.PayableBase)
	}
	return x, nil
}

// decimalOrNil reads a numeric sent as text, nil for NULL.
func decimalOrNil(s *string) *decimal.Decimal {
	if s == nil {
		return nil
	}
	v, err := decimal.NewFromString(*s)
	if err != nil {
		return nil
	}
	return &v
}

// queueCursors gives the cursors of the pages beside list (newest first), 0 where there is none;
// more says the query found a row beyond the page.
func queueCursors(list []QueueRow, f QueueFilter, more bool) (older, newer int64) {
	if len(list) == 0 {
		return 0, 0
	}
	first, last := list[0].ID, list[len(list)-1].ID
	switch {
	case f.After > 0: // paging towards newer rows; the cursor's row is older
		older = last
		if more {
			newer = first
		}
	case f.Before > 0: // paging towards older rows; the cursor's row is newer
		newer = first
		if more {
			older = last
		}
	default:
		if more {
			older = last
		}
	}
	return older, newer
}

// countCap is where the desk stops counting a status: counting every row
// of a large org on each page load would cost more than the page.
const countCap = 1000

// TabCount is how many rows a tab holds; More says there are more than N.
type TabCount struct {
	N    int
	More bool
}

// String is the count as the desk shows it: "12", or "1000+".
func (c TabCount) String() string {
	if c.More {
		return fmt.Sprintf("%d+", c.N)
	}
	return fmt.Sprint(c.N)
}

// TabCounts counts the rows of each of the desk's tabs, as Queue does;
// the Mine tab's are those approver may approve.
func TabCounts(ctx context.Context, q database.Executor, orgID int64, approver string) (map[Tab]TabCount, error) {
	return tabCounts(ctx, q, orgID, approver)
}

// tabCounts counts, in one statement, each status up to countCap rows (an
// index-only scan of at most that many entries each), the posted documents
// whose entry was reversed (from the reversals, few, in the partial index
// journal_entries_reverses_idx, each one's document found by its source
// key), and the documents approver may approve among at most countCap of
// each status of the Mine tab; and adds them up by tab.
func tabCounts(ctx context.Context, q database.Executor, orgID int64, approver string) (map[Tab]TabCount, error) {
	rows, err := q.Query(ctx, tabCountsSQL, orgID, countCap, TabAll.statuses(), approver, TabMine.statuses())
	if err != nil {
		return nil, fmt.Errorf("desk: counts: %w", err)
	}
	defer rows.Close()
	by := map[string]int{}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			return nil, fmt.Errorf("desk: counts: %w", err)
		}
		by[s] = n
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("desk: counts: %w", err)
	}
	reversed := by[countReversed]
	counts := map[Tab]TabCount{}
	for _, t := range Tabs {
		var c TabCount
		for _, s := range t.statuses() {
			c.N += by[s]
			c.More = c.More || by[s] >= countCap
		}
		switch t {
		case TabPosted:
			c.N = max(c.N-reversed, 0)
		case TabReversed:
			c = TabCount{N: reversed, More: reversed >= countCap}
		case TabMine:
			// Counted among the newest countCap rows of each status: past
			// them, there may be more.
			c.N = by[countMine]
		}
		counts[t] = c
	}
	return counts, nil
}
