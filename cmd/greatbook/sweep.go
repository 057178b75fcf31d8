package main

import (
	"context"
	"fmt"

	"greatbook/internal/app"
	"greatbook/internal/jobs"
)

// sweep is one recovery pass: it launches the jobs left pending (a crash
// between an approval and its launch) or failed (backoff passed), prints
// what it launched, and runs the launched bookkeeping here unless a live
// server's worker has taken it.
func (e env) sweep(ctx context.Context, args []string) error {
	d, err := e.openWithoutFlags(ctx, "sweep", args)
	if err != nil {
		return err
	}
	defer d.Close()
	services := app.New(d.pool, app.Config{Logger: e.cliLogger()})
	defer services.Close() // before the pool closes: no background work outlives it
	res, err := services.Outbox.Sweep(ctx, 10_000)
	if err != nil {
		return err
	}
	if len(res.Launched)+len(res.Failed) == 0 {
		fmt.Fprintln(e.stdout, "nothing to launch")
		return nil
	}
	for _, l := range res.Launched {
		job, _ := jobs.GetAnyOrg(ctx, d.pool, l.JobID)
		fmt.Fprintf(e.stdout, "job %d launched: document %d, run %s\n", l.JobID, job.IntakeID, l.RunID)
	}
	for _, l := range res.Failed {
		fmt.Fprintf(e.stdout, "job %d failed (%s, now %s): %s\n", l.JobID, l.Class, l.Status, l.Error)
	}
	for _, l := range res.Launched {
		if err := services.Engine.Execute(ctx, l.RunID); err != nil {
			fmt.Fprintf(e.stderr, "greatbook: run %s: %s\n", l.RunID, message(err))
		}
	}
	return nil
}
