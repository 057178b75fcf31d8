package desk

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apchecks"
	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/org"
	"greatbook/internal/review"
	"greatbook/internal/storable"
)

// Listing bounds: a page holds DefaultListLimit documents unless the caller
// asks for up to MaxListLimit.
const (
	DefaultListLimit = 50
	MaxListLimit     = 200
)

// ListFilter selects an org's documents for the API's listing, newest
// first. Empty fields do not filter.
type ListFilter struct {
	Status     intake.Status
	FlagReason string
	// Supplier is a seller identity as source_ref begins with it
	// ("vat:SE556677889901") or a seller VAT id ("SE 5566-77889901"),
	// normalised the way the pipeline builds source_ref.
	Supplier string
	// Query is the desk's search: supplier name (substring), number
	// (prefix), amount payable (exact).
	Query string
	// ReceivedAfter keeps documents received strictly after it.
	ReceivedAfter time.Time
	// Before is the keyset position: only ids below it (0: from the newest).
	Before int64
	Limit  int
}

// ListPage is one page of a listing with everything the API shows of each
// document, read in a fixed number of queries however long the page.
type ListPage struct {
	Documents []intake.Document
	Groups    map[int64][]review.Member
	Jobs      map[int64]jobs.Job
	Findings  map[int64][]einvoice.Finding
	// Next is the keyset position of the following page (the last id of
	// this one), 0 when this page is the last.
	Next int64
}

// List reads one page of an org's documents under f, newest first (by id,
// which is unique and never reused, so the order is stable): one query for
// the page, one for all its duplicate groups, one for all its jobs, and
// the org once for the AP checks. Documents arriving while a client pages
// get higher ids and never shift the pages after its cursor.
func List(ctx context.Context, q database.Executor, orgID int64, f ListFilter) (ListPage, error) {
	if err := f.check(); err != nil {
		return ListPage{}, err
	}
	limit := f.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	s, err := findSupplierNames(ctx, q, orgID, f.Query)
	if err != nil {
		return ListPage{}, err
	}
	sql, args := listQuery(orgID, f, s, limit)
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return ListPage{}, fmt.Errorf("desk: list: %w", err)
	}
	docs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (intake.Document, error) { return intake.ScanDocument(r) })
	if err != nil {
		return ListPage{}, fmt.Errorf("desk: list: %w", err)
	}
	page := ListPage{Documents: docs}
	if len(docs) > limit {
		page.Documents = docs[:limit]
		page.Next = page.Documents[limit-1].ID
	}
	if len(page.Documents) == 0 {
		return page, nil
	}
	ids := make([]int64, len(page.Documents))
	for i, d := range page.Documents {
		ids[i] = d.ID
	}
	if page.Groups, err = review.Groups(ctx, q, orgID, ids); err != nil {
		return ListPage{}, err
	}
	if page.Jobs, err = jobs.ForDocuments(ctx, q, orgID, ids); err != nil {
		return ListPage{}, err
	}
	o, err := org.ByID(ctx, q, orgID)
	if err != nil {
		return ListPage{}, err
	}
	if page.Findings, err = pageFindings(ctx, q, o, page.Documents); err != nil {
		return ListPage{}, err
	}
	return page, nil
}

// listQuery is the statement of a page of the listing under f, limit rows
// and one more (to tell whether a next page exists), and its arguments; s
// is what its search found among the supplier names.
func listQuery(orgID int64, f ListFilter, s supplierSearch, limit int) (string, []any) {
	where, search, arg, argsOf := queueConditions(orgID, QueueFilter{Query: f.Query, FlagReason: f.FlagReason}, s)
	if f.Status != "" {
		where = append(where, "d.status = "+arg(string(f.Status)))
	}
	if s := strings.TrimSpace(f.Supplier); s != "" {
		identities := []string{s}
		if vat, ok := (einvoice.Document{Seller: einvoice.Party{VATID: s}}).SellerIdentity(); ok {
			identities = append(identities, vat)
		}
		where = append(where, "split_part(d.source_ref, '/', 1) = ANY("+arg(identities)+"::text[])")
	}
	if !f.ReceivedAfter.IsZero() {
		where = append(where, "d.received_at > "+arg(f.ReceivedAfter))
	}
	if f.Before > 0 {
		where = append(where, "d.id < "+arg(f.Before))
	}
	var sql string
	if search.keys != "" {
		// A search whose text few supplier names contain: each name's
		// newest rows and each other term's, merged (searchPage).
		limitArg := arg(limit + 1)
		sql = fmt.Sprintf(listMergeSQL, searchPage(strings.Join(where, " AND "), search, "DESC", limitArg), limitArg)
		return sql, argsOf()
	}
	if search.like != "" {
		where = append(where, search.any())
	}
	if f.Status == "" && strings.TrimSpace(f.Supplier) == "" && strings.TrimSpace(f.Query) == "" {
		// Every status, newest first: one ordered scan of (org_id, status,
		// id) per status, merged, as the desk's All tab reads (a search
		// or a supplier has indexes of its own).
		limitArg := arg(limit + 1)
		branches := make([]string, len(intake.Statuses))
		for i, st := range intake.Statuses {
			branches[i] = "(" + fmt.Sprintf(listPageSQL, strings.Join(append(where, statusIs(string(st))), " AND "), limitArg) + ")"
		}
		sql = fmt.Sprintf(listMergeSQL, strings.Join(branches, " UNION ALL "), limitArg)
	} else {
		sql = fmt.Sprintf(listSQL, strings.Join(where, " AND "), arg(limit+1))
	}
	return sql, argsOf()
}

// pageFindings are Findings of every document of a page: the bank check's
// previous accounts read for all of them in one query.
func pageFindings(ctx context.Context, q database.Executor, o org.Org, docs []intake.Document) (map[int64][]einvoice.Finding, error) {
	inputs := make(map[int64]apchecks.Input, len(docs))
	wanted := map[int64]string{}
	for _, d := range docs {
		in, needsPrevious, ok := payableInput(d, o)
		if !ok {
			continue
		}
		inputs[d.ID] = in
		if needsPrevious {
			wanted[d.ID] = d.SourceRef
		}
	}
	previous, err := apchecks.PreviousAccountsMany(ctx, q, o.ID, wanted)
	if err != nil {
		return nil, err
	}
	out := make(map[int64][]einvoice.Finding, len(docs))
	for _, d := range docs {
		var ap apchecks.Report
		if in, ok := inputs[d.ID]; ok {
			in.Previous = previous[d.ID]
			ap = apchecks.Check(in)
		}
		if out[d.ID], err = withFiled(d, ap); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// check refuses a filter no stored document could match because it names
// something that does not exist, saying which parameter (as the API names
// it) was wrong.
func (f ListFilter) check() error {
	if err := storable.CheckParameters(storable.Param{Name: "q", Value: f.Query, Max: 1000},
		storable.Param{Name: "supplier", Value: f.Supplier, Max: storable.MaxText},
		storable.Param{Name: "flag_reason", Value: f.FlagReason, Max: 1000}); err != nil {
		return err
	}
	switch {
	case f.Status != "" && !slices.Contains(intake.Statuses, f.Status):
		return invalidParameter("status", fmt.Sprintf("must be one of %s", joinStatuses()))
	case f.FlagReason != "" && !slices.Contains(intake.FlagReasons, f.FlagReason):
		return invalidParameter("flag_reason", "must be one of "+strings.Join(intake.FlagReasons, ", "))
	case f.Limit < 0 || f.Limit > MaxListLimit:
		return invalidParameter("limit", fmt.Sprintf("must be between 1 and %d", MaxListLimit))
	case f.Before < 0:
		return invalidParameter("cursor", "is not a cursor this listing gave")
	}
	return nil
}

func joinStatuses() string {
	s := make([]string, len(intake.Statuses))
	for i, st := range intake.Statuses {
		s[i] = string(st)
	}
	return strings.Join(s, ", ")
}

// invalidParameter is the 422 for a query parameter, named in the message
// and in the "parameter" detail.
func invalidParameter(name, problem string) error {
	return apperr.New(apperr.Invalid, "the parameter %s %s", name, problem).With("parameter", name)
}
