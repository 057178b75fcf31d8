-- +goose Up
-- Durable runs: the pipeline that files documents and the bookkeeper that
-- posts them. After each node, the run's state and the next node are saved;
-- a run whose last checkpoint is not terminal resumes after a restart.
CREATE TABLE runs (
    id               uuid PRIMARY KEY,
    org_id           bigint NOT NULL REFERENCES orgs (id),
    kind             text NOT NULL CHECK (kind ~ '^[a-z][a-z_]*$'),
    subject_id       bigint NOT NULL,
    state            text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'paused', 'done', 'failed')),
    next_node        text,
    data             jsonb NOT NULL,
    question         jsonb,
    answer           jsonb,
    last_error       text,
    -- Lease: the worker executing the run, and until when. A worker writes a
    -- checkpoint only while it still holds the lease (fencing).
    lease_owner      text,
    lease_expires_at timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    CHECK ((state IN ('done', 'failed')) = (next_node IS NULL)),
    CHECK ((state = 'paused') = (question IS NOT NULL))
);
CREATE INDEX runs_subject_idx ON runs (kind, subject_id);
CREATE INDEX runs_unfinished_idx ON runs (state, lease_expires_at) WHERE state IN ('running', 'paused');

CREATE TABLE run_checkpoints (
    run_id      uuid NOT NULL REFERENCES runs (id),
    seq         integer NOT NULL,
    node        text NOT NULL,
    outcome     text NOT NULL CHECK (outcome IN ('ok', 'paused', 'resumed', 'retry', 'failed')),
    next_node   text,
    data        jsonb NOT NULL,
    note        text NOT NULL DEFAULT '',
    worker      text NOT NULL,
    duration_ms integer NOT NULL DEFAULT 0,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (run_id, seq)
);

-- +goose Down
DROP TABLE run_checkpoints;
DROP TABLE runs;
