-- +goose Up
-- An org's approval policy: how many distinct people approve a document
-- before it is active, by its amount payable in the base currency, and
-- whether whoever submitted it may be one of them. An org without a row has
-- the default policy (one approval, the submitter may give it).
-- rules is a JSON array of {"min_amount": "0.00", "approvals": 1}, ordered
-- by min_amount, the first at 0.00; the product validates it.
CREATE TABLE approval_policies (
    org_id             bigint PRIMARY KEY REFERENCES orgs (id),
    separate_submitter boolean NOT NULL DEFAULT false,
    rules              jsonb NOT NULL CHECK (jsonb_typeof(rules) = 'array' AND jsonb_array_length(rules) BETWEEN 1 AND 10),
    updated_by         text NOT NULL,
    updated_at         timestamptz NOT NULL DEFAULT now()
);

-- The approvals a document has been given towards its policy's count. One
-- per person and document: the key makes the same person approving twice,
-- even at once, count once. Emptied when the document is rejected or its
-- facts are typed in again.
CREATE TABLE intake_approvals (
    intake_id   bigint NOT NULL REFERENCES intake_documents (id),
    org_id      bigint NOT NULL REFERENCES orgs (id),
    approver    text NOT NULL,
    approver_id bigint REFERENCES users (id),
    approved_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT intake_approvals_once_per_person PRIMARY KEY (intake_id, approver)
);

-- +goose Down
DROP TABLE intake_approvals;
DROP TABLE approval_policies;
