// Package queue is greatbook's one queue of background work: a table of
// items that workers claim, hold under a lease, try again after a backoff,
// bury as dead letters, and that an operator revives, one or many at a
// time. It serves any table a Table describes (its name, its columns, its
// statuses); its SQL is written once, in this package, as named statements
// that New renders for the table.
//
// The rules, the same for every table:
//
//   - Claim. A worker takes the next due item in a ready status with
//     attempts left, under FOR UPDATE SKIP LOCKED: two workers never take the
//     same item, and neither waits for the other. The claim counts the
//     attempt before the work, so a worker killed in the middle spends it
//     and an item that kills its worker is not tried for ever.
//   - Lease. What a claim holds is held until a lease ends: past it, a worker
//     that died no longer holds it and another takes it. The lease is kept
//     on the item (its Lease columns, renewed while the work lasts), on the
//     item's lane (one item at a time per lane; lanes take turns), or, for a
//     table with neither, in the item's due time, which the claim pushes past
//     the lease.
//   - Backoff and dead letters (Decide). A failure that may pass, with
//     attempts left, makes the item due again after the backoff of a
//     retry.Policy (which honours a Retry-After); a permanent failure, or
//     the last attempt, makes it a dead letter. A lane whose item failed
//     transiently rests for that backoff with all its items: they would
//     meet the same outage.
//   - A dead letter is never claimed and never swept: only an operator's
//     word revives it (Revive, ReviveMatching), as a fresh round of attempts.
//   - A bulk retry revives only the very set the operator counted: the dry
//     run's count and a digest of (item, round) pairs, checked again under
//     the rows' locks.
//   - Stranded work is work nothing will pick up by itself: a ready item out
//     of attempts (Spent; the sweep buries the ones no attempt is still
//     making, BurySpent), and a ready item whose lease lapsed long ago
//     (Lapsed: no worker runs).
//
// Who uses what. Webhook deliveries use all of it: their endpoints are the
// lanes. The runs engine uses the lease (Take, TakeOver, Renew, Release,
// Unheld, Free, Held) and Decide, and not the claim, the per-item backoff
// or the revive, because a run is not a row that is tried again but a
// program that resumes: a run is handed to a worker by its id (a launch,
// with back-pressure on whoever launches, or the resume pass) rather than
// claimed as the next due row; its retries happen inside one execution,
// which keeps its lease and the state it restored from the last checkpoint
// in memory while it waits out the backoff (the runs page counts it "in
// backoff", not stranded), so the table has no attempts or due columns to
// count; an operator's retry reopens a failed run at the node it failed
// at, with that checkpoint's state (runs.Reopen), which is not a status
// flip; and a paused run waits for a person's answer, which is neither
// ready nor dead. The approve outbox's jobs use the locks (LockSQL: the
// launch locks a job, the sweep skips one another launcher holds), the
// sweep's Due, Decide after a failed launch or run, DryRunOf and Confirm
// for a bulk retry, and Spent for the stranded check; the stranded check
// takes its lapsed runs from the runs' Lapsed. They use neither Claim and
// Record (a launch counts its attempt in the transaction that creates the
// run), nor Revive (an operator's retry launches at once), nor Matching
// (their dead-letter page lists failed jobs too), nor BurySpent (a spent
// job stays on the stranded page for an operator).
package queue

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// Table describes a table of work items to the queue: where it is and what
// its columns and statuses are called. Columns a table does not have stay
// empty; the statements that need them are then not rendered, and a method
// that would send one panics (a description is code, fixed at start-up).
type Table struct {
	// Name is the table; Alias is how the conditions a caller hands the
	// queue (an operator's filter) name it.
	Name, Alias string
	// Key is the primary key: a bigint, or KeyType (say "uuid"), to which
	// every key parameter is cast.
	Key, KeyType string
	// Org names the org an item belongs to.
	Org string
	// Status is the status column; an item is claimed in a Ready status,
	// and Done and Dead end its attempts (Dead: a dead letter).
	Status      string
	Ready       []string
	Done, Dead  string
	Attempts    string // counts the attempts
	MaxAttempts string // bounds each item's attempts; empty: the policy's Attempts bound every item
	DueAt       string // when the item is next due
	UpdatedAt   string
	LastError   string
	DoneAt      string // set when an item is done (optional)
	Revivals    string // counts an operator's revivals; a dry run's digest names an item's round by it, else by Attempts
	Order       string // the order of the resume pass (Unheld); DueAt when empty
	// Payload are the columns a claim returns besides the key and the
	// attempt (into Into.Item); Outcome the columns an attempt's outcome
	// writes besides its error (Record's outcome arguments, in order).
	Payload, Outcome  []string
	Item, DeadLetters string // what messages call one item and many dead letters
	Lease             *Lease
	Lane              *Lane
}

// Lease is a lease kept on the item itself: who holds it (NULL: no one)
// and until when.
type Lease struct {
	Holder, Until string
}

// Lane is a group of items worked on one at a time, whose row holds the
// lease: the item column Ref names its lane, the lane's Key. A lane takes
// items while Open (a boolean column) is true; Holder (text, empty when free)
// names the attempt that holds it, until Until, which after a transient
// failure also rests the lane; Turn is when it was last claimed (the least
// recently claimed goes first). Payload are the lane's columns a claim
// returns (into Into.Lane).
type Lane struct {
	Table, Key, Ref, Open, Holder, Until, Turn string
	Payload                                    []string
}

// Queue is a Table with its statements rendered.
type Queue struct {
	t   Table
	sql map[string]string
}

var (
	identifier = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)
	status     = regexp.MustCompile(`^[a-z_]+$`)
	unrendered = regexp.MustCompile(`\{[a-z_]+\}`)
)

// New renders the statements of t. It panics when t is malformed: a
// description is a constant of the code that serves the table.
func New(t Table) *Queue {
	names := []string{t.Name, t.Alias, t.Key, t.Org, t.Status, t.UpdatedAt}
	if t.Order == "" {
		t.Order = t.DueAt
	}
	opt := []string{t.KeyType, t.Done, t.Dead, t.Attempts, t.MaxAttempts, t.DueAt, t.LastError, t.DoneAt, t.Revivals, t.Order}
	opt = append(append(opt, t.Payload...), t.Outcome...)
	if t.Lease != nil {
		names = append(names, t.Lease.Holder, t.Lease.Until)
	}
	if t.Lane != nil {
		l := t.Lane
		names = append(names, l.Table, l.Key, l.Ref, l.Open, l.Holder, l.Until, l.Turn)
		opt = append(opt, l.Payload...)
	}
	for _, n := range names {
		if !identifier.MatchString(n) {
			panic(fmt.Sprintf("queue: table %q: %q is not a column or table name", t.Name, n))
		}
	}
	for _, n := range opt {
		if n != "" && !identifier.MatchString(n) {
			panic(fmt.Sprintf("queue: table %q: %q is not a column name", t.Name, n))
		}
	}
	if len(t.Ready) == 0 || t.Alias == "lane" {
		panic(fmt.Sprintf("queue: table %q: no ready status, or the alias the queue names lanes by", t.Name))
	}
	for _, s := range append(slices.Clone(t.Ready), t.Done, t.Dead) {
		if s != "" && !status.MatchString(s) {
			panic(fmt.Sprintf("queue: table %q: %q is not a status", t.Name, s))
		}
	}
	q := &Queue{t: t, sql: map[string]string{}}
	for name, tmpl := range statements {
		q.sql[name] = q.render(tmpl.sql, tmpl.outcomeFrom)
	}
	return q
}

// render fills a statement's placeholders: its fragments first, then the
// table's names. A statement that names a column the table lacks renders
// as "".
func (q *Queue) render(tmpl string, outcomeFrom int) string {
	t := q.t
	s := tmpl
	names := map[string]string{"due_now": dueNowSQL, "spent": spentSQL, "held": heldSQL, "free": freeSQL}
	set := func(placeholder, v string) {
		if v != "" {
			names[placeholder] = v
		}
	}
	quoted := make([]string, len(t.Ready))
	for i, r := range t.Ready {
		quoted[i] = "'" + r + "'"
	}
	set("table", t.Name)
	set("alias", t.Alias)
	set("key", t.Key)
	set("org", t.Org)
	set("status", t.Status)
	set("ready", strings.Join(quoted, ", "))
	set("ready_first", quoted[0])
	set("updated", t.UpdatedAt)
	set("attempts", t.Attempts)
	set("due", t.DueAt)
	set("error", t.LastError)
	set("order", t.Order)
	if t.Done != "" {
		set("done", "'"+t.Done+"'")
	}
	if t.Dead != "" {
		set("dead", "'"+t.Dead+"'")
	}
	// {max} bounds the attempts: the item's own bound, or else $2 in every
	// statement that names it.
	set("max", "$2::int")
	set("bound", "%s")
	if t.MaxAttempts != "" {
		set("max", t.Alias+"."+t.MaxAttempts)
		set("bound", t.Alias+"."+t.MaxAttempts)
	}
	set("round", t.Attempts)
	if t.Revivals != "" {
		set("round", t.Revivals)
		set("revivals", t.Revivals)
	}
	if l := t.Lease; l != nil {
		set("holder", l.Holder)
		set("until", l.Until)
	}
	if l := t.Lane; l != nil {
		set("lanes", l.Table)
		set("lane_key", l.Key)
		set("lane_ref", l.Ref)
		set("lane_open", l.Open)
		set("lane_holder", l.Holder)
		set("lane_until", l.Until)
		set("lane_turn", l.Turn)
	}
	// The optional parts, which may render as nothing.
	names["keycast"], names["done_at"], names["payload"], names["outcome"] = "", "", list(t.Payload), ""
	if t.KeyType != "" {
		names["keycast"] = "::" + t.KeyType
	}
	if t.DoneAt != "" {
		names["done_at"] = t.DoneAt + " = now(), "
	}
	var outcome strings.Builder
	for i, c := range t.Outcome {
		fmt.Fprintf(&outcome, ", %s = $%d", c, outcomeFrom+i)
	}
	names["outcome"] = outcome.String()
	names["lane_payload"], names["lane_free"], names["item_free"] = "", "", ""
	if t.Lane != nil {
		names["lane_payload"] = list(t.Lane.Payload)
		names["lane_free"] = laneFreeSQL
	}
	if t.Lease != nil {
		names["item_free"] = " AND " + freeSQL
	}
	// Fragments name placeholders too: replace until nothing changes.
	for {
		next := unrendered.ReplaceAllStringFunc(s, func(p string) string {
			if v, ok := names[p[1:len(p)-1]]; ok {
				return v
			}
			return p
		})
		if next == s {
			break
		}
		s = next
	}
	if unrendered.MatchString(s) {
		return "" // the table lacks a column this statement needs
	}
	return s
}

// list is columns as the tail of a select list: ", a, b".
func list(cols []string) string {
	if len(cols) == 0 {
		return ""
	}
	return ", " + strings.Join(cols, ", ")
}

// statement returns the rendered statement name, or panics when the table
// lacks what it needs.
func (q *Queue) statement(name string) string {
	s := q.sql[name]
	if s == "" {
		panic(fmt.Sprintf("queue: table %s has no columns for %s", q.t.Name, name))
	}
	return s
}
