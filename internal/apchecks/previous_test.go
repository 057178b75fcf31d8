package apchecks_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"greatbook/internal/apchecks"
	"greatbook/internal/testkit"
)

func TestMain(m *testing.M) { testkit.Main(m) }

// PreviousAccounts reads only the same supplier's posted invoices filed
// before the document, groups them by normalised IBAN, newest first, and
// finds them through the index made for it.
func TestPreviousAccounts(t *testing.T) {
	t.Parallel()
	db := testkit.NewDB(t)
	o := testkit.Org(t, db)
	ctx := context.Background()
	insert := func(status, docType, supplier, number, iban string) int64 {
		t.Helper()
		b := make([]byte, 32)
		_, _ = rand.Read(b)
		var id int64
		err := db.Pool.QueryRow(ctx, `INSERT INTO intake_documents (org_id, content_hash, media_type, size_bytes,
			received_via, received_by, status, doc_type, source_ref, format, fields, queued_at)
			VALUES ($1, $2, 'application/json', 1, 'api', 'test', $3, $4, $5, 'json', $6, now()) RETURNING id`,
			o.ID, hex.EncodeToString(b), status, docType, supplier+"/"+number,
			fmt.Sprintf(`{"number": %q, "payee_iban": %q}`, number, iban)).Scan(&id)
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	const s = "vat:DE111111111"
	a1 := insert("posted", "invoice", s, "1", "DE89 3704 0044 0532 0130 00")
	insert("posted", "invoice", "vat:DE111111111X", "2", "XX00") // another supplier, same prefix
	insert("posted", "credit_note", s, "3", "XX01")              // a credit note
	insert("pending", "invoice", s, "4", "XX02")                 // not posted
	b1 := insert("posted", "invoice", s, "5", "GB33BUKB20201555555555")
	a2 := insert("posted", "invoice", s, "6", "de89370400440532013000")
	insert("posted", "invoice", s, "7", "") // no account stated
	me := insert("pending", "invoice", s, "8", "FR7630006000011234567890189")
	insert("posted", "invoice", s, "9", "XX03") // filed after this one

	got, err := apchecks.PreviousAccounts(ctx, db.Pool, o.ID, me, s+"/8")
	if err != nil {
		t.Fatal(err)
	}
	want := []apchecks.PreviousAccount{
		{IBAN: "DE89370400440532013000", Documents: []int64{a2, a1}},
		{IBAN: "GB33BUKB20201555555555", Documents: []int64{b1}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v, want %+v", got, want)
	}

	conn, err := db.Pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SET enable_seqscan = off`); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.Query(ctx, `EXPLAIN `+apchecks.PreviousAccountsSQL, o.ID, me, s, apchecks.MaxPreviousInvoices)
	if err != nil {
		t.Fatal(err)
	}
	var plan []string
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(plan, "\n"), "intake_approved_supplier_idx") {
		t.Fatalf("the query does not use its index:\n%s", strings.Join(plan, "\n"))
	}
}
