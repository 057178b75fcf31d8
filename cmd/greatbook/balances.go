package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"greatbook/internal/audit"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
)

const balancesUsage = "usage: greatbook balances check|rebuild [SLUG]"

// openBalances opens the database of a balances command and returns the
// org its optional SLUG names (0: every org).
func (e env) openBalances(ctx context.Context, name string, args []string) (*db, int64, error) {
	c := e.subcommand(name)
	pos, err := c.parse(args)
	if err != nil {
		return nil, 0, err
	}
	if len(pos) > 1 {
		return nil, 0, errors.New(balancesUsage)
	}
	if len(pos) == 0 {
		d, err := c.open(ctx, e.cliLogger())
		return d, 0, err
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), pos[0])
	return d, o.ID, err
}

// balancesCheck compares the ledger's kept balances with the sums of the
// journal lines, prints every difference and fails if there is one.
func (e env) balancesCheck(ctx context.Context, args []string) error {
	d, orgID, err := e.openBalances(ctx, "balances check", args)
	if err != nil {
		return err
	}
	defer d.Close()
	diffs, err := ledger.CheckBalances(ctx, d.pool, orgID)
	if err != nil {
		return err
	}
	if len(diffs) == 0 {
		fmt.Fprintln(e.stdout, "balances agree with the journal lines")
		return nil
	}
	for _, diff := range diffs {
		fmt.Fprintln(e.stdout, diff)
	}
	return fmt.Errorf("%d balances differ from the journal lines (at most 1000 are listed); 'greatbook balances rebuild' recomputes them", len(diffs))
}

// balancesRebuild recomputes the kept balances from the journal lines, in
// one transaction that holds postings back meanwhile, and audits it.
func (e env) balancesRebuild(ctx context.Context, args []string) error {
	d, orgID, err := e.openBalances(ctx, "balances rebuild", args)
	if err != nil {
		return err
	}
	defer d.Close()
	diffs, err := database.WithTxV(ctx, d.pool, func(tx pgx.Tx) ([]ledger.BalanceDifference, error) {
		diffs, err := ledger.RebuildBalancesTx(ctx, tx, orgID)
		if err != nil {
			return nil, err
		}
		ev := audit.Event{OrgID: orgID, Actor: audit.System("cli"), Action: ledger.AuditRebuildBalances,
			Detail: map[string]any{"differences": len(diffs)}}
		return diffs, audit.Record(ctx, tx, ev)
	})
	if err != nil {
		return err
	}
	for _, diff := range diffs {
		fmt.Fprintln(e.stdout, "corrected:", diff)
	}
	fmt.Fprintf(e.stdout, "balances rebuilt from the journal lines (%d differences corrected)\n", len(diffs))
	return nil
}
