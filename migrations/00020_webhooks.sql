-- +goose Up
-- Webhook endpoints an org's admin registered, each with its own durable
-- cursor into the org's event feed: the dispatcher reads the feed after the
-- cursor, inserts one delivery per matching event and advances the cursor in
-- one transaction, so an event is never skipped and never queued twice.
CREATE TABLE webhook_endpoints (
    id          bigserial PRIMARY KEY,
    org_id      bigint NOT NULL REFERENCES orgs (id),
    url         text NOT NULL,
    -- The event types delivered; empty: every type.
    event_types text[] NOT NULL DEFAULT '{}',
    secret      text NOT NULL,
    enabled     boolean NOT NULL DEFAULT true,
    -- The feed position after the last event queued for this endpoint.
    feed_cursor text NOT NULL DEFAULT '',
    created_by  text NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    disabled_by text NOT NULL DEFAULT '',
    disabled_at timestamptz,
    -- One delivery at a time per endpoint, across every process: a worker
    -- holds the endpoint (claim names which attempt) until in_flight_until,
    -- so an endpoint that hangs holds one worker, never the others.
    in_flight_until timestamptz,
    in_flight_claim text NOT NULL DEFAULT '',
    -- Endpoints take turns: the least recently claimed goes first.
    last_claimed_at timestamptz
);
CREATE INDEX webhook_endpoints_org_idx ON webhook_endpoints (org_id, id);

-- One delivery per (endpoint, event): a replayed dispatch inserts nothing
-- twice. The body is kept as sent, so every attempt sends the same bytes.
CREATE TABLE webhook_deliveries (
    id              bigserial PRIMARY KEY,
    org_id          bigint NOT NULL REFERENCES orgs (id),
    endpoint_id     bigint NOT NULL REFERENCES webhook_endpoints (id),
    event_id        text NOT NULL,
    event_type      text NOT NULL,
    body            text NOT NULL,
    status          text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'dead')),
    attempts        int NOT NULL DEFAULT 0,
    -- How often an admin revived it from the dead letters.
    revivals        int NOT NULL DEFAULT 0,
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    last_error      text NOT NULL DEFAULT '',
    last_status     int,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    CONSTRAINT webhook_deliveries_endpoint_event_key UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx ON webhook_deliveries (endpoint_id, next_attempt_at, id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_dead_idx ON webhook_deliveries (org_id, updated_at DESC, id DESC) WHERE status = 'dead';

-- +goose Down
DROP TABLE webhook_deliveries;
DROP TABLE webhook_endpoints;
