-- +goose Up
-- Which rule chose a posted bill's expense account: a supplier rule
-- (remembered for a supplier key, set by someone at some time), a person's
-- answer, or the org's default. Written in the post's transaction, beside
-- the entry and never part of its facts: entries are immutable and their
-- source facts are compared on replay; this says why, not what.
CREATE TABLE account_choices (
    org_id       bigint NOT NULL REFERENCES orgs (id),
    intake_id    bigint NOT NULL,
    entry_id     bigint NOT NULL REFERENCES journal_entries (id),
    supplier_key text NOT NULL,
    account_code text NOT NULL,
    chosen_by    text NOT NULL CHECK (chosen_by IN ('rule', 'answer', 'default')),
    -- Who set the rule and when (a rule), or who answered (an answer).
    set_by       text NOT NULL DEFAULT '',
    set_at       timestamptz,
    remembered   boolean NOT NULL DEFAULT false,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, intake_id)
);
CREATE INDEX account_choices_entry ON account_choices (entry_id);
-- The account last used for a supplier, suggested when the bookkeeper asks.
CREATE INDEX account_choices_supplier ON account_choices (org_id, supplier_key, created_at DESC);

-- +goose Down
DROP TABLE account_choices;
