-- +goose Up
-- The outbox: approve writes a job in its transaction; the bookkeeper run is
-- launched only after the commit. A job is launched by one launcher at a
-- time (its row lock), retried by the sweep with backoff while it has
-- attempts left, and then abandoned: a dead letter only an operator revives.
CREATE TABLE jobs (
    id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id          bigint NOT NULL REFERENCES orgs (id),
    intake_id       bigint NOT NULL REFERENCES intake_documents (id),
    kind            text NOT NULL DEFAULT 'bookkeeper' CHECK (kind IN ('bookkeeper')),
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'launched', 'failed', 'abandoned', 'done')),
    attempts        integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    max_attempts    integer NOT NULL DEFAULT 5 CHECK (max_attempts > 0),
    last_error      text,
    error_class     text CHECK (error_class IN ('transient', 'permanent')),
    run_id          uuid,
    launched_at     timestamptz,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    created_by      text NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT jobs_one_per_document UNIQUE (intake_id, kind)
);
-- What the sweep looks at: launchable jobs by due time.
CREATE INDEX jobs_due_idx ON jobs (next_attempt_at) WHERE status IN ('pending', 'failed');
CREATE INDEX jobs_status_idx ON jobs (status, org_id, updated_at);

-- Every launch attempt of a job and its outcome: the dead letter's history.
CREATE TABLE job_attempts (
    job_id      bigint NOT NULL REFERENCES jobs (id),
    attempt     integer NOT NULL,
    trigger     text NOT NULL,
    actor       text NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('launched', 'failed', 'run_failed')),
    error       text,
    error_class text CHECK (error_class IN ('transient', 'permanent')),
    run_id      uuid,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (job_id, attempt, outcome)
);

-- The expense account a supplier's costs go to, remembered from an answer.
CREATE TABLE supplier_accounts (
    org_id       bigint NOT NULL REFERENCES orgs (id),
    supplier_key text NOT NULL,
    account_id   bigint NOT NULL REFERENCES accounts (id),
    created_by   text NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, supplier_key)
);

-- Exchange rates to the org's base currency: 1 unit of currency = rate base units.
CREATE TABLE exchange_rates (
    org_id     bigint NOT NULL REFERENCES orgs (id),
    currency   text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
    rate_date  date NOT NULL,
    rate       numeric(20, 10) NOT NULL CHECK (rate > 0),
    created_by text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, currency, rate_date)
);

-- When the sweep last ran (the operators' stranded-work check shows it).
CREATE TABLE sweep_passes (
    id           integer PRIMARY KEY CHECK (id = 1),
    last_pass_at timestamptz NOT NULL,
    launched     integer NOT NULL,
    failed       integer NOT NULL
);

-- +goose Down
DROP TABLE sweep_passes;
DROP TABLE exchange_rates;
DROP TABLE supplier_accounts;
DROP TABLE job_attempts;
DROP TABLE jobs;
