-- +goose Up
CREATE TABLE orgs (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    slug          text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
    name          text NOT NULL CHECK (btrim(name) <> ''),
    base_currency text NOT NULL CHECK (base_currency ~ '^[A-Z]{3}$'),
    created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
    id                   bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id               bigint NOT NULL REFERENCES orgs (id),
    email                text NOT NULL CHECK (email LIKE '%_@_%'),
    role                 text NOT NULL CHECK (role IN ('reviewer', 'admin')),
    password_hash        text NOT NULL,
    -- Sign-in throttling: consecutive failures and when the next try is allowed.
    failed_signins       integer NOT NULL DEFAULT 0,
    signin_blocked_until timestamptz,
    created_at           timestamptz NOT NULL DEFAULT now()
);
-- One account per address across orgs: sign-in is by address alone.
CREATE UNIQUE INDEX users_email_key ON users (lower(email));
CREATE INDEX users_org_id_idx ON users (org_id);

-- Server-side web sessions: the cookie carries a random token, the table its
-- SHA-256. Deleting the row revokes every copy of the cookie.
CREATE TABLE web_sessions (
    token_hash   bytea PRIMARY KEY,
    user_id      bigint REFERENCES users (id) ON DELETE CASCADE,
    data         jsonb NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_seen_at timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL
);
CREATE INDEX web_sessions_user_id_idx ON web_sessions (user_id);
CREATE INDEX web_sessions_expires_at_idx ON web_sessions (expires_at);

-- API tokens, stored as SHA-256 of the secret; the user fixes the org.
CREATE TABLE api_tokens (
    id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    user_id      bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    token_hash   bytea NOT NULL UNIQUE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at   timestamptz
);

-- The audit trail: who did what to which object, and when. Append-only.
CREATE TABLE audit_events (
    id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    org_id        bigint REFERENCES orgs (id),
    actor_user_id bigint REFERENCES users (id),
    actor         text NOT NULL,
    action        text NOT NULL,
    subject_type  text,
    subject_id    bigint,
    from_status   text,
    to_status     text,
    detail        jsonb NOT NULL DEFAULT '{}',
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_subject_idx ON audit_events (org_id, subject_type, subject_id, id);
CREATE INDEX audit_events_action_idx ON audit_events (action, created_at);

-- +goose StatementBegin
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'restrict_violation';
END;
$$;
-- +goose StatementEnd
CREATE TRIGGER audit_events_append_only BEFORE UPDATE OR DELETE ON audit_events
    FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();

-- +goose Down
DROP TABLE audit_events;
DROP FUNCTION audit_events_append_only();
DROP TABLE api_tokens;
DROP TABLE web_sessions;
DROP TABLE users;
DROP TABLE orgs;
