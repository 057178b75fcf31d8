-- +goose Up
-- Dimensions an org books by beside the account (cost_center, project, ...),
-- with the values an admin manages. A value in use is never deleted, only
-- deactivated: journal lines keep its code.
CREATE TABLE dimensions (
    id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id     bigint NOT NULL REFERENCES orgs (id),
    -- The bookkeeper's own dimensions (supplier, vat_rate, kind) are not an
    -- org's to define.
    name       text NOT NULL CHECK (name ~ '^[a-z][a-z0-9_]{0,63}$' AND name NOT IN ('supplier', 'vat_rate', 'kind')),
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT dimensions_org_name_key UNIQUE (org_id, name)
);

CREATE TABLE dimension_values (
    dimension_id bigint NOT NULL REFERENCES dimensions (id),
    code         text NOT NULL CHECK (code ~ '^[0-9A-Za-z][0-9A-Za-z._-]{0,31}$'),
    name         text NOT NULL CHECK (btrim(name) <> '' AND length(name) <= 200),
    active       boolean NOT NULL DEFAULT true,
    PRIMARY KEY (dimension_id, code)
);

-- A document's coding: which account and dimension values each of its lines
-- (line, 1-based, as in fields.lines) or its document-level remainder (line
-- NULL: the document's allowances and charges, or all of a document without
-- lines) goes to, by net amount in the document's currency. The rows of a
-- line sum to its net. source says where a row came from: a reviewer, or a
-- suggestion (history, supplier_rule, default).
CREATE TABLE intake_coding (
    intake_id  bigint NOT NULL REFERENCES intake_documents (id),
    org_id     bigint NOT NULL,
    row_no     integer NOT NULL CHECK (row_no >= 0),
    line       integer CHECK (line IS NULL OR line >= 1),
    account_id bigint NOT NULL REFERENCES accounts (id),
    dimensions jsonb NOT NULL DEFAULT '{}' CHECK (jsonb_typeof(dimensions) = 'object'),
    amount     numeric(20, 4) NOT NULL,
    source     text NOT NULL CHECK (source IN ('reviewer', 'history', 'supplier_rule', 'default')),
    coded_by   text NOT NULL DEFAULT '',
    coded_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (intake_id, row_no)
);
CREATE INDEX intake_coding_account ON intake_coding (account_id);

-- +goose Down
DROP TABLE intake_coding;
DROP TABLE dimension_values;
DROP TABLE dimensions;
