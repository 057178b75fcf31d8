-- +goose Up
-- Chart of accounts, per org.
CREATE TABLE accounts (
    id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id  bigint NOT NULL REFERENCES orgs (id),
    code    text NOT NULL CHECK (code ~ '^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$'),
    name    text NOT NULL CHECK (btrim(name) <> ''),
    type    text NOT NULL CHECK (type IN ('asset', 'liability', 'equity', 'income', 'expense')),
    active  boolean NOT NULL DEFAULT true,
    -- The only index holding org_id: a lookup by code can use no other (see
    -- the note on journal_entries_source_key).
    CONSTRAINT accounts_org_code_key UNIQUE (org_id, code)
);

-- The account a supplier's costs go to when nobody said otherwise.
ALTER TABLE orgs ADD COLUMN default_expense_account_id bigint REFERENCES accounts (id);

CREATE TABLE journal_entries (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id        bigint NOT NULL REFERENCES orgs (id),
    -- The source key: who asked for this entry, and which of its entries it is.
    source_type   text NOT NULL CHECK (source_type ~ '^[a-z][a-z0-9_.-]{0,63}$'),
    source_id     text NOT NULL CHECK (length(source_id) BETWEEN 1 AND 200),
    entry_set     text NOT NULL CHECK (length(entry_set) BETWEEN 1 AND 200),
    entry_date    date NOT NULL,
    currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    base_currency text NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
    description   text NOT NULL DEFAULT '',
    -- SHA-256 of the canonical encoding of the immutable facts (internal/ledger/fingerprint.go).
    -- NULL for historical entries imported before fingerprints existed: they are
    -- compared by reconstruction, and never given a guessed fingerprint.
    fingerprint   bytea CHECK (fingerprint IS NULL OR length(fingerprint) = 32),
    reverses_id   bigint,
    created_by    text NOT NULL DEFAULT '',
    created_at    timestamptz NOT NULL DEFAULT now(),
    -- The backstop for posts that race past the advisory lock.
    -- It is also the only index holding any of its columns. While a table is
    -- empty, or its statistics are (a new deployment, before autovacuum
    -- analyses it), every index that could serve a lookup costs about the
    -- same, and a generic plan cached then would scan another index for
    -- ever after. So same-org consistency is checked by triggers rather than
    -- by composite foreign keys, whose (id, org_id) indexes would compete.
    -- Proved by TestSourceKeyLookupUsesTheUniqueIndex.
    CONSTRAINT journal_entries_source_key UNIQUE (org_id, source_type, source_id, entry_set),
    CONSTRAINT journal_entries_reverses_fkey FOREIGN KEY (reverses_id) REFERENCES journal_entries (id)
);
CREATE INDEX journal_entries_date_idx ON journal_entries (entry_date, id);
CREATE INDEX journal_entries_reverses_idx ON journal_entries (reverses_id) WHERE reverses_id IS NOT NULL;

CREATE TABLE journal_lines (
    entry_id    bigint NOT NULL,
    org_id      bigint NOT NULL,
    line_no     integer NOT NULL CHECK (line_no >= 0),
    account_id  bigint NOT NULL,
    debit       numeric(20, 4) NOT NULL CHECK (debit >= 0),
    credit      numeric(20, 4) NOT NULL CHECK (credit >= 0),
    base_debit  numeric(20, 4) NOT NULL CHECK (base_debit >= 0),
    base_credit numeric(20, 4) NOT NULL CHECK (base_credit >= 0),
    dimensions  jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    PRIMARY KEY (entry_id, line_no),
    -- Same org as the entry and the account: checked by journal_lines_check_insert.
    FOREIGN KEY (entry_id) REFERENCES journal_entries (id),
    FOREIGN KEY (account_id) REFERENCES accounts (id),
    -- Exactly one side, and the base amount on the same side.
    CONSTRAINT journal_lines_one_side CHECK ((debit > 0) <> (credit > 0)),
    CONSTRAINT journal_lines_base_side CHECK ((debit > 0 AND base_credit = 0) OR (credit > 0 AND base_debit = 0))
);
CREATE INDEX journal_lines_account_idx ON journal_lines (account_id);

-- +goose StatementBegin
-- At commit: every entry has at least two lines and balances in its own and in base currency.
CREATE FUNCTION journal_entry_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    n integer; d numeric; c numeric; bd numeric; bc numeric;
BEGIN
    SELECT count(*), coalesce(sum(debit), 0), coalesce(sum(credit), 0), coalesce(sum(base_debit), 0), coalesce(sum(base_credit), 0)
      INTO n, d, c, bd, bc
      FROM journal_lines WHERE entry_id = NEW.id;
    IF n < 2 THEN
        RAISE EXCEPTION 'journal entry % has % lines; at least two are needed', NEW.id, n USING ERRCODE = 'check_violation';
    END IF;
    IF d <> c THEN
        RAISE EXCEPTION 'journal entry % does not balance: debits % <> credits %', NEW.id, d, c USING ERRCODE = 'check_violation';
    END IF;
    IF bd <> bc THEN
        RAISE EXCEPTION 'journal entry % does not balance in base currency: debits % <> credits %', NEW.id, bd, bc USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE CONSTRAINT TRIGGER journal_entries_balanced AFTER INSERT ON journal_entries
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION journal_entry_balanced();

-- +goose StatementBegin
-- Lines join their entry in the transaction that creates it, in its org, and
-- only on active accounts of that org.
CREATE FUNCTION journal_lines_check_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM new_lines l JOIN journal_entries e ON e.id = l.entry_id JOIN accounts a ON a.id = l.account_id
               WHERE e.org_id <> l.org_id OR a.org_id <> l.org_id) THEN
        RAISE EXCEPTION 'journal lines must belong to the org of their entry and of their account'
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    IF EXISTS (SELECT 1 FROM new_lines l JOIN journal_entries e ON e.id = l.entry_id
               WHERE e.xmin <> pg_current_xact_id()::xid) THEN
        RAISE EXCEPTION 'journal entries are immutable: lines cannot be added to an entry of an earlier transaction'
            USING ERRCODE = 'restrict_violation';
    END IF;
    IF EXISTS (SELECT 1 FROM new_lines l JOIN accounts a ON a.id = l.account_id WHERE NOT a.active) THEN
        RAISE EXCEPTION 'journal lines must use active accounts' USING ERRCODE = 'check_violation';
    END IF;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER journal_lines_check_insert AFTER INSERT ON journal_lines
    REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_check_insert();

-- +goose StatementBegin
-- A reversal reverses an entry of its own org.
CREATE FUNCTION journal_entries_check_insert() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.reverses_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM journal_entries WHERE id = NEW.reverses_id AND org_id = NEW.org_id) THEN
        RAISE EXCEPTION 'entry % reverses entry %, which is not in its org', NEW.id, NEW.reverses_id
            USING ERRCODE = 'foreign_key_violation', CONSTRAINT = 'journal_entries_reverses_fkey';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER journal_entries_check_insert BEFORE INSERT ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION journal_entries_check_insert();

-- +goose StatementBegin
-- The default expense account belongs to the org.
CREATE FUNCTION orgs_check_default_account() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.default_expense_account_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM accounts WHERE id = NEW.default_expense_account_id AND org_id = NEW.id) THEN
        RAISE EXCEPTION 'account % is not in org %', NEW.default_expense_account_id, NEW.id
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NEW;
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER orgs_check_default_account BEFORE INSERT OR UPDATE OF default_expense_account_id ON orgs
    FOR EACH ROW EXECUTE FUNCTION orgs_check_default_account();

-- +goose StatementBegin
CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is immutable: corrections are reversal entries', TG_TABLE_NAME USING ERRCODE = 'restrict_violation';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER journal_entries_immutable BEFORE UPDATE OR DELETE ON journal_entries
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_lines_immutable BEFORE UPDATE OR DELETE ON journal_lines
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_entries_no_truncate BEFORE TRUNCATE ON journal_entries
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER journal_lines_no_truncate BEFORE TRUNCATE ON journal_lines
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();

-- +goose Down
DROP TABLE journal_lines;
DROP TABLE journal_entries;
DROP FUNCTION ledger_immutable();
DROP TRIGGER orgs_check_default_account ON orgs;
DROP FUNCTION orgs_check_default_account();
DROP FUNCTION journal_entries_check_insert();
DROP FUNCTION journal_lines_check_insert();
DROP FUNCTION journal_entry_balanced();
ALTER TABLE orgs DROP COLUMN default_expense_account_id;
DROP TABLE accounts;
