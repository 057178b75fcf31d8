-- +goose Up
-- A supplier's account an admin confirmed may stand for an invalid IBAN
-- an invoice states (a misprint, a misread): replaces is that IBAN, and
-- the supplier's invoices stating it are paid to the confirmed one. An
-- account confirmed as it stands replaces nothing ('').
ALTER TABLE supplier_bank_accounts ADD COLUMN replaces text NOT NULL DEFAULT '' CHECK (length(replaces) <= 64);
ALTER TABLE supplier_bank_accounts DROP CONSTRAINT supplier_bank_accounts_pkey;
ALTER TABLE supplier_bank_accounts ADD PRIMARY KEY (org_id, supplier_key, replaces, iban);
CREATE UNIQUE INDEX supplier_bank_accounts_one_correction ON supplier_bank_accounts (org_id, supplier_key, replaces)
    WHERE replaces <> '';

-- A credit note of the same supplier that refers to an invoice (its billing
-- reference is the invoice's number) is netted against it: the item pays
-- the difference and names the credit note. A credit note is netted in at
-- most one live item, by the same kind of partial unique index as invoices.
ALTER TABLE payment_items ADD COLUMN credit_note_id bigint REFERENCES intake_documents (id),
    ADD COLUMN credited numeric(20, 4) CHECK (credited > 0);
CREATE UNIQUE INDEX payment_items_live_credit_note ON payment_items (credit_note_id)
    WHERE status IN ('in_run', 'sent', 'paid') AND credit_note_id IS NOT NULL;

-- +goose Down
DROP INDEX supplier_bank_accounts_one_correction;
DROP INDEX payment_items_live_credit_note;
ALTER TABLE payment_items DROP COLUMN credit_note_id, DROP COLUMN credited;
DELETE FROM supplier_bank_accounts WHERE replaces <> '';
ALTER TABLE supplier_bank_accounts DROP CONSTRAINT supplier_bank_accounts_pkey;
ALTER TABLE supplier_bank_accounts DROP COLUMN replaces;
ALTER TABLE supplier_bank_accounts ADD PRIMARY KEY (org_id, supplier_key, iban);
