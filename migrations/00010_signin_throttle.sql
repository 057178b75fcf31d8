-- +goose Up
-- Sign-in throttling by address, whether or not the address has an account,
-- so that the answers do not tell which addresses exist. One row per
-- normalised address (SHA-256 of lower(address), so unknown addresses are
-- not stored in clear); the claim that counts an attempt is one statement.
CREATE TABLE signin_throttle (
    address_key   bytea PRIMARY KEY CHECK (length(address_key) = 32),
    -- Consecutive failed attempts, refused ones included; reset on success.
    failures      integer NOT NULL DEFAULT 0,
    -- Passwords checked since the last success: sets the delay.
    checks        integer NOT NULL DEFAULT 0,
    -- No password is checked before this.
    blocked_until timestamptz,
    -- Whether the latest attempt was refused unchecked (read back by the
    -- claim that wrote it).
    last_refused  boolean NOT NULL DEFAULT false,
    updated_at    timestamptz NOT NULL DEFAULT now()
);

INSERT INTO signin_throttle (address_key, failures, checks, blocked_until)
SELECT sha256(convert_to(lower(email), 'UTF8')), failed_signins, failed_signins, signin_blocked_until
FROM users WHERE failed_signins > 0 OR signin_blocked_until IS NOT NULL;

ALTER TABLE users DROP COLUMN failed_signins, DROP COLUMN signin_blocked_until;

-- +goose Down
ALTER TABLE users ADD COLUMN failed_signins integer NOT NULL DEFAULT 0, ADD COLUMN signin_blocked_until timestamptz;
UPDATE users u SET failed_signins = t.checks, signin_blocked_until = t.blocked_until
FROM signin_throttle t WHERE t.address_key = sha256(convert_to(lower(u.email), 'UTF8'));
DROP TABLE signin_throttle;
