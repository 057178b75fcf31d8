// Command greatbook-bench is `make bench`: it measures greatbook's hot paths
// beside pgbench running the same SQL on the same server, in one run, and
// prints each figure with the ratio.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"time"

	"greatbook/internal/bench"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "greatbook-bench: "+err.Error())
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	fs := flag.NewFlagSet("greatbook-bench", flag.ContinueOnError)
	d := fs.Duration("duration", 5*time.Second, "how long each measurement runs")
	only := fs.String("only", "", "comma-separated benchmarks to run (default all): "+strings.Join(names(), ","))
	fs.IntVar(&endToEnd.Documents, "e2e-documents", 5000, "e2e: documents approved at each approver count")
	approvers := fs.String("e2e-approvers", "1,4,16", "e2e: comma-separated approver counts")
	fs.StringVar(&endToEnd.RiverPeer, "e2e-river", "cmd/greatbook-bench/riverpeer", "e2e: folder of the River peer module (empty: no River rows)")
	documents := fs.String("pages-documents", "100000,1000000", "pages: comma-separated counts of documents the pages are measured at, each an org of its own; the growth is the last over the first")
	clients := fs.String("ledger-clients", "1,4,16", "ledger: comma-separated client counts")
	riverApprovers := fs.String("e2e-river-approvers", "4", "e2e: comma-separated approver counts of the River rows, each among -e2e-approvers (empty: no River rows)")
	twoServes := fs.String("e2e-two-serves", "4", "e2e: comma-separated approver counts of the rows with two serves on one database (empty: none)")
	fs.IntVar(&reading.Specimens, "reading-specimens", 208, "reading: specimens read from their text layer (8 per layout)")
	fs.IntVar(&reading.Scans, "reading-scans", 208, "reading: of those, the first ones also read as scans by OCR (each costs seconds)")
	fs.IntVar(&reading.DPI, "reading-dpi", 300, "reading: the scans' resolution")
	fs.IntVar(&reading.Workers, "reading-workers", 2, "reading: documents read at a time")
	fs.BoolVar(&reading.ShowWrong, "reading-wrong", false, "reading: print the first wrong readings of each set")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, c := range []struct {
		flag, value string
		dst         *[]int
	}{{"-pages-documents", *documents, &pageDocuments}, {"-ledger-clients", *clients, &ledgerClients}, {"-e2e-approvers", *approvers, &endToEnd.Approvers}, {"-e2e-river-approvers", *riverApprovers, &endToEnd.RiverApprovers},
		{"-e2e-two-serves", *twoServes, &endToEnd.TwoServes}} {
		counts, err := parseCounts(c.flag, c.value)
		if err != nil {
			return err
		}
		*c.dst = counts
	}
	selected := func(name string) bool { return *only == "" || strings.Contains(","+*only+",", ","+name+",") }
	env := bench.InProcess(os.Stdout, *d)
	for _, b := range benchmarks {
		if selected(b.name) && b.database {
			var err error
			if env, err = bench.Setup(ctx, os.Stdout, *d); err != nil {
				return err
			}
			break
		}
	}
	defer env.Close()
	fmt.Printf("greatbook-bench %s, %d s per measurement\n", time.Now().Format(time.DateOnly), int(d.Seconds()))
	for _, b := range benchmarks {
		if !selected(b.name) {
			continue
		}
		var before bench.IntakeFigures
		if b.database {
			var err error
			if before, err = env.IntakeFigures(ctx); err != nil {
				return err
			}
		}
		if err := b.run(ctx, env); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
		if b.database {
			if err := env.PrintIntakeFigures(ctx, b.name, before); err != nil {
				return err
			}
		}
	}
	return nil
}

// benchmarks run in this order: rules after pipeline, whose rate it shows with the rules on and off.
var benchmarks = []struct {
	name     string
	run      func(context.Context, *bench.Env) error
	database bool // whether it needs the embedded cluster; a run of in-process figures only starts none
}{
	{"ledger", func(ctx context.Context, e *bench.Env) error { return bench.Ledger(ctx, e, ledgerClients) }, true},
	{"pipeline", bench.Pipeline, true},
	{"rules", bench.Rules, false},
	{"official", func(ctx context.Context, e *bench.Env) error {
		return bench.Official(ctx, e, "internal/en16931/cen")
	}, false},
	{"approve", bench.Approve, true},
	{"reconcile", bench.Reconcile, true},
	{"pages", pages, true},
	{"e2e", func(ctx context.Context, e *bench.Env) error { return bench.EndToEnd(ctx, e, endToEnd) }, true},
	{"reading", func(ctx context.Context, e *bench.Env) error { return bench.Reading(ctx, e, reading) }, false},
}

// reading is what the reading flags set.
var reading bench.ReadingOptions

// endToEnd is what the e2e flags set.
var endToEnd bench.EndToEndOptions

// ledgerClients is what -ledger-clients sets.
var ledgerClients []int

// parseCounts reads a comma-separated list of counts; empty is none.
func parseCounts(flag, value string) ([]int, error) {
	counts := []int{}
	if strings.TrimSpace(value) == "" {
		return counts, nil
	}
	for _, a := range strings.Split(value, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(a))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%s: %q is not a count", flag, a)
		}
		counts = append(counts, n)
	}
	return counts, nil
}

func names() []string {
	var n []string
	for _, b := range benchmarks {
		n = append(n, b.name)
	}
	return n
}
