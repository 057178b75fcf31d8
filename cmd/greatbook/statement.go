package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"greatbook/internal/audit"
	"greatbook/internal/bankstatement"
	"greatbook/internal/org"
)

// The usage lines of the bank statement commands.
const (
	statementImportUsage = "usage: greatbook statement import SLUG FILE"
	statementShowUsage   = "usage: greatbook statement show SLUG ID"
)

// statementActor is who the command line imports statements as, in the
// audit trail and on the import.
var statementActor = audit.System("cli")

// statementImport imports a camt.053 statement (or camt.054 notification)
// into the org's books and prints what it found. The same file again prints
// the first import's answer as "already imported", after finishing that
// import if a crash interrupted it.
func (e env) statementImport(ctx context.Context, args []string) error {
	c := e.subcommand("statement import")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return errors.New(statementImportUsage)
	}
	// One byte over the cap is enough for the parser to refuse the file
	// as too large without reading the rest of it.
	f, err := os.Open(pos[1])
	if err != nil {
		return err
	}
	content, err := io.ReadAll(io.LimitReader(f, bankstatement.MaxBytes+1))
	f.Close()
	if err != nil {
		return fmt.Errorf("read %s: %w", pos[1], err)
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	imp, created, err := (&bankstatement.Service{Pool: d.pool}).Import(ctx, o.ID, content, statementActor)
	if err != nil {
		return errors.New(message(err))
	}
	what := "imported"
	if !created {
		what = "already imported"
	}
	fmt.Fprintf(e.stdout, "bank statement %d %s (org %s): %s, %d matched, %d unmatched\n",
		imp.ID, what, o.Slug, countLines(imp.Entries), imp.Matched, imp.Unmatched)
	if imp.Unmatched > 0 {
		fmt.Fprintf(e.stdout, "  the unmatched lines and why: greatbook statement show %s %d\n", o.Slug, imp.ID)
	}
	return nil
}

// statementShow prints an import of the org and the lines no payment
// matched, each with its reason.
func (e env) statementShow(ctx context.Context, args []string) error {
	c := e.subcommand("statement show")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return errors.New(statementShowUsage)
	}
	id, err := strconv.ParseInt(pos[1], 10, 64)
	if err != nil || id <= 0 {
		return fmt.Errorf("ID is a bank statement import's id (a number such as 4), not %q", pos[1])
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	if err != nil {
		return err
	}
	defer d.Close()
	r, err := (&bankstatement.Service{Pool: d.pool}).Get(ctx, o.ID, id)
	if err != nil {
		return errors.New(message(err))
	}
	printStatement(e.stdout, o, r)
	return nil
}

// printStatement prints an import: a header line with its counts, who
// imported it and when, then one line per unmatched line with its reason
// (the codes of docs/api.md).
func printStatement(w io.Writer, o org.Org, r bankstatement.Report) {
	if !r.Complete {
		fmt.Fprintf(w, "bank statement %d incomplete (org %s): %s %s; interrupted before every line was reconciled: "+
			"importing the same file again, or starting greatbook serve, finishes it\n", r.ID, o.Slug, r.MessageType, r.StatementID)
	} else {
		fmt.Fprintf(w, "bank statement %d (org %s): %s %s, %s, %d matched, %d unmatched\n",
			r.ID, o.Slug, r.MessageType, r.StatementID, countLines(r.Entries), r.Matched, r.Unmatched)
	}
	fmt.Fprintf(w, "  imported by %s at %s\n", r.ImportedBy, stamp(&r.ImportedAt))
	if r.CompletedAt != nil {
		fmt.Fprintf(w, "  reconciled at %s\n", stamp(r.CompletedAt))
	}
	for _, l := range r.UnmatchedEntries {
		date := "(not booked)"
		if l.BookingDate != nil {
			date = *l.BookingDate
		}
		extra := ""
		if l.ReturnReason != "" {
			extra += ", return reason " + l.ReturnReason
		}
		if l.ItemID != nil {
			extra += ", payment item " + strconv.FormatInt(*l.ItemID, 10)
		}
		reason := l.Reason
		if l.Detail != "" {
			reason += " (" + l.Detail + ")"
		}
		fmt.Fprintf(w, "line %d: %s %s %s, %s, %s, reference %s, end-to-end id %s%s: %s\n",
			l.Line, l.Amount, l.Currency, l.Direction, l.Status, date, orNone(l.Reference), orNone(l.EndToEndID), extra, reason)
	}
}

func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
