// Command riverpeer is the River side of `make bench`'s end-to-end figure:
// greatbook's approve transaction with River's InsertTx in place of the
// outbox job, and a River worker posting through ledger.Post, measured by
// the same driver as greatbook's rows (bench.DriveEndToEnd). River is a
// peer, not a dependency of the product: this is its own Go module, so
// greatbook's go.mod never requires River. It prints one JSON row a line.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
	"github.com/shopspring/decimal"

	"greatbook/internal/app"
	"greatbook/internal/audit"
	"greatbook/internal/bench"
	"greatbook/internal/bookkeeper"
	"greatbook/internal/database"
	"greatbook/internal/einvoice"
	"greatbook/internal/intake"
	"greatbook/internal/ledger"
	"greatbook/internal/org"
	"greatbook/internal/review"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "riverpeer: "+err.Error())
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("riverpeer", flag.ContinueOnError)
	url := fs.String("url", "", "connection string of a migrated greatbook database")
	documents := fs.Int("documents", 5000, "documents approved at each approver count")
	approvers := fs.String("approvers", "1,4,16", "comma-separated approver counts")
	workers := fs.Int("workers", 4, "River workers (MaxWorkers of the default queue)")
	cooldown := fs.Duration("fetch-cooldown", 0, "River's FetchCooldown (0: River's default, 100 ms)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	// Opened as `greatbook serve` opens its pool: a connection for each
	// worker beside the requests' share.
	pool, err := database.Open(ctx, *url, app.PoolSize(*workers))
	if err != nil {
		return err
	}
	defer pool.Close()
	migrator, err := rivermigrate.New(riverpgxv5.New(pool), nil)
	if err != nil {
		return err
	}
	if _, err := migrator.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return fmt.Errorf("river migrations: %w", err)
	}
	name := "River, defaults"
	if *cooldown > 0 {
		name = fmt.Sprintf("River, %s fetch cooldown", *cooldown)
	}
	for _, a := range strings.Split(*approvers, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil || n < 1 {
			return fmt.Errorf("-approvers: %q is not a count", a)
		}
		r, err := measure(ctx, pool, fmt.Sprintf("river-%d-%d", n, time.Now().UnixNano()), *documents, n, *workers, *cooldown)
		if err != nil {
			return err
		}
		r.Name = name
		line, _ := json.Marshal(r)
		fmt.Println(string(line))
	}
	return nil
}

func measure(ctx context.Context, pool *pgxpool.Pool, slug string, documents, approvers, workers int, cooldown time.Duration) (bench.EndToEndResult, error) {
	seed, err := bench.SeedEndToEnd(ctx, pool, slug, documents)
	if err != nil {
		return bench.EndToEndResult{}, err
	}
	if _, err := pool.Exec(ctx, "ANALYZE"); err != nil {
		return bench.EndToEndResult{}, err
	}
	w := river.NewWorkers()
	river.AddWorker(w, &postWorker{pool: pool})
	client, err := river.NewClient(riverpgxv5.New(pool), &river.Config{
		Queues:        map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: workers}},
		Workers:       w,
		FetchCooldown: cooldown,
	})
	if err != nil {
		return bench.EndToEndResult{}, err
	}
	if err := client.Start(ctx); err != nil {
		return bench.EndToEndResult{}, err
	}
	defer func() { _ = client.Stop(context.WithoutCancel(ctx)) }()
	actor := audit.Actor{UserID: seed.User.ID, Label: seed.User.Email}
	return bench.DriveEndToEnd(ctx, pool, seed, approvers, time.Minute, func(ctx context.Context, id int64) error {
		return approve(ctx, pool, client, seed.Org.ID, id, actor)
	})
}

// approve is greatbook's approve transaction (review.Statements: the group
// lock first, the recheck, the approval's record, the activation, the audit
// event) with River's
// InsertTx where greatbook writes its outbox job; River launches nothing
// after the commit, its fetch loop finds the job.
func approve(ctx context.Context, pool *pgxpool.Pool, client *river.Client[pgx.Tx], orgID, id int64, actor audit.Actor) error {
	s := review.Statements
	return database.WithTx(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, s.LockGroup, id, orgID); err != nil {
			return err
		}
		var group []int64
		if err := tx.QueryRow(ctx, s.Recheck, id).Scan(&group); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, s.RecordApproval, id, orgID, actor.Label, actor.UserID); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, s.Activate, id, actor.Label)
		if err != nil {
			return err
		}
		if tag.RowsAffected() != 1 {
			return fmt.Errorf("document %d: not approved", id)
		}
		if err := audit.Record(ctx, tx, audit.Event{OrgID: orgID, Actor: actor, Action: "approve", SubjectType: "intake",
			SubjectID: id, FromStatus: string(intake.Pending), ToStatus: string(intake.Active)}); err != nil {
			return err
		}
		_, err = client.InsertTx(ctx, tx, postArgs{OrgID: orgID, IntakeID: id}, nil)
		return err
	})
}

// postArgs is the River job of one approved document.
type postArgs struct {
	OrgID    int64 `json:"org_id"`
	IntakeID int64 `json:"intake_id"`
}

func (postArgs) Kind() string { return "greatbook_post" }

// postWorker does what greatbook's bookkeeper does for a document of a
// supplier with a remembered account in the base currency: read the
// document, the supplier's account and the org's currency, build the bill
// (bookkeeper.Bill), and in one transaction post it through the ledger,
// mark the document posted, audit it and complete the River job.
type postWorker struct {
	river.WorkerDefaults[postArgs]
	pool *pgxpool.Pool
}

func (w *postWorker) Work(ctx context.Context, job *river.Job[postArgs]) error {
	a := job.Args
	doc, err := intake.GetDocument(ctx, w.pool, a.OrgID, a.IntakeID)
	if err != nil {
		return err
	}
	var fields einvoice.Document
	if err := json.Unmarshal(doc.Fields, &fields); err != nil {
		return err
	}
	o, err := org.ByID(ctx, w.pool, a.OrgID)
	if err != nil {
		return err
	}
	supplier, _, _ := strings.Cut(doc.SourceRef, "/")
	var account string
	if err := w.pool.QueryRow(ctx, `SELECT a.code FROM supplier_accounts s JOIN accounts a ON a.id = s.account_id
		WHERE s.org_id = $1 AND s.supplier_key = $2 AND a.active`, a.OrgID, supplier).Scan(&account); err != nil {
		return fmt.Errorf("document %d: supplier account: %w", doc.ID, err)
	}
	req, err := bookkeeper.Bill{OrgID: a.OrgID, IntakeID: doc.ID, Document: fields, Supplier: supplier, Expense: account,
		BaseCurrency: o.BaseCurrency, Rate: decimal.NewFromInt(1)}.Entry()
	if err != nil {
		return err
	}
	return database.WithTx(ctx, w.pool, func(tx pgx.Tx) error {
		res, err := ledger.PostTx(ctx, tx, req)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE intake_documents SET status = 'posted', result_entry_id = $2, updated_at = now()
			WHERE id = $1 AND status = 'active'`, doc.ID, res.Entry.ID)
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 1 {
			if err := audit.Record(ctx, tx, audit.Event{OrgID: a.OrgID, Actor: audit.System("bookkeeper"), Action: "posted",
				SubjectType: "intake", SubjectID: doc.ID, FromStatus: string(intake.Active), ToStatus: string(intake.Posted),
				Detail: map[string]any{"entry_id": res.Entry.ID, "replayed": res.Replayed, "account": account}}); err != nil {
				return err
			}
		}
		_, err = river.JobCompleteTx[*riverpgxv5.Driver](ctx, tx, job)
		return err
	})
}
