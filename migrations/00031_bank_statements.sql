-- +goose Up
-- An uploaded bank statement (camt.053) or notification (camt.054), once per
-- content in an org. Its entries are stored with it in one transaction, then
-- reconciled in bounded transactions; completed_at is set when none is left,
-- and the counts then say what the import found. An import whose process
-- died in the middle is finished by the next upload of the same bytes, or at
-- startup.
CREATE TABLE bank_statements (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id       bigint NOT NULL REFERENCES orgs (id),
    content_hash text NOT NULL CHECK (content_hash ~ '^[0-9a-f]{64}$'),
    message_type text NOT NULL CHECK (message_type IN ('camt.053.001.08', 'camt.054.001.08')),
    statement_id text NOT NULL CHECK (length(statement_id) <= 1000),
    entries      integer NOT NULL CHECK (entries >= 0),
    matched      integer NOT NULL DEFAULT 0 CHECK (matched >= 0),
    unmatched    integer NOT NULL DEFAULT 0 CHECK (unmatched >= 0),
    imported_by  text NOT NULL,
    imported_at  timestamptz NOT NULL DEFAULT now(),
    completed_at timestamptz,
    CONSTRAINT bank_statements_content_key UNIQUE (org_id, content_hash)
);
CREATE INDEX bank_statements_incomplete ON bank_statements (id) WHERE completed_at IS NULL;

-- One line of a statement: an entry, or one transaction of a batch entry.
-- outcome is NULL until reconciled: matched (it paid its item), returned (it
-- gave a paid item's money back), already_paid / already_returned (an earlier
-- line did), unmatched (for a person, with the reason).
CREATE TABLE bank_statement_entries (
    statement_id     bigint NOT NULL REFERENCES bank_statements (id),
    line             integer NOT NULL CHECK (line > 0),
    org_id           bigint NOT NULL,
    amount           numeric(20, 5) NOT NULL CHECK (amount > 0),
    currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    direction        text NOT NULL CHECK (direction IN ('debit', 'credit')),
    status           text NOT NULL,
    booking_date     date,
    reference        text NOT NULL DEFAULT '',
    end_to_end_id    text NOT NULL DEFAULT '',
    return_reason    text NOT NULL DEFAULT '',
    unsplit          boolean NOT NULL DEFAULT false,
    outcome          text CHECK (outcome IN ('matched', 'returned', 'already_paid', 'already_returned', 'unmatched')),
    reason           text,
    detail           text,
    item_id          bigint REFERENCES payment_items (id),
    entry_id         bigint REFERENCES journal_entries (id),
    reconciled_at    timestamptz,
    PRIMARY KEY (statement_id, line),
    CHECK ((outcome = 'unmatched') = (reason IS NOT NULL))
);
CREATE INDEX bank_statement_entries_pending ON bank_statement_entries (statement_id, line) WHERE outcome IS NULL;
CREATE INDEX bank_statement_entries_item ON bank_statement_entries (item_id) WHERE item_id IS NOT NULL;

-- The journal entry that booked a returned payment's money back.
ALTER TABLE payment_items ADD COLUMN return_entry_id bigint REFERENCES journal_entries (id);

-- +goose Down
ALTER TABLE payment_items DROP COLUMN return_entry_id;
DROP TABLE bank_statement_entries;
DROP TABLE bank_statements;
