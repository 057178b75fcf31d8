package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"greatbook/internal/audit"
	"greatbook/internal/org"
	"greatbook/internal/payments"
)

// The usage lines of the pay-run commands.
const (
	payrunProposeUsage = "usage: greatbook payrun propose SLUG --execution-date YYYY-MM-DD [--due-until YYYY-MM-DD]"
	payrunExportUsage  = "usage: greatbook payrun export SLUG RUN [-o FILE]"
)

// payrunUsage is the usage line of a pay-run command that takes the org
// and the run and nothing else.
func payrunUsage(verb string) string { return "usage: greatbook payrun " + verb + " SLUG RUN" }

// payrunActor is who the command line proposes, approves, downloads and
// cancels as, in the audit trail and on the run.
var payrunActor = audit.System("cli")

// payrunPropose proposes a run of what the org owes until --due-until (the
// execution date when left out) and prints it, with what it blocked and why.
func (e env) payrunPropose(ctx context.Context, args []string) error {
	c := e.subcommand("payrun propose")
	execution := c.flags.String("execution-date", "", "the day the bank is to execute the transfers (YYYY-MM-DD)")
	dueUntil := c.flags.String("due-until", "", "pay the invoices due until this day (YYYY-MM-DD; default: the execution date)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *execution == "" {
		return errors.New(payrunProposeUsage)
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	svc := &payments.Service{Pool: d.pool}
	run, err := svc.Propose(ctx, o.ID, payments.Proposal{ExecutionDate: *execution, DueUntil: *dueUntil}, payrunActor)
	if err != nil {
		return errors.New(message(err))
	}
	printRun(e.stdout, o, run)
	return nil
}

// payrunApprove approves a proposed run, and prints it.
func (e env) payrunApprove(ctx context.Context, args []string) error {
	return e.runCommand(ctx, "approve", args, func(svc *payments.Service, orgID, id int64) (payments.Run, error) {
		return svc.Approve(ctx, orgID, id, payrunActor)
	})
}

// payrunCancel cancels a run not downloaded yet, and prints it.
func (e env) payrunCancel(ctx context.Context, args []string) error {
	return e.runCommand(ctx, "cancel", args, func(svc *payments.Service, orgID, id int64) (payments.Run, error) {
		return svc.Cancel(ctx, orgID, id, payrunActor)
	})
}

// payrunShow prints a run; a proposed one with what is blocked now.
func (e env) payrunShow(ctx context.Context, args []string) error {
	return e.runCommand(ctx, "show", args, func(svc *payments.Service, orgID, id int64) (payments.Run, error) {
		return svc.Get(ctx, orgID, id)
	})
}

// runCommand is the whole of a command that takes SLUG RUN, does one thing
// with the run and prints it.
func (e env) runCommand(ctx context.Context, verb string, args []string, do func(svc *payments.Service, orgID, id int64) (payments.Run, error)) error {
	c := e.subcommand("payrun " + verb)
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return errors.New(payrunUsage(verb))
	}
	id, err := runID(pos[1])
	if err != nil {
		return err
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	run, err := do(&payments.Service{Pool: d.pool}, o.ID, id)
	if err != nil {
		return errors.New(message(err))
	}
	printRun(e.stdout, o, run)
	return nil
}

// payrunExport writes an approved or sent run's pain.001.001.09 file to -o,
// or to stdout (and nothing else there) without it. The first download marks
// the run sent; every download is the same bytes.
func (e env) payrunExport(ctx context.Context, args []string) error {
	c := e.subcommand("payrun export")
	out := c.flags.String("o", "", "write the file here instead of to stdout")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return errors.New(payrunExportUsage)
	}
	id, err := runID(pos[1])
	if err != nil {
		return err
	}
	// The file's place is taken before the run is marked sent: a directory
	// that cannot hold it refuses the download, not the file after it.
	var dest *pendingFile
	if *out != "" {
		if dest, err = createPendingFile(*out); err != nil {
			return err
		}
		defer dest.discard()
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	svc := &payments.Service{Pool: d.pool}
	file, err := svc.Export(ctx, o.ID, id, payrunActor)
	if err != nil {
		return errors.New(message(err))
	}
	if dest == nil {
		_, err := e.stdout.Write(file)
		return err
	}
	if err := dest.commit(file); err != nil {
		return err
	}
	run, err := svc.Get(ctx, o.ID, id)
	if err != nil {
		return errors.New(message(err))
	}
	fmt.Fprintf(e.stdout, "pay run %d %s: %s written (%d bytes, %s, total %s %s)\n", run.ID, run.Status, *out, len(file),
		countItems(len(run.Items)), run.Total, run.Currency)
	return nil
}

// pendingFile is a file being written under a temporary name beside its
// path, readable by its owner alone (it names bank accounts); commit renames
// it into place, so that a file at path is always a whole one, never the
// start of one a crash cut off that a bank would be handed.
type pendingFile struct {
	path string
	tmp  *os.File
	done bool
}

func createPendingFile(path string) (*pendingFile, error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, fmt.Errorf("write %s: %w", path, err)
	}
	return &pendingFile{path: path, tmp: tmp}, nil
}

func (f *pendingFile) commit(content []byte) error {
	_, err := f.tmp.Write(content)
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.tmp.Name(), f.path)
	}
	if err != nil {
		return fmt.Errorf("write %s: %w", f.path, err)
	}
	f.done = true
	return nil
}

// discard removes the temporary file unless commit renamed it into place.
func (f *pendingFile) discard() {
	if f.done {
		return
	}
	f.tmp.Close()
	os.Remove(f.tmp.Name())
}

func runID(s string) (int64, error) {
	id, err := strconv.ParseInt(s, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("RUN is a pay run's id (a number such as 12), not %q", s)
	}
	return id, nil
}

func countItems(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

// printRun prints a run: a header line, one line per item, and the blocked
// documents with their reasons (the codes of docs/api.md).
func printRun(w io.Writer, o org.Org, r payments.Run) {
	fmt.Fprintf(w, "pay run %d %s (org %s): execution date %s, due until %s, %s, total %s %s\n",
		r.ID, r.Status, o.Slug, r.ExecutionDate, r.DueUntil, countItems(len(r.Items)), r.Total, r.Currency)
	debtor := r.Debtor.IBAN
	if r.Debtor.BIC != "" {
		debtor += " (BIC " + r.Debtor.BIC + ")"
	}
	fmt.Fprintf(w, "  from %s, %s\n", r.Debtor.Name, debtor)
	fmt.Fprintf(w, "  proposed by %s at %s\n", r.ProposedBy, stamp(&r.ProposedAt))
	if r.ApprovedBy != nil {
		fmt.Fprintf(w, "  approved by %s at %s\n", *r.ApprovedBy, stamp(r.ApprovedAt))
	}
	if r.SentAt != nil {
		fmt.Fprintf(w, "  sent (file first downloaded) at %s\n", stamp(r.SentAt))
	}
	if r.CancelledBy != nil {
		fmt.Fprintf(w, "  cancelled by %s at %s\n", *r.CancelledBy, stamp(r.CancelledAt))
	}
	for _, it := range r.Items {
		creditor := it.Creditor.IBAN
		if it.Creditor.BIC != "" {
			creditor += " (BIC " + it.Creditor.BIC + ")"
		}
		netted := ""
		if it.CreditNoteID != nil {
			netted = fmt.Sprintf(" (less credit note %s, document %d, %s)", orNone(it.CreditNoteNumber), *it.CreditNoteID, it.Credited)
		}
		fmt.Fprintf(w, "item %d: document %d, invoice %s, %s %s%s to %s, %s, %s, end-to-end id %s\n",
			it.ID, it.IntakeID, orNone(it.InvoiceNumber), it.Amount, it.Currency, netted, it.Creditor.Name, creditor, it.Status, it.EndToEndID)
	}
	for _, b := range r.Blocked {
		fmt.Fprintf(w, "blocked: document %d, %s from %s, account %s: %s\n",
			b.IntakeID, orNone(b.Number), orNone(b.Supplier), orNone(b.IBAN), b.Reason)
	}
}

func stamp(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
