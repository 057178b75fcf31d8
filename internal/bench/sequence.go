package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"greatbook/internal/bookkeeper"
	"greatbook/internal/database"
	"greatbook/internal/ledger"
	"greatbook/internal/runs"
)

// sequenceScript is a document's whole statement sequence from approval to
// posted, as greatbook sends it, in the same transactions and round trips:
// approve's transaction and the launch (approveScript's), the run's claim
// (one batch), load's read, and the posting's transaction: the ledger's
// lock, lookup and accounts (one batch), the insert of the entry and its
// lines, then the account's choice, the document marked posted, the job's
// end and the run's end with its four checkpoints, pipelined with COMMIT.
// The documents are seed's, each taken from the table targets; their
// supplier's account comes from its rule, as in greatbook's rows.
// Differences: pgbench takes its target and the run's id with a statement
// each (greatbook has them in memory), and the run's state and the
// checkpoints' are the same for every document (their sizes are a real
// run's).
func sequenceScript(ctx context.Context, e *Env, seed EndToEndSeed, targets string) (Script, error) {
	accounts := map[string]int64{}
	all, err := ledger.Accounts(ctx, e.Pool, seed.Org.ID)
	if err != nil {
		return Script{}, err
	}
	for _, a := range all {
		accounts[a.Code] = a.ID
	}
	w := &approveWorld{org: seed.Org, user: seed.User}
	s := w.scriptVars()
	setAt := time.Now().UTC()
	state := bookkeeper.State{IntakeID: seed.IDs[0], JobID: seed.IDs[0], Supplier: EndToEndSupplier, SupplierName: "Bench Supplier AB",
		Currency: "EUR", BaseCurrency: "EUR", IssueDate: "2026-11-20"}
	loaded, _ := json.Marshal(state)
	state.Account, state.AccountFrom, state.ChosenBy, state.AccountSetBy, state.AccountSetAt = "6000", "supplier", "rule", "bench", &setAt
	chosen, _ := json.Marshal(state)
	state.Rate, state.RateFrom = "1", "base currency"
	rated, _ := json.Marshal(state)
	posted, _ := json.Marshal(map[string]any{"account": "6000", "entry_id": 0, "job_id": 0, "replayed": false,
		"run_id": "00000000-0000-0000-0000-000000000000"})
	for k, v := range map[string]string{
		// The run's claim and end.
		"owner": "bench|0|0|00000000|000000000000", "ttl": "30", "finaldata": string(rated),
		"nodes": "{load,account,rate,post}", "outcomes": "{ok,ok,ok,ok}", "nexts": `{account,rate,post,""}`,
		"states": pgArray(string(loaded), string(chosen), string(rated), string(rated)),
		"notes":  pgArray("", "invoice BENCH-1 from Bench Supplier AB, EUR", "account 6000 mapped for the supplier", "in the base currency posted"),
		"ms":     "{1,0,0,0}",
		// The posting, as the bookkeeper asks the ledger for it.
		"ns": strconv.Itoa(int(database.LockLedgerSourceKey)), "stype": ledger.SourceTypeIntake, "eset": "bill", "edate": "2026-11-20",
		"cur": "EUR", "base": "EUR", "descr": "Bench Supplier AB invoice BENCH-1", "fp": `\x` + strings.Repeat("ab", 32), "rev": "0",
		"bookkeeper": "system:bookkeeper", "codes": "{6000,1400,2000}", "lineno": "{0,1,2}",
		"accts": fmt.Sprintf("{%d,%d,%d}", accounts["6000"], accounts["1400"], accounts["2000"]),
		"debit": "{220.04,55.01,0}", "credit": "{0,0,275.05}", "bdebit": "{220.04,55.01,0}", "bcredit": "{0,0,275.05}",
		"dims": pgArray(`{"supplier":"e2e-supplier","vat_rate":"25"}`, `{"vat_rate":"25"}`, `{"supplier":"e2e-supplier"}`),
		// What the bookkeeper files after the entry.
		"supplier": EndToEndSupplier, "account": "6000", "chosenby": "rule", "setby": "bench", "setat": setAt.Format(time.RFC3339Nano),
		"remembered": "false", "posteddetail": string(posted),
	} {
		s.Vars[k] = v
	}
	r, b, l := runs.Statements, bookkeeper.Statements, ledger.Statements
	s.Text = targetText(targets) + completingText("actor", "uid", "detail") + launchText("actor", "uid") +
		"\\startpipeline\n" +
		Statement(r.AsyncCommit) +
		Statement(r.ClaimFree, "run_id", "owner", "ttl") +
		"\\endpipeline\n" +
		Statement(b.Load, "org", "id") +
		"\\startpipeline\nBEGIN;\n" +
		Statement(l.Lock, "org", "ns", "stype", "id", "eset") +
		Statement(l.Lookup, "org", "stype", "id", "eset") +
		Statement(l.Accounts, "org", "codes") +
		"\\endpipeline\n" +
		strings.TrimSuffix(Statement(l.Insert, "org", "stype", "id", "eset", "edate", "cur", "base", "descr", "fp", "rev", "bookkeeper",
			"lineno", "accts", "debit", "credit", "bdebit", "bcredit", "dims"), ";\n") + " \\gset entry_\n" +
		"\\startpipeline\n" +
		Statement(b.RecordChoice, "org", "id", "entry_id", "supplier", "account", "chosenby", "setby", "setat", "remembered") +
		Statement(b.MarkPosted, "id", "entry_id", "org", "bookkeeper", "posteddetail") +
		Statement(b.FinishJob, "job_id") +
		Statement(r.Finish, "run_id", "owner", "finaldata", "nodes", "outcomes", "nexts", "states", "notes", "ms") +
		"COMMIT;\n\\endpipeline\n"
	return s, nil
}

// pgArray is a PostgreSQL array literal of texts.
func pgArray(elems ...string) string {
	quoted := make([]string, len(elems))
	for i, v := range elems {
		quoted[i] = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
	}
	return "{" + strings.Join(quoted, ",") + "}"
}
