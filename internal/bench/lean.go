package bench

import (
	"context"
	"fmt"
	"time"
)

// IntakeFigures is what the server counts on intake_documents: its updates,
// how many of them were HOT (they touched no index, so wrote no index
// entry), and the number and size of its indexes.
type IntakeFigures struct {
	Updates, HotUpdates    int64
	Indexes                int
	IndexBytes, TableBytes int64
}

// IntakeFigures reads intake_documents' figures. The update counters are
// the server's statistics, which a backend reports some time after its
// transactions: the pool's connections are closed first (a backend reports
// when it exits) and the counters read until they stop moving.
func (e *Env) IntakeFigures(ctx context.Context) (IntakeFigures, error) {
	e.Pool.Reset()
	var f, last IntakeFigures
	deadline := time.Now().Add(15 * time.Second)
	for steady := 0; steady < 3 && time.Now().Before(deadline); {
		if err := e.Pool.QueryRow(ctx, `SELECT s.n_tup_upd, s.n_tup_hot_upd,
			(SELECT count(*) FROM pg_index i WHERE i.indrelid = s.relid),
			(SELECT coalesce(sum(pg_relation_size(i.indexrelid)), 0) FROM pg_index i WHERE i.indrelid = s.relid),
			pg_relation_size(s.relid)
			FROM pg_stat_user_tables s WHERE s.relname = 'intake_documents'`).
			Scan(&f.Updates, &f.HotUpdates, &f.Indexes, &f.IndexBytes, &f.TableBytes); err != nil {
			return f, fmt.Errorf("bench: intake_documents' figures: %w", err)
		}
		if f == last {
			steady++
		} else {
			steady, last = 0, f
		}
		select {
		case <-ctx.Done():
			return f, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
	return f, nil
}

// PrintIntakeFigures prints what benchmark name did to intake_documents
// since before: its updates and the HOT share of them, and the table's and
// indexes' size after it.
func (e *Env) PrintIntakeFigures(ctx context.Context, name string, before IntakeFigures) error {
	after, err := e.IntakeFigures(ctx)
	if err != nil {
		return err
	}
	updates, hot := after.Updates-before.Updates, after.HotUpdates-before.HotUpdates
	share := "-"
	if updates > 0 {
		share = fmt.Sprintf("%.0f%%", 100*float64(hot)/float64(updates))
	}
	fmt.Fprintf(e.Out, "%s: intake_documents had %d updates, %d of them HOT (%s); after it the table is %.1f MB and its %d indexes %.1f MB\n",
		name, updates, hot, share, float64(after.TableBytes)/(1<<20), after.Indexes, float64(after.IndexBytes)/(1<<20))
	return nil
}
