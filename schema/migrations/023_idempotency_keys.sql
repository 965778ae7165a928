-- Idempotency-Key (draft-ietf-httpapi-idempotency-key-header, Stripe's
-- semantics): the first response to an authenticated POST carrying the
-- header, per principal ("key:<api key id>" or "user:<user id>") and key,
-- kept for 24 hours. The row is written in the same transaction as the
-- request's own writes, so an effect never commits without its response.
CREATE TABLE idempotency_keys (
    principal    text        NOT NULL,
    key          text        NOT NULL,
    request_hash bytea       NOT NULL,
    status       int         NOT NULL,
    headers      jsonb       NOT NULL DEFAULT '{}',
    body         bytea       NOT NULL,
    created_at   timestamptz NOT NULL DEFAULT now(),
    expires_at   timestamptz NOT NULL,
    PRIMARY KEY (principal, key)
);
CREATE INDEX idempotency_keys_expires_idx ON idempotency_keys (expires_at);
