-- +goose Up
-- Every account's debits and credits per month, in base currency, kept by
-- the posting transaction itself so that the trial balance reads a row per
-- account and month instead of every line. A line counts once under
-- dimension '' (all of the account's lines) and once under each of its
-- dimensions with that dimension's value, which the reports by dimension
-- read. Journal lines are immutable, so the balances only ever grow by
-- inserts (journal_lines_update_balances) and never drift from the lines;
-- ledger.CheckBalances compares them, and every test using testkit.NewDB
-- runs that check when it ends. No foreign keys: every row comes from lines
-- whose org and account were checked, and the posting need not pay for
-- checking them again.
CREATE TABLE ledger_balances (
    org_id     bigint NOT NULL,
    -- '' for all of the account's lines, or a dimension's name.
    dimension  text NOT NULL,
    -- The dimension's value ('' with dimension ''). Lines without the
    -- dimension have no row of their own: they are the account's total
    -- less its values.
    value      text NOT NULL CHECK ((dimension = '') = (value = '')),
    account_id bigint NOT NULL,
    -- The first day of the month of the entries' date.
    period     date NOT NULL CHECK (extract(day FROM period) = 1),
    -- Concurrent postings to one account and month update different rows,
    -- so they do not queue on one row lock until each other's commit: each
    -- posting transaction holds a slot of its own (below). Readers sum the
    -- slots.
    slot       smallint NOT NULL CHECK (slot >= 0),
    debit      numeric NOT NULL CHECK (debit >= 0),
    credit     numeric NOT NULL CHECK (credit >= 0),
    lines      bigint NOT NULL CHECK (lines > 0),
    -- The trial balance reads (org_id, ''), a report by dimension
    -- (org_id, '') and (org_id, dimension). Every posting updates its rows:
    -- half of each page is left free so that the updates can stay HOT.
    PRIMARY KEY (org_id, dimension, value, account_id, period, slot)
) WITH (fillfactor = 50);

-- +goose StatementBegin
-- Adds the inserted lines to the balances in the inserting transaction.
-- The transaction first takes a slot, 0 to 7, that no other transaction
-- holds until it ends (the advisory lock 71004 of database.LockBalanceSlot
-- on the slot; probing from the backend's pid, so a connection usually
-- finds the one it had): concurrent postings never update the same rows,
-- and so never wait for or deadlock with each other on them, even when
-- one transaction posts several entries. Only a ninth concurrent posting
-- waits, for the slot of its pid, before it has locked any balance.
-- A transaction keeps its slot: trying a lock it holds succeeds.
-- Then one upsert, its rows in key order.
CREATE FUNCTION journal_lines_update_balances() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    s smallint;
BEGIN
    FOR i IN 0..7 LOOP
        s := (pg_backend_pid() + i) % 8;
        IF pg_try_advisory_xact_lock(71004, s) THEN
            EXIT;
        END IF;
        IF i = 7 THEN
            s := pg_backend_pid() % 8;
            PERFORM pg_advisory_xact_lock(71004, s);
        END IF;
    END LOOP;
    INSERT INTO ledger_balances AS b (org_id, dimension, value, account_id, period, slot, debit, credit, lines)
    SELECT l.org_id, d.dimension, d.value, l.account_id, date_trunc('month', e.entry_date::timestamp)::date,
           s, sum(l.base_debit), sum(l.base_credit), count(*)
    FROM new_lines l
    JOIN journal_entries e ON e.id = l.entry_id
    CROSS JOIN LATERAL (SELECT '', '' UNION ALL
                        SELECT key, value FROM jsonb_each_text(l.dimensions) WHERE value <> '') AS d (dimension, value)
    GROUP BY 1, 2, 3, 4, 5
    ORDER BY 1, 2, 3, 4, 5
    ON CONFLICT (org_id, dimension, value, account_id, period, slot) DO UPDATE
        SET debit = b.debit + excluded.debit, credit = b.credit + excluded.credit, lines = b.lines + excluded.lines;
    RETURN NULL;
END;
$$;
-- +goose StatementEnd
-- Named to fire after journal_lines_check_insert (statement triggers fire in
-- name order): lines it refuses take no balance locks.
CREATE TRIGGER journal_lines_update_balances AFTER INSERT ON journal_lines
    REFERENCING NEW TABLE AS new_lines FOR EACH STATEMENT EXECUTE FUNCTION journal_lines_update_balances();

INSERT INTO ledger_balances (org_id, dimension, value, account_id, period, slot, debit, credit, lines)
SELECT l.org_id, d.dimension, d.value, l.account_id, date_trunc('month', e.entry_date::timestamp)::date, 0,
       sum(l.base_debit), sum(l.base_credit), count(*)
FROM journal_lines l
JOIN journal_entries e ON e.id = l.entry_id
CROSS JOIN LATERAL (SELECT '', '' UNION ALL
                    SELECT key, value FROM jsonb_each_text(l.dimensions) WHERE value <> '') AS d (dimension, value)
GROUP BY 1, 2, 3, 4, 5;

-- +goose Down
DROP TRIGGER journal_lines_update_balances ON journal_lines;
DROP FUNCTION journal_lines_update_balances();
DROP TABLE ledger_balances;
