package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"greatbook/internal/apperr"
	"greatbook/internal/database"
	"greatbook/internal/embeddedpg"
	"greatbook/internal/org"
)

const usage = `usage: greatbook <command> [flags]

  serve [--addr 127.0.0.1:8080] [--data-dir DIR] [--sweep-interval 15s]
        [--webhook-timeout 10s] [--webhook-allow-private]
                                                   migrate, run the workers, the sweep and the webhook
                                                   senders, serve HTTP
  migrate                                          apply migrations and exit
  demo                                             load demo data (idempotent); print the sign-in details
  org add SLUG --name NAME [--currency EUR]        an org with its base currency and a default chart of accounts
  org set SLUG [--legal-name NAME] [--vat-id ID] [--address-line LINE]... [--city CITY] [--postcode CODE]
       [--country CC] [--max-issue-age-months 18] [--base-currency EUR] [--default-expense-account CODE]
       [--bank-iban IBAN] [--bank-bic BIC]
                                                   the org's identity as a buyer, for the AP checks; its base
                                                   currency (only while the ledger is empty); the account a
                                                   bill goes to when no supplier rule says; its own bank
                                                   account, which its pay runs pay from (each audited)
  org policy SLUG [--separate-submitter[=false]] [--rule MIN=N]...
                                                   print the org's approval policy; set first when flags are
                                                   given: whether a submitter may approve, and N approvals
                                                   from the amount MIN (the --rule flags replace every rule)
  user add --org SLUG --email EMAIL --role reviewer|admin --password-stdin
  user add --role operator --email EMAIL --password-stdin
                                                   an instance operator: no org; every org's runs,
                                                   dead letters and /metrics
  token add --org SLUG --email EMAIL               print a new API token for that user
  accounts import --org SLUG FILE                  import a chart of accounts CSV (code,name,type[,active];
                                                   docs/chart.md): all or nothing, every bad row by its line
  dimensions import --org SLUG --dimension NAME FILE
                                                   import a dimension's values CSV (code,name[,active])
  payrun propose SLUG --execution-date D [--due-until D]
                                                   propose a pay run of the posted invoices due until D (the
                                                   execution date by default); print it and what it blocked
  payrun approve|cancel|show SLUG RUN              approve a proposed run; cancel one not downloaded; print one
  payrun export SLUG RUN [-o FILE]                 the run's pain.001.001.09 file (stdout without -o); the first
                                                   download marks the run sent, every one is the same bytes
  statement import SLUG FILE                       reconcile a camt.053 statement (or camt.054) with the pay
                                                   runs; print its id and counts ("already imported" for a
                                                   file imported before, finishing it if it was interrupted)
  statement show SLUG ID                           print an import and the lines no payment matched, and why
  balances check [SLUG]                            compare the ledger's kept balances (of an org, or of every
                                                   org) with the sums of the journal lines; print every
                                                   difference and fail if there is one
  balances rebuild [SLUG]                          recompute the kept balances from the journal lines, holding
                                                   postings back meanwhile (audited)
  sweep                                            one recovery pass; print what it launched
  ingest --org SLUG FILE...                        run the intake pipeline on files; one line per file: id and status

Every command takes --data-dir DIR (or GREATBOOK_DATA_DIR; default .greatbook)
and uses DATABASE_URL instead of the embedded database when it is set.`

// env gives the commands their environment, so tests can run them in-process.
type env struct {
	getenv func(string) string
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	e := env{getenv: getenv, stdin: stdin, stdout: stdout, stderr: stderr}
	if len(args) == 0 {
		return errors.New("no command given; run 'greatbook help'")
	}
	cmd, rest := args[0], args[1:]
	sub := ""
	if len(rest) > 0 {
		sub = rest[0]
	}
	switch {
	case cmd == "serve":
		return e.serve(ctx, rest)
	case cmd == "migrate":
		return e.migrate(ctx, rest)
	case cmd == "demo":
		return e.demo(ctx, rest)
	case cmd == "org" && sub == "add":
		return e.orgAdd(ctx, rest[1:])
	case cmd == "org" && sub == "set":
		return e.orgSet(ctx, rest[1:])
	case cmd == "org" && sub == "policy":
		return e.orgPolicy(ctx, rest[1:])
	case cmd == "user" && sub == "add":
		return e.userAdd(ctx, rest[1:])
	case cmd == "token" && sub == "add":
		return e.tokenAdd(ctx, rest[1:])
	case cmd == "accounts" && sub == "import":
		return e.accountsImport(ctx, rest[1:])
	case cmd == "dimensions" && sub == "import":
		return e.dimensionsImport(ctx, rest[1:])
	case cmd == "payrun" && sub == "propose":
		return e.payrunPropose(ctx, rest[1:])
	case cmd == "payrun" && sub == "approve":
		return e.payrunApprove(ctx, rest[1:])
	case cmd == "payrun" && sub == "cancel":
		return e.payrunCancel(ctx, rest[1:])
	case cmd == "payrun" && sub == "show":
		return e.payrunShow(ctx, rest[1:])
	case cmd == "payrun" && sub == "export":
		return e.payrunExport(ctx, rest[1:])
	case cmd == "statement" && sub == "import":
		return e.statementImport(ctx, rest[1:])
	case cmd == "statement" && sub == "show":
		return e.statementShow(ctx, rest[1:])
	case cmd == "balances" && sub == "check":
		return e.balancesCheck(ctx, rest[1:])
	case cmd == "balances" && sub == "rebuild":
		return e.balancesRebuild(ctx, rest[1:])
	case cmd == "ingest":
		return e.ingest(ctx, rest)
	case cmd == "sweep":
		return e.sweep(ctx, rest)
	case cmd == "help" || cmd == "-h" || cmd == "--help":
		fmt.Fprintln(stdout, usage)
		return nil
	}
	return fmt.Errorf("unknown command %q; run 'greatbook help'", strings.Join(args[:min(2, len(args))], " "))
}

// dbFlags are the flags every command has for finding its database.
type dbFlags struct {
	dataDir string
	// poolSize is the size of the pool to open; 0 is pgx's default (the
	// commands that run no workers).
	poolSize int32
}

// subcommand is a command being started: its flag set, which already has
// the database flags, and the environment it runs in. Every subcommand
// begins the same way: e.subcommand(name), its own flags, c.parse(args), its
// own checks, c.open(ctx, ...).
type subcommand struct {
	env
	flags *flag.FlagSet
	db    dbFlags
}

func (e env) subcommand(name string) *subcommand {
	c := &subcommand{env: e, flags: flag.NewFlagSet(name, flag.ContinueOnError)}
	c.flags.SetOutput(io.Discard)
	def := e.getenv("GREATBOOK_DATA_DIR")
	if def == "" {
		def = ".greatbook"
	}
	c.flags.StringVar(&c.db.dataDir, "data-dir", def, "data directory of the embedded database")
	return c
}

// parse parses the command's arguments and returns the positional ones.
func (c *subcommand) parse(args []string) ([]string, error) { return parse(c.flags, args) }

// open opens the command's database (see openDatabase) as a client of the
// cluster, logging with logger. The caller closes it.
func (c *subcommand) open(ctx context.Context, logger *slog.Logger) (*db, error) {
	return c.openDatabase(ctx, c.db, embeddedpg.RoleClient, logger)
}

// openOrg opens the command's database, as open does, and reads the org
// slug names; an org that is not there is one line saying so. The caller
// closes the database.
func (c *subcommand) openOrg(ctx context.Context, logger *slog.Logger, slug string) (*db, org.Org, error) {
	d, err := c.open(ctx, logger)
	if err != nil {
		return nil, org.Org{}, err
	}
	o, err := org.BySlug(ctx, d.pool, slug)
	if err != nil {
		d.Close()
		return nil, org.Org{}, errors.New(message(err))
	}
	return d, o, nil
}

// openWithoutFlags is the whole preamble of a command that takes no
// arguments besides the database flags: parse them, open the database with
// the quiet CLI logger.
func (e env) openWithoutFlags(ctx context.Context, name string, args []string) (*db, error) {
	c := e.subcommand(name)
	if _, err := c.parse(args); err != nil {
		return nil, err
	}
	return c.open(ctx, e.cliLogger())
}

// parse parses flags that may come before, between or after positional
// arguments ("org add SLUG --name NAME").
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, fmt.Errorf("%s: %w", fs.Name(), err)
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// database is an open pool and what must be closed with it.
type db struct {
	pool    *pgxpool.Pool
	url     string
	cluster *embeddedpg.Cluster
}

func (d *db) Close() {
	if d.pool != nil {
		d.pool.Close()
	}
	if d.cluster != nil {
		_ = d.cluster.Close()
	}
}

// openDatabase resolves the database the same way for every command:
// DATABASE_URL when set (and only in session mode), else the embedded
// cluster in the data directory, started or reused. It applies migrations.
func (e env) openDatabase(ctx context.Context, f dbFlags, role embeddedpg.Role, logger *slog.Logger) (*db, error) {
	d := &db{}
	if url := e.getenv("DATABASE_URL"); url != "" {
		if err := database.CheckSessionMode(ctx, url); err != nil {
			return nil, err
		}
		d.url = url
	} else {
		c, err := embeddedpg.Start(ctx, embeddedpg.Options{DataDir: f.dataDir, Role: role, Durable: true, Logger: logger,
			BinDir: e.getenv("GREATBOOK_PG_BIN"), RestartDelay: restartDelay(e)})
		if err != nil {
			return nil, err
		}
		d.cluster = c
		if err := c.EnsureDatabase(ctx, "greatbook"); err != nil {
			d.Close()
			return nil, err
		}
		d.url = c.ConnString("greatbook")
	}
	pool, err := database.Open(ctx, d.url, f.poolSize)
	if err != nil {
		d.Close()
		return nil, err
	}
	d.pool = pool
	if err := database.Migrate(ctx, pool, logger); err != nil {
		d.Close()
		return nil, err
	}
	return d, nil
}

// cliLogger is quiet unless GREATBOOK_LOG_LEVEL asks otherwise: a command
// prints its result on stdout and, on failure, one line on stderr.
func (e env) cliLogger() *slog.Logger {
	return e.logger(slog.LevelError + 4)
}

func (e env) logger(def slog.Level) *slog.Logger {
	level := def
	if v := e.getenv("GREATBOOK_LOG_LEVEL"); v != "" {
		_ = level.UnmarshalText([]byte(v))
	}
	return slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: level}))
}

// message returns the part of err that is meant for a person.
func message(err error) string {
	if ae, ok := apperr.As(err); ok && ae.Cause == nil {
		return ae.Message
	}
	return err.Error()
}

func readPassword(r io.Reader) (string, error) {
	b, err := io.ReadAll(io.LimitReader(r, 4096))
	if err != nil {
		return "", fmt.Errorf("read password: %w", err)
	}
	p := strings.TrimRight(string(b), "\r\n")
	if i := strings.IndexAny(p, "\r\n"); i >= 0 {
		p = p[:i]
	}
	return p, nil
}

// restartDelay is the owner's first wait before it restarts a cluster whose
// postmaster died: the default unless GREATBOOK_TEST_RESTART_DELAY (a Go
// duration) sets it. The tests of a database outage use it to hold the
// outage open long enough to be observed.
func restartDelay(e env) time.Duration {
	d, _ := time.ParseDuration(e.getenv("GREATBOOK_TEST_RESTART_DELAY"))
	return d
}
