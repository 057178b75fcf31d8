package jobs

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/org"
	"greatbook/internal/queue"
	"greatbook/internal/storable"
)

// DeadLetterFilter selects dead letters: abandoned jobs and failed
// launches. Empty fields do not filter.
type DeadLetterFilter struct {
	Status     string // "abandoned", "failed"; empty: both
	ErrorClass string // "transient", "permanent"
	Supplier   string // substring of the supplier's name
	From, To   string // YYYY-MM-DD, the job's last change
}

// DeadLetter is a job that needs an operator, with its document and the
// slug of its org (an instance operator lists every org's).
type DeadLetter struct {
	Job
	Supplier string
	Number   string
	Org      string
}

// where is the filter's conditions on the jobs j, and their arguments: a
// supplier's text found through the dead letters' trigram index, every
// match at once (a dry run, a bulk retry).
func (f DeadLetterFilter) where(scope org.Scope) (string, []any, error) {
	return f.conditions(scope, func(arg func(any) string) string {
		return fmt.Sprintf(supplierMatchesSQL, arg(f.supplierPattern()))
	})
}

// named is where with the supplier's names found (findSupplierNames): a
// page or a count reads the dead letters by those names, or walks them in
// order testing each one's name when many names contain the text.
func (f DeadLetterFilter) named(scope org.Scope, names supplierNames) (string, []any, error) {
	return f.conditions(scope, func(arg func(any) string) string {
		switch {
		case names.many:
			return fmt.Sprintf(supplierContainsSQL, arg(f.supplierText()))
		case len(names.keys) == 0:
			return "false"
		}
		return fmt.Sprintf(supplierNamedSQL, arg(names.keys), arg(f.supplierText()))
	})
}

// conditions is where with the supplier's condition the function gives
// (given its arguments' placeholder), or none when it is nil (a page read
// by the names' keys tests them itself).
func (f DeadLetterFilter) conditions(scope org.Scope, supplier func(arg func(any) string) string) (string, []any, error) {
	var args []any
	where := []string{scope.Where("j.org_id", &args)}
	arg := func(v any) string { args = append(args, v); return fmt.Sprintf("$%d", len(args)) }
	switch f.Status {
	case "":
		where = append(where, deadLetterStatusesSQL)
	// A literal: a generic plan then knows the rows are in the dead
	// letters' partial indexes.
	case "abandoned":
		where = append(where, "j.status = 'abandoned'")
	case "failed":
		where = append(where, "j.status = 'failed'")
	default:
		return "", nil, apperr.New(apperr.Invalid, "status must be abandoned or failed")
	}
	switch f.ErrorClass {
	case "":
	case "transient", "permanent":
		where = append(where, "j.error_class = "+arg(f.ErrorClass))
	default:
		return "", nil, apperr.New(apperr.Invalid, "class must be transient or permanent")
	}
	if err := storable.CheckParameters(storable.Param{Name: "supplier", Value: f.Supplier, Max: 1000}); err != nil {
		return "", nil, err
	}
	if f.hasSupplier() && supplier != nil {
		where = append(where, supplier(arg))
	}
	days, err := database.DayRange("j.updated_at", f.From, f.To, arg)
	if err != nil {
		return "", nil, err
	}
	where = append(where, days...)
	return strings.Join(where, " AND "), args, nil
}

// validate refuses a filter no statement can be built from, before its
// supplier's names are looked up.
func (f DeadLetterFilter) validate() error {
	_, _, err := f.conditions(org.AllOrgs(), nil)
	return err
}

// hasSupplier is true of a filter by the supplier's name.
func (f DeadLetterFilter) hasSupplier() bool { return strings.TrimSpace(f.Supplier) != "" }

// supplierText is the filter's text. The statements lower-case it with the
// database's lower(), as the dead letters and the names keep a name: Go's
// and the database's differ past ASCII.
func (f DeadLetterFilter) supplierText() string { return strings.TrimSpace(f.Supplier) }

// supplierPattern is the LIKE pattern of the names containing the
// filter's text (to be lower-cased).
func (f DeadLetterFilter) supplierPattern() string {
	return "%" + database.LikeEscape(f.supplierText()) + "%"
}

// maxSupplierNames is how many supplier names a page of dead letters is
// read by, each name's newest first: when more contain the filter's text,
// they are common enough that walking the dead letters in the page's
// order finds a page soon.
const maxSupplierNames = 200

// supplierNames is what a filter's text found among the supplier names of
// a scope's orgs: each name's org and key (the md5 of the lower-cased
// name, as jobs.supplier_key holds it), or many when more than
// maxSupplierNames do.
type supplierNames struct {
	orgs []int64
	keys []string
	many bool
}

// findSupplierNames reads the names of a scope's suppliers containing the
// filter's text (none without a supplier filter).
func findSupplierNames(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter) (supplierNames, error) {
	var names supplierNames
	if !f.hasSupplier() {
		return names, nil
	}
	var args []any
	where := scope.Where("org_id", &args)
	args = append(args, f.supplierPattern(), maxSupplierNames+1)
	rows, err := q.Query(ctx, fmt.Sprintf(supplierNamesSQL, where, len(args)-1, len(args)), args...)
	if err != nil {
		return names, fmt.Errorf("jobs: supplier names: %w", err)
	}
	var (
		orgID int64
		key   string
	)
	_, err = pgx.ForEachRow(rows, []any{&orgID, &key}, func() error {
		names.orgs, names.keys = append(names.orgs, orgID), append(names.keys, key)
		return nil
	})
	if err != nil {
		return names, fmt.Errorf("jobs: supplier names: %w", err)
	}
	if len(names.keys) > maxSupplierNames {
		return supplierNames{many: true}, nil
	}
	return names, nil
}

// byName is true of names a page is read by: a few found.
func (n supplierNames) byName() bool { return !n.many && len(n.keys) > 0 }

// DeadLetters lists the first page of an org's dead letters, the most
// recently failed first. Dead letters are never pruned.
func DeadLetters(ctx context.Context, q database.Executor, orgID int64, f DeadLetterFilter) ([]DeadLetter, error) {
	page, err := DeadLettersIn(ctx, q, org.Only(orgID), f, DeadLetterCursor{})
	return page.Letters, err
}

// DeadLetterPage is how many dead letters a page lists.
const DeadLetterPage = 50

// DeadLetterCursor is where a page of dead letters starts: after the dead
// letter that ended the page before, in the page's order (last change,
// then id, newest first). The zero cursor starts at the newest. In one
// org's dead letters read in the index's order (no supplier filter), a
// page read by its cursor costs the same however many came before it.
type DeadLetterCursor struct {
	UpdatedAt time.Time
	ID        int64
}

// IsZero is true of the first page's cursor.
func (c DeadLetterCursor) IsZero() bool { return c.ID == 0 }

// String is the cursor as a link carries it: the microseconds since the
// epoch of the last change, a dash, and the id; "" for the first page.
func (c DeadLetterCursor) String() string {
	if c.IsZero() {
		return ""
	}
	return fmt.Sprintf("%d-%d", c.UpdatedAt.UnixMicro(), c.ID)
}

// maxCursorMicros is the start of the year 10000: no page's cursor is later.
const maxCursorMicros = 253402300800_000000

// ParseDeadLetterCursor reads a cursor String wrote ("" is the first page).
func ParseDeadLetterCursor(s string) (DeadLetterCursor, error) {
	if s == "" {
		return DeadLetterCursor{}, nil
	}
	at, id, ok := strings.Cut(s, "-")
	micros, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(id, 10, 64)
	if !ok || strings.ContainsAny(s, "+ ") || err1 != nil || err2 != nil || micros < 0 || micros >= maxCursorMicros || n <= 0 {
		return DeadLetterCursor{}, apperr.New(apperr.Invalid, "after must be a page's position, as the page's own link gives it").
			With("reasons", []map[string]string{{"field": "after", "message": "is not a page's position"}})
	}
	return DeadLetterCursor{UpdatedAt: time.UnixMicro(micros).UTC(), ID: n}, nil
}

// DeadLetterList is a page of dead letters.
type DeadLetterList struct {
	Letters []DeadLetter
	// Next starts the page after this one; zero on the last page.
	Next DeadLetterCursor
	// Matches is how many dead letters the filter matches in all, counted
	// up to DeadLetterCountMax+1, where the page counted them as it read
	// them (a supplier's filter, by the few names it found); -1 where not.
	Matches int
}

// DeadLettersIn lists a page of the dead letters of a scope (an
// operator's: every org's) a filter matches, the most recently failed
// first: at most DeadLetterPage, starting after the cursor.
func DeadLettersIn(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter, after DeadLetterCursor) (DeadLetterList, error) {
	list, matches, err := deadLetters(ctx, q, scope, f, after, DeadLetterPage+1)
	if err != nil || len(list) <= DeadLetterPage {
		return DeadLetterList{Letters: list, Matches: matches}, err
	}
	list = list[:DeadLetterPage]
	last := list[len(list)-1]
	return DeadLetterList{Letters: list, Next: DeadLetterCursor{UpdatedAt: last.UpdatedAt, ID: last.ID}, Matches: matches}, nil
}

// deadLettersQuery is the statement that lists up to limit dead letters
// after a cursor (every one when limit is 0), and its arguments. A page
// of a supplier's is read by the names found (when a few are), and counts
// the filter's matches, up to DeadLetterCountMax+1, as it goes.
func deadLettersQuery(scope org.Scope, f DeadLetterFilter, names supplierNames, after DeadLetterCursor, limit int) (string, []any, error) {
	byName := limit > 0 && f.hasSupplier() && names.byName()
	var (
		where string
		args  []any
		err   error
	)
	switch {
	case byName:
		where, args, err = f.conditions(scope, nil)
	case limit > 0:
		where, args, err = f.named(scope, names)
	default:
		where, args, err = f.where(scope)
	}
	if err != nil {
		return "", nil, err
	}
	cursor := ""
	if !after.IsZero() {
		args = append(args, after.UpdatedAt, after.ID)
		cursor = fmt.Sprintf(afterCursorSQL, len(args)-1, len(args))
	}
	if byName {
		args = append(args, names.orgs, names.keys, f.supplierText())
		n := len(args)
		return fmt.Sprintf(deadLettersByNameSQL, n-2, n-1, where, cursor, limit, n, DeadLetterCountMax+1), args, nil
	}
	page := ""
	if limit > 0 {
		page = fmt.Sprintf(limitSQL, limit)
	}
	return fmt.Sprintf(deadLettersSQL, fmt.Sprintf(deadLettersWalkSQL, where+cursor), page), args, nil
}

// DeadLetterCountMax is how far a supplier's page of dead letters counts
// the filter's matches: DeadLetterList.Matches is at most one more.
const DeadLetterCountMax = 1000

// deadLetters lists up to limit dead letters after a cursor (every one
// when limit is 0), and how many match in all (up to DeadLetterCountMax+1)
// where the page counted them (-1 where not).
func deadLetters(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter, after DeadLetterCursor, limit int) ([]DeadLetter, int, error) {
	if err := f.validate(); err != nil {
		return nil, 0, err
	}
	var names supplierNames
	if limit > 0 {
		var err error
		if names, err = findSupplierNames(ctx, q, scope, f); err != nil {
			return nil, 0, err
		}
		if f.hasSupplier() && !names.many && len(names.keys) == 0 {
			return nil, 0, nil // no supplier's name contains the text
		}
	}
	sql, args, err := deadLettersQuery(scope, f, names, after, limit)
	if err != nil {
		return nil, 0, err
	}
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, 0, fmt.Errorf("jobs: dead letters: %w", err)
	}
	matches := int64(-1)
	list, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (DeadLetter, error) {
		var dl DeadLetter
		j := &dl.Job
		err := r.Scan(&j.ID, &j.OrgID, &j.IntakeID, &j.Status, &j.Attempts, &j.MaxAttempts, &j.LastError, &j.ErrorClass,
			&j.RunID, &j.LaunchedAt, &j.NextAttemptAt, &j.CreatedBy, &j.CreatedAt, &j.UpdatedAt, &dl.Supplier, &dl.Number, &dl.Org, &matches)
		return dl, err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("jobs: dead letters: %w", err)
	}
	if limit > 0 && names.byName() && len(list) == 0 && after.IsZero() {
		matches = 0 // no match at all; past a cursor, the matches before it are not counted
	}
	return list, int(matches), nil
}

// Attempt is one launch attempt of a job, or the failure of its run.
type Attempt struct {
	Attempt    int
	Trigger    string
	Actor      string
	Outcome    string
	Error      string
	ErrorClass string
	RunID      string
	At         time.Time
}

// HistoryIn returns a job in a scope (an operator's: any org's) with
// every attempt, oldest first.
func HistoryIn(ctx context.Context, q database.Executor, scope org.Scope, jobID int64) (Job, []Attempt, error) {
	job, err := jobIn(ctx, q, scope, jobID)
	if err != nil {
		return Job{}, nil, err
	}
	rows, err := q.Query(ctx, jobAttemptsSQL, jobID)
	if err != nil {
		return job, nil, fmt.Errorf("jobs: job history: %w", err)
	}
	attempts, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Attempt, error) {
		var a Attempt
		err := r.Scan(&a.Attempt, &a.Trigger, &a.Actor, &a.Outcome, &a.Error, &a.ErrorClass, &a.RunID, &a.At)
		return a, err
	})
	return job, attempts, err
}

// BulkRetry is the outcome of retrying every dead letter a filter matches.
type BulkRetry struct {
	Matched  int
	Launched int
	Failed   []LaunchOutcome
	Skipped  int // launched meanwhile by someone else
}

// CountDeadLettersUpTo counts the dead letters of a scope up to limit: the
// nav's badge, read on every admin page, reads at most limit index entries
// however many dead letters have gathered.
func CountDeadLettersUpTo(ctx context.Context, q database.Executor, scope org.Scope, limit int) (int, error) {
	return CountMatchingUpTo(ctx, q, scope, DeadLetterFilter{}, limit)
}

// CountMatchingUpTo counts the dead letters of a scope a filter matches,
// up to limit: the dead-letter page's "of N", bounded like the badge (a
// supplier's by the names its text finds, as its page reads them).
func CountMatchingUpTo(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter, limit int) (int, error) {
	if err := f.validate(); err != nil {
		return 0, err
	}
	names, err := findSupplierNames(ctx, q, scope, f)
	if err != nil {
		return 0, err
	}
	sql, args, err := countMatchingUpToQuery(scope, f, names, limit)
	if err != nil {
		return 0, err
	}
	var n int
	err = q.QueryRow(ctx, sql, args...).Scan(&n)
	return n, err
}

// countMatchingUpToQuery is CountMatchingUpTo's statement and arguments.
func countMatchingUpToQuery(scope org.Scope, f DeadLetterFilter, names supplierNames, limit int) (string, []any, error) {
	where, args, err := f.named(scope, names)
	return fmt.Sprintf(countDeadLettersUpToSQL, where, limit), args, err
}

// DryRun is what a bulk retry would retry: how many dead letters a filter
// matches, and a digest of which (Set). The confirmation brings both back,
// and RetryMatching retries only if the filter still matches that very set.
type DryRun = queue.DryRun

// DryRunRetry is the dry run of RetryMatching.
func DryRunRetry(ctx context.Context, q database.Executor, orgID int64, f DeadLetterFilter) (DryRun, error) {
	return DryRunRetryIn(ctx, q, org.Only(orgID), f)
}

// DryRunRetryIn is the dry run of RetryMatchingIn.
func DryRunRetryIn(ctx context.Context, q database.Executor, scope org.Scope, f DeadLetterFilter) (DryRun, error) {
	where, args, err := f.where(scope)
	if err != nil {
		return DryRun{}, err
	}
	rows, err := q.Query(ctx, fmt.Sprintf(dryRunSQL, where), args...)
	if err != nil {
		return DryRun{}, fmt.Errorf("jobs: dry run: %w", err)
	}
	jobs, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Job, error) {
		var j Job
		err := r.Scan(&j.ID, &j.Attempts)
		return j, err
	})
	if err != nil {
		return DryRun{}, fmt.Errorf("jobs: dry run: %w", err)
	}
	return dryRunOf(jobs), nil
}

// dryRunOf is the count and digest of a set of jobs, in any order. A job's
// round is its attempts: a job someone else retried, which failed again and
// matches once more, is not the dead letter counted.
func dryRunOf(jobs []Job) DryRun {
	entries := make([]queue.Entry, len(jobs))
	for i, j := range jobs {
		entries[i] = queue.Entry{Key: j.ID, Round: j.Attempts}
	}
	return queue.DryRunOf(entries)
}

// RetryMatching retries every dead letter a filter matches, with a reason,
// provided they are still the very set the operator saw in the dry run (not
// only as many: someone else's retry and a new dead letter would leave the
// count alone). Each retry is audited with the actor like a single one.
func (o *Outbox) RetryMatching(ctx context.Context, orgID int64, f DeadLetterFilter, reason string, confirmed DryRun, actor audit.Actor) (BulkRetry, error) {
	return o.RetryMatchingIn(ctx, org.Only(orgID), f, reason, confirmed, actor)
}

// RetryMatchingIn is RetryMatching over a scope (an operator's: every
// org's); each letter is retried in its own org.
func (o *Outbox) RetryMatchingIn(ctx context.Context, scope org.Scope, f DeadLetterFilter, reason string, confirmed DryRun, actor audit.Actor) (BulkRetry, error) {
	if err := audit.CheckReason(reason); err != nil {
		return BulkRetry{}, err
	}
	// Once confirmed, the retries go ahead even if the operator's request
	// goes away (each launch is bounded by its own timeout).
	ctx = context.WithoutCancel(ctx)
	list, _, err := deadLetters(ctx, o.Pool, scope, f, DeadLetterCursor{}, 0)
	if err != nil {
		return BulkRetry{}, err
	}
	res := BulkRetry{Matched: len(list)}
	jobs := make([]Job, 0, len(list))
	for _, dl := range list {
		jobs = append(jobs, dl.Job)
	}
	if err := jobQueue.Confirm(confirmed, dryRunOf(jobs)); err != nil {
		return res, err
	}
	if err := audit.Record(ctx, o.Pool, audit.Event{OrgID: scope.OrgID(), Actor: actor, Action: "bulk_retry",
		Detail: map[string]any{"reason": reason, "matched": len(list), "filter": f}}); err != nil {
		return res, err
	}
	return res, o.retryEach(ctx, jobs, reason, actor, &res)
}

// retryEach retries jobs one by one, each as a single retry in its own
// org does (its own transaction, its tenancy and state checks), counting
// into res: a job no longer retryable is skipped; any other error stops the
// loop.
func (o *Outbox) retryEach(ctx context.Context, jobs []Job, reason string, actor audit.Actor, res *BulkRetry) error {
	for _, j := range jobs {
		out, err := o.Retry(ctx, j.OrgID, j.ID, reason, actor)
		switch {
		case apperr.Is(err, apperr.InvalidState):
			res.Skipped++
		case err != nil:
			return err
		case out.Outcome == "launched":
			res.Launched++
		default:
			res.Failed = append(res.Failed, out)
		}
	}
	return nil
}

// MaxSelected is how many dead letters one "retry selected" may name: a
// bound on the form, well above a page's DeadLetterPage.
const MaxSelected = 500

// RetrySelected retries the dead letters an operator ticked, with a reason.
// Every id must be one of the org's jobs, or nothing is retried: an id of
// another org's job (or of none) is not_found, naming it, as a single retry
// answers. The selection is audited once (bulk_retry with the
// ids), and each job is then retried in its own transaction like a single
// retry; one launched meanwhile by someone else is counted as skipped.
func (o *Outbox) RetrySelected(ctx context.Context, orgID int64, jobIDs []int64, reason string, actor audit.Actor) (BulkRetry, error) {
	return o.RetrySelectedIn(ctx, org.Only(orgID), jobIDs, reason, actor)
}

// RetrySelectedIn is RetrySelected over a scope (an operator's: every
// org's); each job is retried in its own org.
func (o *Outbox) RetrySelectedIn(ctx context.Context, scope org.Scope, jobIDs []int64, reason string, actor audit.Actor) (BulkRetry, error) {
	if err := audit.CheckReason(reason); err != nil {
		return BulkRetry{}, err
	}
	ids := slices.Clone(jobIDs)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	switch {
	case len(ids) == 0:
		return BulkRetry{}, apperr.New(apperr.Invalid, "select at least one dead letter to retry").
			With("reasons", []map[string]string{{"field": "job", "message": "is required"}})
	case len(ids) > MaxSelected:
		return BulkRetry{}, apperr.New(apperr.Invalid, "at most %d dead letters can be retried at once, not %d", MaxSelected, len(ids))
	}
	args := []any{ids}
	rows, err := o.Pool.Query(ctx, fmt.Sprintf(selectedJobsSQL, scope.Where("org_id", &args)), args...)
	if err != nil {
		return BulkRetry{}, fmt.Errorf("jobs: retry selected: %w", err)
	}
	found, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Job, error) {
		var j Job
		err := r.Scan(&j.ID, &j.OrgID)
		return j, err
	})
	if err != nil {
		return BulkRetry{}, fmt.Errorf("jobs: retry selected: %w", err)
	}
	if len(found) != len(ids) {
		for _, id := range ids {
			if !slices.ContainsFunc(found, func(j Job) bool { return j.ID == id }) {
				return BulkRetry{}, apperr.New(apperr.NotFound, "no job %d; nothing was retried", id)
			}
		}
	}
	// Once confirmed, the retries go ahead even if the operator's request
	// goes away (each launch is bounded by its own timeout).
	ctx = context.WithoutCancel(ctx)
	if err := audit.Record(ctx, o.Pool, audit.Event{OrgID: scope.OrgID(), Actor: actor, Action: "bulk_retry",
		Detail: map[string]any{"reason": reason, "matched": len(ids), "jobs": ids}}); err != nil {
		return BulkRetry{}, err
	}
	res := BulkRetry{Matched: len(ids)}
	return res, o.retryEach(ctx, found, reason, actor, &res)
}

// jobIn returns a job in a scope; a job outside it is not found.
func jobIn(ctx context.Context, q database.Executor, scope org.Scope, jobID int64) (Job, error) {
	if scope.All() {
		return GetAnyOrg(ctx, q, jobID)
	}
	return Get(ctx, q, scope.OrgID(), jobID)
}
