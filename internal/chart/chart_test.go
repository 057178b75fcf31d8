package chart_test

import (
	"context"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"greatbook/internal/apperr"
	"greatbook/internal/audit"
	"greatbook/internal/chart"
	"greatbook/internal/coding"
	"greatbook/internal/einvoice"
	"greatbook/internal/ledger"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

var admin = audit.Actor{Label: "admin@example.test"}

// reasons are the fields of an invalid error's reasons, with their messages.
func reasons(t *testing.T, err error) []chart.Fault {
	t.Helper()
	e, ok := apperr.As(err)
	if !ok || e.Code != apperr.Invalid {
		t.Fatalf("want invalid, got %v", err)
	}
	fs, _ := e.Details["reasons"].([]chart.Fault)
	return fs
}

// Creating an account is idempotent for the same facts, refused with
// invalid_state for a code that exists with other facts, and audited once.
func TestCreateAccountIsIdempotentAndRefusesOtherFacts(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	n := chart.NewAccount{Code: "6600", Name: "Hardware", Type: ledger.Expense}
	a, created, err := chart.CreateAccount(ctx, db.Pool, o.ID, n, admin)
	if err != nil || !created || !a.Active || a.Code != "6600" {
		t.Fatalf("first create: %+v %v %v", a, created, err)
	}
	if _, created, err := chart.CreateAccount(ctx, db.Pool, o.ID, n, admin); err != nil || created {
		t.Fatalf("same account again: created %v, %v", created, err)
	}
	n.Name = "Computers"
	if _, _, err := chart.CreateAccount(ctx, db.Pool, o.ID, n, admin); !apperr.Is(err, apperr.InvalidState) {
		t.Fatalf("other facts: want invalid_state, got %v", err)
	}
	_, _, err = chart.CreateAccount(ctx, db.Pool, o.ID, chart.NewAccount{Code: "-x", Name: " ", Type: "cost"}, admin)
	if fs := reasons(t, err); len(fs) != 3 {
		t.Fatalf("want a reason for code, name and type, got %+v", fs)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'account_created'`, o.ID); n != 1 {
		t.Fatalf("account_created events: %d, want 1", n)
	}
}

// A deactivated account stays in the chart, is refused on new entries by
// the ledger, and comes back when reactivated; each change is audited once.
func TestDeactivateAndReactivateAnAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	a, err := chart.SetAccountActive(ctx, db.Pool, o.ID, "6300", false, admin)
	if err != nil || a.Active {
		t.Fatalf("deactivate: %+v %v", a, err)
	}
	if _, err := chart.SetAccountActive(ctx, db.Pool, o.ID, "6300", false, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := chart.SetAccountActive(ctx, db.Pool, o.ID, "nope", false, admin); !apperr.Is(err, apperr.NotFound) {
		t.Fatalf("unknown account: want not_found, got %v", err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'account_deactivated'`, o.ID); n != 1 {
		t.Fatalf("account_deactivated events: %d, want 1", n)
	}
	if a, err = chart.SetAccountActive(ctx, db.Pool, o.ID, "6300", true, admin); err != nil || !a.Active {
		t.Fatalf("reactivate: %+v %v", a, err)
	}
}

// A dimension is created by its first values; values not listed keep their
// state; a reserved or malformed name is refused naming why.
func TestPutValuesKeepsWhatIsNotListed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	d, err := chart.PutValues(ctx, db.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Operations"}, {Code: "RND", Name: "Research"}}, admin)
	if err != nil || len(d.Values) != 2 || !d.Values[0].Active {
		t.Fatalf("first put: %+v %v", d, err)
	}
	d, err = chart.PutValues(ctx, db.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Ops", Active: new(false)}}, admin)
	if err != nil {
		t.Fatal(err)
	}
	want := []chart.Value{{Code: "OPS", Name: "Ops", Active: false}, {Code: "RND", Name: "Research", Active: true}}
	if len(d.Values) != 2 || d.Values[0] != want[0] || d.Values[1] != want[1] {
		t.Fatalf("after second put: %+v, want %+v", d.Values, want)
	}
	if _, err := chart.PutValues(ctx, db.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Ops"}}, admin); err != nil {
		t.Fatal(err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action LIKE 'dimension_%'`, o.ID); n != 3 {
		t.Fatalf("dimension events: %d, want 3 (created, set, set; the unchanged put writes none)", n)
	}
	for _, name := range []string{"supplier", "vat_rate", "kind", "Cost", "1x", ""} {
		err := chart.CheckDimensionName(name)
		if fs := reasons(t, err); len(fs) != 1 || fs[0].Field != "name" {
			t.Fatalf("%q: %+v", name, fs)
		}
		if name == "kind" && !strings.Contains(err.Error(), "reserved") {
			t.Fatalf("kind: %v does not say it is reserved", err)
		}
	}
	_, err = chart.PutValues(ctx, db.Pool, o.ID, "project", []chart.ValueChange{{Code: "A", Name: "a"}, {Code: "A", Name: "b"}, {Code: "", Name: ""}}, admin)
	if fs := reasons(t, err); len(fs) != 3 || fs[0].Field != "values[1].code" {
		t.Fatalf("bad values: %+v", fs)
	}
	ds, err := chart.Dimensions(ctx, db.Pool, o.ID)
	if err != nil || len(ds) != 1 || ds[0].Name != "cost_center" {
		t.Fatalf("dimensions: %+v %v", ds, err)
	}
}

// An import is all or nothing, names every bad row by its line, takes a
// BOM and semicolons, and changes nothing when repeated.
func TestImportAccountsAllOrNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	bad := "code,name,type\n6600,Hardware,expense\n6300,Travel,income\n,Nameless,expense\n6700,Legal,cost\n"
	_, err := chart.ImportAccounts(ctx, db.Pool, o.ID, []byte(bad), "bad.csv", admin)
	fs := reasons(t, err)
	var lines []string
	for _, f := range fs {
		lines = append(lines, f.Field)
	}
	// The type of 6300 (line 3) is checked against the chart only once the file parses.
	if strings.Join(lines, " ") != "line 4 line 5" {
		t.Fatalf("faults: %+v", fs)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM accounts WHERE org_id = $1 AND code = '6600'`, o.ID); n != 0 {
		t.Fatal("a refused file wrote an account")
	}
	_, err = chart.ImportAccounts(ctx, db.Pool, o.ID, []byte("code,name,type\n6300,Travel,income\n"), "type.csv", admin)
	if fs := reasons(t, err); len(fs) != 1 || fs[0].Field != "line 2" {
		t.Fatalf("type change: %+v", fs)
	}
	good := "\uFEFFcode;name;type;active\r\n6600;Hardware;expense;\r\n6300;Travel and lodging;expense;no\r\n"
	res, err := chart.ImportAccounts(ctx, db.Pool, o.ID, []byte(good), "good.csv", admin)
	if err != nil || res != (chart.Imported{Rows: 2, Added: 1, Changed: 1}) {
		t.Fatalf("import: %+v %v", res, err)
	}
	res, err = chart.ImportAccounts(ctx, db.Pool, o.ID, []byte(good), "good.csv", admin)
	if err != nil || res != (chart.Imported{Rows: 2}) {
		t.Fatalf("re-import: %+v %v", res, err)
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM accounts WHERE org_id = $1 AND code = '6300' AND NOT active AND name = 'Travel and lodging'`, o.ID); n != 1 {
		t.Fatal("6300 not renamed and deactivated")
	}
	if n := testkit.Count(t, db, `SELECT count(*) FROM audit_events WHERE org_id = $1 AND action = 'accounts_imported'`, o.ID); n != 1 {
		t.Fatalf("accounts_imported events: %d, want 1", n)
	}
	res, err = chart.ImportValues(ctx, db.Pool, o.ID, "project", []byte("code,name\nP1,Apollo\nP2,Gemini\n"), "p.csv", admin)
	if err != nil || res != (chart.Imported{Rows: 2, Added: 2}) {
		t.Fatalf("values import: %+v %v", res, err)
	}
}

// Hostile files are refused at the door, naming the line where that helps.
func TestParseRefusesHostileFiles(t *testing.T) {
	t.Parallel()
	for name, tc := range map[string]struct {
		data string
		code apperr.Code
		line string
	}{
		"nul":          {"code,name\nA,B\x00\n", apperr.Invalid, "line 2"},
		"invalid utf8": {"code,name\nA,\xff\n", apperr.Invalid, "line 2"},
		"empty":        {"", apperr.Invalid, "line 1"},
		"header only":  {"code,name\n", apperr.Invalid, "line 2"},
		"no code":      {"name,active\nA,yes\n", apperr.Invalid, "line 1"},
		"stray quote":  {"code,name\nA,\"B\nC,D\n", apperr.Invalid, ""},
		"fields":       {"code,name\nA,B,C\n", apperr.Invalid, "line 2"},
		"too large":    {"code,name\n" + strings.Repeat("x", chart.MaxImportBytes), apperr.TooLarge, ""},
		"too many":     {"code,name\n" + strings.Repeat("A,B\n", chart.MaxImportRows+1), apperr.TooLarge, ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := chart.ParseValues([]byte(tc.data))
			if !apperr.Is(err, tc.code) {
				t.Fatalf("want %s, got %v", tc.code, err)
			}
			if tc.line != "" {
				if fs := reasons(t, err); len(fs) == 0 || fs[0].Field != tc.line {
					t.Fatalf("want %s named, got %+v", tc.line, fs)
				}
			}
		})
	}
}

// FuzzParse: no file panics the parsers, and what they accept holds only
// codes and names the database accepts.
func FuzzParse(f *testing.F) {
	f.Add([]byte("code,name,type,active\n6100,Software,expense,yes\n"))
	f.Add([]byte("\uFEFFcode;name\nOPS;\"Ops; and more\"\n"))
	f.Add([]byte("code,name\n\"a\"\"b\",x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if rows, err := chart.ParseAccounts(data); err == nil {
			for _, r := range rows {
				if r.Code == "" || r.Name == "" || strings.ContainsRune(r.Name, 0) {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
		if rows, err := chart.ParseValues(data); err == nil {
			for _, r := range rows {
				if r.Code == "" || r.Name == "" {
					t.Fatalf("accepted %+v", r)
				}
			}
		}
	})
}

// What a coding is checked against follows the chart: a deactivated
// account or value is refused by coding.Check as inactive, by its row, and
// is accepted again once reactivated.
func TestACodingRefusesWhatIsDeactivated(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := chart.PutValues(ctx, db.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Operations", Active: new(false)}}, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := chart.SetAccountActive(ctx, db.Pool, o.ID, "6300", false, admin); err != nil {
		t.Fatal(err)
	}
	doc := einvoice.Document{Totals: einvoice.Totals{Net: decimal.RequireFromString("100.00")}}
	rows := []coding.Row{{Account: "6300", Dimensions: map[string]string{"cost_center": "OPS"}, Amount: decimal.RequireFromString("100.00")}}
	c, err := coding.ChartOf(ctx, db.Pool, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	err = coding.Check(doc, rows, c)
	e, _ := apperr.As(err)
	if e == nil || e.Code != apperr.Invalid {
		t.Fatalf("want invalid, got %v", err)
	}
	var fields []string
	for _, f := range e.Details["reasons"].([]coding.Fault) {
		fields = append(fields, f.Field+": "+f.Message)
	}
	if got := strings.Join(fields, "; "); got != "coding[0].account: account 6300 is inactive; coding[0].dimensions.cost_center: value OPS of cost_center is inactive" {
		t.Fatalf("reasons: %s", got)
	}
	if _, err := chart.SetAccountActive(ctx, db.Pool, o.ID, "6300", true, admin); err != nil {
		t.Fatal(err)
	}
	if _, err := chart.PutValues(ctx, db.Pool, o.ID, "cost_center", []chart.ValueChange{{Code: "OPS", Name: "Operations", Active: new(true)}}, admin); err != nil {
		t.Fatal(err)
	}
	if c, err = coding.ChartOf(ctx, db.Pool, o.ID); err != nil {
		t.Fatal(err)
	}
	if err := coding.Check(doc, rows, c); err != nil {
		t.Fatalf("reactivated: %v", err)
	}
}

// Two changes of one dimension's values come one after the other: a change
// waits for the dimension's row another holds (pg_blocking_pids), and then
// builds on what the other wrote rather than on what it read before.
func TestChangesOfOneDimensionWaitForEachOther(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	if _, err := chart.PutValues(ctx, db.Pool, o.ID, "project", []chart.ValueChange{{Code: "P1", Name: "Apollo"}}, admin); err != nil {
		t.Fatal(err)
	}
	holder := db.Conn(t)
	tx, err := holder.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `SELECT id FROM dimensions WHERE org_id = $1 AND name = 'project' FOR UPDATE`, o.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, `UPDATE dimension_values SET active = false WHERE code = 'P1'`); err != nil {
		t.Fatal(err)
	}
	done := make(chan chart.Dimension, 1)
	failed := make(chan error, 1)
	go func() {
		d, err := chart.PutValues(ctx, db.Pool, o.ID, "project", []chart.ValueChange{{Code: "P1", Name: "Apollo 11"}}, admin)
		if err != nil {
			failed <- err
			return
		}
		done <- d
	}()
	testkit.WaitForLockWaiter(t, db.Conn(t))
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-failed:
		t.Fatal(err)
	case d := <-done:
		// The waiting change kept the state the other wrote (inactive):
		// it read the values only once it held the dimension.
		if len(d.Values) != 1 || d.Values[0] != (chart.Value{Code: "P1", Name: "Apollo 11", Active: false}) {
			t.Fatalf("values after both: %+v", d.Values)
		}
	}
}
