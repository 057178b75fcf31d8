// Package bookkeeper posts approved documents to the ledger. Each approval's
// outbox job launches a durable bookkeeper run: it reads the document on its
// own connection, decides the expense account and, for a foreign currency,
// the rate — pausing with a question for a person when it cannot — and posts
// through the ledger with the source key (org, "intake", id, "bill"),
// marking the document posted in the same transaction. A re-run after a
// crash replays the post and writes nothing twice.
package bookkeeper

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/coding"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/jobs"
	"greatbook/internal/ledger"
	"greatbook/internal/money"
	"greatbook/internal/retry"
	"greatbook/internal/runs"
	"greatbook/internal/storable"
)

// Kind is the run kind of the bookkeeper.
const Kind = "bookkeeper"

// Question kinds.
const (
	AskExpenseAccount = "expense_account"
	AskExchangeRate   = "exchange_rate"
)

// State is a bookkeeper run's state.
type State struct {
	IntakeID     int64  `json:"intake_id"`
	JobID        int64  `json:"job_id"`
	Supplier     string `json:"supplier,omitempty"`
	SupplierName string `json:"supplier_name,omitempty"`
	Currency     string `json:"currency,omitempty"`
	BaseCurrency string `json:"base_currency,omitempty"`
	IssueDate    string `json:"issue_date,omitempty"`
	Account      string `json:"account,omitempty"`
	AccountFrom  string `json:"account_from,omitempty"`
	// ChosenBy, AccountSetBy and AccountSetAt say which rule chose the
	// account (recorded in account_choices when the bill is posted).
	ChosenBy     string     `json:"chosen_by,omitempty"`
	AccountSetBy string     `json:"account_set_by,omitempty"`
	AccountSetAt *time.Time `json:"account_set_at,omitempty"`
	Remembered   bool       `json:"remembered,omitempty"`
	Rate         string     `json:"rate,omitempty"`
	RateFrom     string     `json:"rate_from,omitempty"`
	// Coded says the document's coding covers it when load read it: the
	// entry posts by the coding and no expense account is chosen.
	Coded bool `json:"coded,omitempty"`
}

// AccountAnswer answers an expense_account question.
type AccountAnswer struct {
	Account  string `json:"account"`
	Remember bool   `json:"remember"`
	By       string `json:"by"`
}

// RateAnswer answers an exchange_rate question.
type RateAnswer struct {
	Rate     string `json:"rate"`
	Remember bool   `json:"remember"`
	By       string `json:"by"`
}

// Bookkeeper runs the bookkeeping of approved documents.
type Bookkeeper struct {
	// pool is concrete, not a database.Executor: the bookkeeper writes
	// conflict observations from goroutines it starts itself, each on its
	// own connection outside the post's transaction.
	pool   *pgxpool.Pool
	engine *runs.Engine
	log    *slog.Logger
	graph  runs.Graph[State]
	// RetryBackoff is how long, at most, the sweep waits before relaunching
	// a job whose run failed transiently: the queue's backoff jitters it
	// within its upper half, and a Retry-After the failure carries wins.
	RetryBackoff time.Duration
	// observers are the conflict observations still being written on
	// their own connections; Wait waits for them.
	observers sync.WaitGroup
}

// Wait blocks until every observation the bookkeeper started in the
// background is written (or has given up), so that the pool can close.
func (b *Bookkeeper) Wait() { b.observers.Wait() }

// New returns the bookkeeper and registers its graph with the engine.
func New(pool *pgxpool.Pool, engine *runs.Engine, logger *slog.Logger) *Bookkeeper {
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	b := &Bookkeeper{pool: pool, engine: engine, log: logger, RetryBackoff: 30 * time.Second}
	b.graph = runs.Graph[State]{Kind: Kind, Start: "load", Nodes: map[string]runs.NodeFunc[State]{
		"load": b.load, "account": b.account, "rate": b.rate, "post": b.post,
	}, OnFail: func(ctx context.Context, tx pgx.Tx, r *runs.Run[State], cause error) error {
		return jobs.RunFailed(ctx, tx, r.State.JobID, b.RetryBackoff, cause)
	}}
	runs.Register(engine, b.graph)
	return b
}

// CreateRun implements jobs.RunStarter.
func (b *Bookkeeper) CreateRun(ctx context.Context, tx pgx.Tx, job jobs.Job) (string, error) {
	return runs.Create(ctx, tx, b.graph, job.OrgID, job.IntakeID, State{IntakeID: job.IntakeID, JobID: job.ID})
}

// Start implements jobs.RunStarter: it waits, bounded by ctx and the
// engine's LaunchWait, for a slot in the workers' queue.
func (b *Bookkeeper) Start(ctx context.Context, runID string) error {
	return b.engine.LaunchContext(ctx, runID)
}

// document reads the run's document, on the run's own connection.
func (b *Bookkeeper) document(ctx context.Context, r *runs.Run[State]) (intake.Document, einvoice.Document, error) {
	doc, err := intake.GetDocument(ctx, b.pool, r.OrgID, r.State.IntakeID)
	if err != nil {
		return intake.Document{}, einvoice.Document{}, err
	}
	var fields einvoice.Document
	if err := json.Unmarshal(doc.Fields, &fields); err != nil {
		return doc, fields, retry.MarkPermanent(fmt.Errorf("bookkeeper: document %d has no readable fields: %w", doc.ID, err))
	}
	return doc, fields, nil
}

// The keys of what load leaves in a run's Scratch for the nodes after it
// in the same execution; a resumed run reads them again.
const (
	fieldsKey  = "fields"
	lookupsKey = "account lookups"
	codingKey  = "coding"
)

// accountLookups are the accounts a rule and the default give, as load read
// them.
type accountLookups struct {
	rule        *string
	ruleSetBy   *string
	ruleSetAt   *time.Time
	defaultAcct *string
}

func (b *Bookkeeper) load(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
	var status intake.Status
	var entryID int64
	var sourceRef, baseCurrency string
	var raw []byte
	var l accountLookups
	var rows []coding.Row
	err := b.pool.QueryRow(ctx, loadSQL, r.OrgID, r.State.IntakeID).Scan(&status, &entryID, &sourceRef, &raw, &baseCurrency,
		&l.rule, &l.ruleSetBy, &l.ruleSetAt, &l.defaultAcct, &rows)
	if errors.Is(err, pgx.ErrNoRows) {
		return runs.Step{}, apperr.New(apperr.NotFound, "no document %d", r.State.IntakeID)
	}
	if err != nil {
		return runs.Step{}, fmt.Errorf("bookkeeper: load document %d: %w", r.State.IntakeID, err)
	}
	if status == intake.Posted && entryID != 0 {
		// Posted already (by an earlier run of this job): finish the job.
		return runs.Step{Note: fmt.Sprintf("already posted as entry %d", entryID), Commit: b.finishJob(r.State.JobID)}, nil
	}
	if status != intake.Active {
		return runs.Step{}, retry.MarkPermanent(fmt.Errorf("bookkeeper: document %d is %s, not active", r.State.IntakeID, status))
	}
	var fields einvoice.Document
	if err := json.Unmarshal(raw, &fields); err != nil {
		return runs.Step{}, retry.MarkPermanent(fmt.Errorf("bookkeeper: document %d has no readable fields: %w", r.State.IntakeID, err))
	}
	if r.Scratch == nil {
		r.Scratch = map[string]any{}
	}
	r.Scratch[fieldsKey], r.Scratch[lookupsKey] = fields, l
	// A coding that does not cover the document (none yet, or one made
	// before its facts changed) leaves the account to the rules below.
	r.State.Coded = coding.Covers(fields, rows)
	if r.State.Coded {
		r.Scratch[codingKey] = rows
	}
	supplier, _, _ := strings.Cut(sourceRef, "/")
	r.State.Supplier, r.State.SupplierName = supplier, fields.Seller.Name
	r.State.Currency, r.State.BaseCurrency, r.State.IssueDate = fields.Currency, baseCurrency, fields.IssueDate
	return runs.Step{Next: "account", Chain: true, Note: fmt.Sprintf("%s %s from %s, %s", fields.Type, fields.Number, fields.Seller.Name, fields.Currency)}, nil
}

func (b *Bookkeeper) account(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
	if r.State.Coded {
		// Each coding row names its account: nothing to choose or ask.
		step := runs.Step{Next: "rate", Chain: true, Note: "accounts from the coding"}
		rows, ok := r.Scratch[codingKey].([]coding.Row)
		if !ok {
			return step, nil
		}
		account, source, one := oneSuggestedAccount(rows)
		if !one || (source != coding.SupplierRule && source != coding.Default) {
			return step, nil
		}
		// The whole document on the one account a supplier rule or the
		// org's default suggested: recorded as the rule's choice, as when
		// the bookkeeper chooses it, so the document and its entry say why.
		l, ok := r.Scratch[lookupsKey].(accountLookups)
		if !ok {
			var err error
			if l, err = b.lookupAccounts(ctx, r); err != nil {
				return runs.Step{}, err
			}
		}
		switch {
		case source == coding.SupplierRule && l.rule != nil && *l.rule == account:
			r.State.Account, r.State.AccountFrom = account, "supplier"
			r.State.ChosenBy, r.State.AccountSetBy, r.State.AccountSetAt = ChosenByRule, *l.ruleSetBy, l.ruleSetAt
		case source == coding.Default && l.defaultAcct != nil && *l.defaultAcct == account:
			r.State.Account, r.State.AccountFrom, r.State.ChosenBy = account, "default", ChosenByDefault
		}
		return step, nil
	}
	if r.Answer != nil {
		var a AccountAnswer
		if err := json.Unmarshal(r.Answer, &a); err != nil {
			return runs.Step{}, retry.MarkPermanent(err)
		}
		if err := checkExpenseAccount(ctx, b.pool, r.OrgID, a.Account); err != nil {
			return runs.Step{Pause: b.accountQuestion(r, err.Error())}, nil
		}
		now := time.Now().UTC()
		r.State.Account, r.State.AccountFrom = a.Account, "answered by "+a.By
		r.State.ChosenBy, r.State.AccountSetBy, r.State.AccountSetAt = ChosenByAnswer, a.By, &now
		r.State.Remembered = a.Remember && r.State.Supplier != ""
		step := runs.Step{Next: "rate", Chain: true, Note: "account " + a.Account + " answered by " + a.By}
		if a.Remember && r.State.Supplier != "" {
			step.Note += ", remembered for the supplier"
			step.Commit = func(ctx context.Context, tx pgx.Tx) error {
				return rememberAccount(ctx, tx, r.OrgID, r.State.Supplier, a.Account, a.By)
			}
		}
		return step, nil
	}
	l, ok := r.Scratch[lookupsKey].(accountLookups)
	if !ok {
		// Resumed at this node: load's lookups are not at hand.
		var err error
		if l, err = b.lookupAccounts(ctx, r); err != nil {
			return runs.Step{}, err
		}
	}
	if l.rule != nil {
		r.State.Account, r.State.AccountFrom = *l.rule, "supplier"
		r.State.ChosenBy, r.State.AccountSetBy, r.State.AccountSetAt = ChosenByRule, *l.ruleSetBy, l.ruleSetAt
		return runs.Step{Next: "rate", Chain: true, Note: "account " + *l.rule + " mapped for the supplier"}, nil
	}
	if l.defaultAcct != nil {
		r.State.Account, r.State.AccountFrom, r.State.ChosenBy = *l.defaultAcct, "default", ChosenByDefault
		return runs.Step{Next: "rate", Chain: true, Note: "account " + *l.defaultAcct + ", the org's default"}, nil
	}
	return runs.Step{Pause: b.accountQuestion(r, "")}, nil
}

// lookupAccounts reads the accounts a supplier rule and the org's default
// give, for a run resumed after load.
func (b *Bookkeeper) lookupAccounts(ctx context.Context, r *runs.Run[State]) (accountLookups, error) {
	var l accountLookups
	err := b.pool.QueryRow(ctx, lookupAccountsSQL, r.OrgID, r.State.Supplier).Scan(&l.rule, &l.ruleSetBy, &l.ruleSetAt, &l.defaultAcct)
	if err != nil {
		return l, fmt.Errorf("bookkeeper: look up the account: %w", err)
	}
	return l, nil
}

func (b *Bookkeeper) accountQuestion(r *runs.Run[State], problem string) *runs.Question {
	prompt := fmt.Sprintf("Which expense account should costs from %s go to?", orSupplier(r.State.SupplierName))
	if problem != "" {
		prompt = problem + ". " + prompt
	}
	return &runs.Question{Kind: AskExpenseAccount, Prompt: prompt,
		Data: map[string]any{"supplier": r.State.Supplier, "supplier_name": r.State.SupplierName, "intake_id": r.State.IntakeID}}
}

func orSupplier(s string) string {
	if s == "" {
		return "this supplier"
	}
	return s
}

func (b *Bookkeeper) rate(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
	if r.State.Currency == r.State.BaseCurrency {
		r.State.Rate, r.State.RateFrom = "1", "base currency"
		return runs.Step{Next: "post", Chain: true, Note: "in the base currency"}, nil
	}
	if r.Answer != nil {
		var a RateAnswer
		if err := json.Unmarshal(r.Answer, &a); err != nil {
			return runs.Step{}, retry.MarkPermanent(err)
		}
		rate, err := money.Parse(strings.TrimSpace(a.Rate))
		// The rate is used as it is stored: numeric(20,10) rounds it to ten
		// decimals, and a re-run reads the stored one.
		rate = rate.Round(money.Rate.Scale)
		if err != nil || !rate.IsPositive() {
			return runs.Step{Pause: b.rateQuestion(r, fmt.Sprintf("%q is not a positive rate", clip(a.Rate)))}, nil
		}
		if !money.Rate.Fits(rate) {
			return runs.Step{Pause: b.rateQuestion(r, fmt.Sprintf("%q is beyond what a stored rate holds (%s)", clip(a.Rate), money.Rate.Describe()))}, nil
		}
		r.State.Rate, r.State.RateFrom = money.Canonical(rate), "answered by "+a.By
		step := runs.Step{Next: "post", Chain: true, Note: fmt.Sprintf("rate %s answered by %s", r.State.Rate, a.By)}
		if a.Remember {
			step.Note += ", remembered for " + r.State.IssueDate
			step.Commit = func(ctx context.Context, tx pgx.Tx) error {
				_, err := tx.Exec(ctx, rememberRateSQL, r.OrgID, r.State.Currency, r.State.IssueDate, r.State.Rate, a.By)
				return err
			}
		}
		return step, nil
	}
	var rate, date string
	err := b.pool.QueryRow(ctx, storedRateSQL, r.OrgID, r.State.Currency, r.State.IssueDate).Scan(&rate, &date)
	if err == nil {
		d, _ := decimal.NewFromString(rate)
		r.State.Rate, r.State.RateFrom = money.Canonical(d), "rate of "+date
		return runs.Step{Next: "post", Chain: true, Note: fmt.Sprintf("rate %s of %s", r.State.Rate, date)}, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return runs.Step{}, err
	}
	return runs.Step{Pause: b.rateQuestion(r, "")}, nil
}

func (b *Bookkeeper) rateQuestion(r *runs.Run[State], problem string) *runs.Question {
	prompt := fmt.Sprintf("What is the %s to %s rate for %s?", r.State.Currency, r.State.BaseCurrency, r.State.IssueDate)
	if problem != "" {
		prompt = problem + ". " + prompt
	}
	return &runs.Question{Kind: AskExchangeRate, Prompt: prompt,
		Data: map[string]any{"currency": r.State.Currency, "base_currency": r.State.BaseCurrency, "date": r.State.IssueDate, "intake_id": r.State.IntakeID}}
}

func (b *Bookkeeper) post(ctx context.Context, r *runs.Run[State]) (runs.Step, error) {
	fields, ok := r.Scratch[fieldsKey].(einvoice.Document)
	if !ok {
		// Resumed at this node: load's document is not at hand.
		var err error
		if _, fields, err = b.document(ctx, r); err != nil {
			return runs.Step{}, err
		}
	}
	rows, err := b.coding(ctx, r, fields)
	if err != nil {
		return runs.Step{}, err
	}
	rate, err := decimal.NewFromString(r.State.Rate)
	if err != nil {
		return runs.Step{}, retry.MarkPermanent(fmt.Errorf("bookkeeper: rate %q: %w", r.State.Rate, err))
	}
	req, err := Bill{OrgID: r.OrgID, IntakeID: r.State.IntakeID, Document: fields, Supplier: r.State.Supplier, Expense: r.State.Account,
		Coding: rows, BaseCurrency: r.State.BaseCurrency, Rate: rate}.Entry()
	if err != nil {
		return runs.Step{}, retry.MarkPermanent(err)
	}
	s := &r.State
	// The post is two round trips (the transaction begins with its lock);
	// what the post implies travels in one batch with the checkpoint and
	// the commit.
	return runs.Step{Note: "posted", CommitBatched: func(ctx context.Context, tx pgx.Tx) (*pgx.Batch, error) {
		res, err := ledger.PostTx(ctx, tx, req)
		if err != nil {
			if code := apperr.CodeOf(err); code == apperr.Invalid || code == apperr.SourceReplayConflict {
				// This transaction rolls back; the explorer hears of the
				// conflict once it has (Observe waits for a connection of
				// its own, which this one may be holding the last of).
				b.observers.Go(func() { ledger.Observe(ctx, b.pool, req, res, err) })
				return nil, retry.MarkPermanent(err)
			}
			return nil, err
		}
		if err := ledger.ObserveTx(ctx, tx, req, res); err != nil { // a replay only: a new entry is its own record
			return nil, err
		}
		detail, err := json.Marshal(map[string]any{"entry_id": res.Entry.ID, "replayed": res.Replayed, "account": s.Account, "run_id": r.ID, "job_id": s.JobID})
		if err != nil {
			return nil, fmt.Errorf("bookkeeper: encode audit detail: %w", err)
		}
		batch := &pgx.Batch{}
		if s.Account != "" { // a coded bill records a choice only when one rule chose its one account
			queueChoice(batch, r.OrgID, res.Entry.ID, *s)
		}
		batch.Queue(markPostedSQL, s.IntakeID, res.Entry.ID, r.OrgID, audit.System("bookkeeper").Label, detail)
		batch.Queue(finishJobSQL, s.JobID)
		return batch, nil
	}}, nil
}

// coding is the coding a coded run posts by (nil for a run that chose an
// account): load's, or read again for a run resumed after it. A coding
// that no longer covers the document is refused for good: the document is
// active, and nothing changes its coding now but a hand in the database.
func (b *Bookkeeper) coding(ctx context.Context, r *runs.Run[State], fields einvoice.Document) ([]coding.Row, error) {
	if !r.State.Coded {
		return nil, nil
	}
	rows, ok := r.Scratch[codingKey].([]coding.Row)
	if !ok {
		var err error
		if rows, err = coding.Read(ctx, b.pool, r.OrgID, r.State.IntakeID); err != nil {
			return nil, err
		}
	}
	if !coding.Covers(fields, rows) {
		return nil, retry.MarkPermanent(fmt.Errorf("bookkeeper: the coding of document %d no longer covers it", r.State.IntakeID))
	}
	return rows, nil
}

// finishJob marks the job done.
func (b *Bookkeeper) finishJob(jobID int64) func(ctx context.Context, tx pgx.Tx) error {
	return func(ctx context.Context, tx pgx.Tx) error {
		_, err := tx.Exec(ctx, finishJobSQL, jobID)
		return err
	}
}
func checkExpenseAccount(ctx context.Context, q database.Executor, orgID int64, code string) error {
	var active bool
	err := q.QueryRow(ctx, accountActiveSQL, orgID, code).Scan(&active)
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.New(apperr.Invalid, "there is no account %q", code)
	}
	if err != nil {
		return err
	}
	if !active {
		return apperr.New(apperr.Invalid, "account %q is inactive", code)
	}
	return nil
}

func rememberAccount(ctx context.Context, tx pgx.Tx, orgID int64, supplier, code, by string) error {
	_, err := tx.Exec(ctx, rememberAccountSQL, orgID, supplier, code, by)
	return err
}

// Question is a paused bookkeeper run's question, for the desk.
type Question struct {
	RunID    string
	IntakeID int64
	runs.Question
	AskedAt time.Time
	// Suggested is the account used for the supplier before, for an
	// expense account question (filled by OpenQuestion and DeskQuestions).
	Suggested *Suggestion
	// Choices are the accounts a person may answer an expense account
	// question with (filled by DeskQuestions).
	Choices []ledger.Account
}

// Questions lists an org's paused bookkeeper runs, oldest first.
func (b *Bookkeeper) Questions(ctx context.Context, orgID int64) ([]Question, error) {
	rows, err := b.pool.Query(ctx, questionsSQL, orgID, Kind)
	if err != nil {
		return nil, fmt.Errorf("bookkeeper: questions: %w", err)
	}
	return pgx.CollectRows(rows, func(r pgx.CollectableRow) (Question, error) {
		var qu Question
		var raw []byte
		if err := r.Scan(&qu.RunID, &qu.IntakeID, &raw, &qu.AskedAt); err != nil {
			return qu, err
		}
		return qu, json.Unmarshal(raw, &qu.Question)
	})
}

// Answer answers a paused bookkeeper run of an org. For an account it
// checks the account first; the run resumes and uses the answer.
func (b *Bookkeeper) Answer(ctx context.Context, orgID int64, runID string, answer map[string]string, remember bool, actor audit.Actor) error {
	info, err := runs.Get(ctx, b.pool, orgID, runID)
	if apperr.Is(err, apperr.NotFound) || err == nil && info.Kind != Kind {
		return apperr.New(apperr.NotFound, "no question %s", runID)
	}
	if err != nil {
		return fmt.Errorf("bookkeeper: answer %s: %w", runID, err)
	}
	if info.Status != runs.Paused || info.Question == nil {
		return apperr.New(apperr.InvalidState, "that question was answered already")
	}
	switch info.Question.Kind {
	case AskExpenseAccount:
		code := strings.TrimSpace(answer["account"])
		if code == "" {
			return apperr.New(apperr.Invalid, "choose an expense account")
		}
		if err := checkExpenseAccount(ctx, b.pool, orgID, code); err != nil {
			return err
		}
		return b.engine.Answer(ctx, runID, AccountAnswer{Account: code, Remember: remember, By: actor.Label}, actor.Label)
	case AskExchangeRate:
		rate, err := money.Parse(strings.TrimSpace(answer["rate"]))
		if err != nil || !rate.IsPositive() {
			return apperr.New(apperr.Invalid, "the rate must be a positive decimal such as 11.2345")
		}
		return b.engine.Answer(ctx, runID, RateAnswer{Rate: money.Canonical(rate), Remember: remember, By: actor.Label}, actor.Label)
	}
	return apperr.New(apperr.InvalidState, "unknown question kind %q", info.Question.Kind)
}

// QuestionFor returns the open question about one document, if any.
func (b *Bookkeeper) QuestionFor(ctx context.Context, orgID, intakeID int64) (*Question, error) {
	qs, err := b.Questions(ctx, orgID)
	if err != nil {
		return nil, err
	}
	for _, x := range qs {
		if x.IntakeID == intakeID {
			return &x, nil
		}
	}
	return nil, nil
}

// clip keeps an answer quoted in a question short and storable.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return storable.Clean(s, 0)
}

// oneSuggestedAccount reports whether every coding row is on the same
// account from the same source, and which.
func oneSuggestedAccount(rows []coding.Row) (string, coding.Source, bool) {
	if len(rows) == 0 {
		return "", "", false
	}
	for _, r := range rows[1:] {
		if r.Account != rows[0].Account || r.Source != rows[0].Source {
			return "", "", false
		}
	}
	return rows[0].Account, rows[0].Source, true
}
