package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/chart"
)

// accountsImport imports a chart of accounts file into an org (docs/chart.md).
func (e env) accountsImport(ctx context.Context, args []string) error {
	c := e.subcommand("accounts import")
	slug := c.flags.String("org", "", "the org's slug")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *slug == "" {
		return errors.New("usage: greatbook accounts import --org SLUG FILE")
	}
	return e.importChart(ctx, c, *slug, pos[0], func(pool *pgxpool.Pool, orgID int64, data []byte, file string) (chart.Imported, error) {
		return chart.ImportAccounts(ctx, pool, orgID, data, file, audit.System("cli"))
	})
}

// dimensionsImport imports a dimension values file into one of an org's
// dimensions, created if the org lacks it (docs/chart.md).
func (e env) dimensionsImport(ctx context.Context, args []string) error {
	c := e.subcommand("dimensions import")
	slug := c.flags.String("org", "", "the org's slug")
	name := c.flags.String("dimension", "", "the dimension's name (cost_center, project, ...)")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || *slug == "" || *name == "" {
		return errors.New("usage: greatbook dimensions import --org SLUG --dimension NAME FILE")
	}
	return e.importChart(ctx, c, *slug, pos[0], func(pool *pgxpool.Pool, orgID int64, data []byte, file string) (chart.Imported, error) {
		return chart.ImportValues(ctx, pool, orgID, *name, data, file, audit.System("cli"))
	})
}

// importChart reads the file (no more than an import may hold), opens the
// database and runs the import; a refused file prints every fault, one a
// line.
func (e env) importChart(ctx context.Context, c *subcommand, slug, path string, run func(*pgxpool.Pool, int64, []byte, string) (chart.Imported, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(f, chart.MaxImportBytes+1))
	f.Close()
	if err != nil {
		return err
	}
	d, o, err := c.openOrg(ctx, e.cliLogger(), slug)
	if err != nil {
		return err
	}
	defer d.Close()
	res, err := run(d.pool, o.ID, data, filepath.Base(path))
	if err != nil {
		return errors.New(faultLines(err))
	}
	fmt.Fprintf(e.stdout, "%d rows: %d added, %d changed, %d as they were\n", res.Rows, res.Added, res.Changed, res.Rows-res.Added-res.Changed)
	return nil
}

// faultLines is an import's refusal for a person: the message, then each
// fault of the file on its own line.
func faultLines(err error) string {
	ae, ok := apperr.As(err)
	if !ok {
		return err.Error()
	}
	faults, _ := ae.Details["reasons"].([]chart.Fault)
	if len(faults) == 0 {
		return message(err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "the file was not imported (%d faults; nothing changed):", len(faults))
	for _, f := range faults {
		fmt.Fprintf(&b, "\n  %s: %s", f.Field, f.Message)
	}
	return b.String()
}
