-- +goose Up
-- The org's own bank account, the debtor of its payment files.
ALTER TABLE orgs ADD COLUMN bank_iban text NOT NULL DEFAULT '' CHECK (bank_iban ~ '^([A-Z]{2}[0-9]{2}[0-9A-Z]{11,30})?$'),
    ADD COLUMN bank_bic text NOT NULL DEFAULT '' CHECK (bank_bic ~ '^([A-Z0-9]{8}([A-Z0-9]{3})?)?$');

-- A supplier's bank account an admin confirmed (four eyes: not the one who
-- approved the invoice that named it). An invoice whose IBAN is not the
-- supplier's last paid account, nor confirmed, is blocked from payment.
CREATE TABLE supplier_bank_accounts (
    org_id       bigint NOT NULL REFERENCES orgs (id),
    supplier_key text NOT NULL,
    iban         text NOT NULL CHECK (iban ~ '^[A-Z]{2}[0-9]{2}[0-9A-Z]{11,30}$'),
    confirmed_by text NOT NULL,
    confirmed_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, supplier_key, iban)
);

-- A pay run: what an admin proposed to pay on an execution date, from the
-- org's account. Its message id is the run's own, so its file is the same
-- bytes on every download.
CREATE TABLE payment_runs (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id         bigint NOT NULL REFERENCES orgs (id),
    status         text NOT NULL CHECK (status IN ('proposed', 'approved', 'sent', 'cancelled')),
    execution_date date NOT NULL,
    due_until      date NOT NULL,
    currency       text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    debtor_name    text NOT NULL,
    debtor_iban    text NOT NULL,
    debtor_bic     text NOT NULL DEFAULT '',
    proposed_by    text NOT NULL,
    proposed_at    timestamptz NOT NULL DEFAULT now(),
    approved_by    text,
    approved_at    timestamptz,
    -- The first download of the file: the run is sent, and no longer cancellable.
    exported_at    timestamptz,
    cancelled_by   text,
    cancelled_at   timestamptz
);
CREATE INDEX payment_runs_org ON payment_runs (org_id, id DESC);

-- An invoice in a run. An invoice is in at most one live item (in a run,
-- sent, or paid): the partial unique index, not a check, keeps two runs
-- from both holding it. A removed or cancelled item, or a returned payment,
-- lets it be paid again.
CREATE TABLE payment_items (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    run_id        bigint NOT NULL REFERENCES payment_runs (id),
    org_id        bigint NOT NULL,
    intake_id     bigint NOT NULL REFERENCES intake_documents (id),
    status        text NOT NULL CHECK (status IN ('in_run', 'removed', 'cancelled', 'sent', 'paid', 'returned')),
    amount        numeric(20, 4) NOT NULL CHECK (amount > 0),
    currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    creditor_name text NOT NULL,
    creditor_iban text NOT NULL,
    creditor_bic  text NOT NULL DEFAULT '',
    -- ISO 20022 EndToEndId (at most 35 characters), unique: a statement's
    -- booked debit names its item by it.
    end_to_end_id text NOT NULL CHECK (length(end_to_end_id) BETWEEN 1 AND 35),
    -- The payment's journal entry, once a statement showed it booked.
    entry_id      bigint REFERENCES journal_entries (id),
    paid_at       timestamptz,
    returned_at   timestamptz,
    CONSTRAINT payment_items_end_to_end_key UNIQUE (end_to_end_id)
);
CREATE UNIQUE INDEX payment_items_live_invoice ON payment_items (intake_id) WHERE status IN ('in_run', 'sent', 'paid');
CREATE INDEX payment_items_run ON payment_items (run_id, id);

-- +goose Down
DROP TABLE payment_items;
DROP TABLE payment_runs;
DROP TABLE supplier_bank_accounts;
ALTER TABLE orgs DROP COLUMN bank_iban, DROP COLUMN bank_bic;
