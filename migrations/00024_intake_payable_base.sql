-- +goose Up
-- The desk sorts amounts in the org's base currency: 24,231 SEK is more
-- than 1,020 EUR only once the euros are converted. payable_base is the
-- amount payable converted as the bookkeeper converts it: unchanged in the
-- base currency; for a posted document at the rate its journal entry was
-- posted at; otherwise at the remembered rate of the issue date or of the
-- six days before it (the bookkeeper's look-up). NULL when no such rate is
-- known yet (or the document has no amount): the desk sorts those rows
-- after the converted ones and shows "no rate yet".
--
-- A stored column, so that a tab sorted by amount is one ordered index scan
-- per status, like every other order of the desk. It is kept true by
-- triggers: on the document when its fields or its entry change, and on
-- the documents a remembered rate converts when that rate is remembered,
-- changed or forgotten (the rate's own transaction updates them).
ALTER TABLE intake_documents ADD COLUMN payable_base numeric;

-- +goose StatementBegin
CREATE FUNCTION intake_payable_base(p_org bigint, p_fields jsonb, p_entry bigint) RETURNS numeric
LANGUAGE plpgsql STABLE AS $$
DECLARE
    v_payable  numeric := (p_fields #>> '{totals,payable}')::numeric;
    v_currency text := p_fields ->> 'currency';
    v_base     text;
    v_issued   date;
    v_rate     numeric;
BEGIN
    IF v_payable IS NULL OR v_currency IS NULL THEN
        RETURN NULL;
    END IF;
    SELECT o.base_currency INTO v_base FROM orgs o WHERE o.id = p_org;
    IF v_currency = v_base THEN
        RETURN v_payable;
    END IF;
    IF p_entry IS NOT NULL THEN
        -- The entry balances in both currencies: its base total over its
        -- total is the rate it was posted at.
        SELECT sum(l.base_debit) / nullif(sum(l.debit), 0) INTO v_rate FROM journal_lines l WHERE l.entry_id = p_entry;
        IF v_rate IS NOT NULL THEN
            RETURN v_payable * v_rate;
        END IF;
    END IF;
    IF coalesce(p_fields ->> 'issue_date', '') !~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$' THEN
        RETURN NULL;
    END IF;
    BEGIN
        v_issued := (p_fields ->> 'issue_date')::date;
    EXCEPTION WHEN datetime_field_overflow OR invalid_datetime_format THEN
        RETURN NULL;
    END;
    SELECT r.rate INTO v_rate FROM exchange_rates r
    WHERE r.org_id = p_org AND r.currency = v_currency AND r.rate_date <= v_issued AND r.rate_date > v_issued - 7
    ORDER BY r.rate_date DESC LIMIT 1;
    RETURN v_payable * v_rate;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION intake_documents_payable_base() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    NEW.payable_base := intake_payable_base(NEW.org_id, NEW.fields, NEW.result_entry_id);
    RETURN NEW;
END $$;
-- +goose StatementEnd
CREATE TRIGGER intake_documents_payable_base BEFORE INSERT OR UPDATE OF fields, result_entry_id, org_id ON intake_documents
    FOR EACH ROW EXECUTE FUNCTION intake_documents_payable_base();

-- The documents a rate of currency on day converts: not posted (a posted
-- one keeps its entry's rate), issued that day or in the six days after.
-- The status list lets intake_desk_issued_idx find them.
-- +goose StatementBegin
CREATE FUNCTION intake_reprice(p_org bigint, p_currency text, p_day date) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE intake_documents d SET payable_base = intake_payable_base(d.org_id, d.fields, d.result_entry_id)
    WHERE d.org_id = p_org AND d.status = ANY ('{received,pending,flagged,active,posted,rejected}'::text[])
      AND d.fields ->> 'issue_date' >= to_char(p_day, 'YYYY-MM-DD') AND d.fields ->> 'issue_date' < to_char(p_day + 7, 'YYYY-MM-DD')
      AND d.currency = p_currency AND d.result_entry_id IS NULL;
END $$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE FUNCTION exchange_rates_reprice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') THEN
        PERFORM intake_reprice(OLD.org_id, OLD.currency, OLD.rate_date);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM intake_reprice(NEW.org_id, NEW.currency, NEW.rate_date);
    END IF;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER exchange_rates_reprice AFTER INSERT OR UPDATE OR DELETE ON exchange_rates
    FOR EACH ROW EXECUTE FUNCTION exchange_rates_reprice();

-- +goose StatementBegin
CREATE FUNCTION orgs_reprice() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE intake_documents d SET payable_base = intake_payable_base(d.org_id, d.fields, d.result_entry_id) WHERE d.org_id = NEW.id;
    RETURN NULL;
END $$;
-- +goose StatementEnd
CREATE TRIGGER orgs_reprice AFTER UPDATE OF base_currency ON orgs
    FOR EACH ROW WHEN (OLD.base_currency IS DISTINCT FROM NEW.base_currency) EXECUTE FUNCTION orgs_reprice();

UPDATE intake_documents SET payable_base = intake_payable_base(org_id, fields, result_entry_id) WHERE payable IS NOT NULL;

-- Ascending, and descending with the rows without a rate still last: one
-- index for each, read per status as the other orders are.
DROP INDEX intake_desk_amount_idx;
CREATE INDEX intake_desk_base_amount_idx ON intake_documents (org_id, status, payable_base, id);
CREATE INDEX intake_desk_base_amount_desc_idx ON intake_documents (org_id, status, payable_base DESC NULLS LAST, id DESC);

-- +goose Down
DROP INDEX intake_desk_base_amount_desc_idx;
DROP INDEX intake_desk_base_amount_idx;
CREATE INDEX intake_desk_amount_idx ON intake_documents (org_id, status, payable, id);
DROP TRIGGER orgs_reprice ON orgs;
DROP FUNCTION orgs_reprice();
DROP TRIGGER exchange_rates_reprice ON exchange_rates;
DROP FUNCTION exchange_rates_reprice();
DROP FUNCTION intake_reprice(bigint, text, date);
DROP TRIGGER intake_documents_payable_base ON intake_documents;
DROP FUNCTION intake_documents_payable_base();
DROP FUNCTION intake_payable_base(bigint, jsonb, bigint);
ALTER TABLE intake_documents DROP COLUMN payable_base;
