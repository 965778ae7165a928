-- Outbound webhooks and their delivery records.
-- The secret is kept in clear because every delivery is signed with it; it
-- is returned once, at creation, and never rendered again.
CREATE TABLE webhooks (
    id                   uuid PRIMARY KEY,
    org_id               uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    url                  text NOT NULL,
    secret               text NOT NULL,
    event_types          text[] NOT NULL CHECK (cardinality(event_types) > 0),
    active               boolean NOT NULL DEFAULT true,
    -- Failure bookkeeping: exhausted deliveries in a row (reset by any 2xx),
    -- when that streak began, and why the webhook was switched off.
    consecutive_failures integer NOT NULL DEFAULT 0,
    failing_since        timestamptz,
    last_success_at      timestamptz,
    disabled_at          timestamptz,
    disabled_reason      text,
    -- Counter behind the ids of manual redeliveries (webhook:<e>:<w>:redeliver:<n>).
    redeliveries         integer NOT NULL DEFAULT 0,
    created_by           uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX webhooks_org_idx ON webhooks (org_id, id);

-- One row per HTTP attempt. The request body is the event's outbox payload
-- (outbox.id = event_id), so it is referenced rather than copied; there is
-- no foreign key so that old outbox rows may be pruned without touching the
-- delivery history.
CREATE TABLE webhook_deliveries (
    id               uuid PRIMARY KEY,
    org_id           uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    webhook_id       uuid NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id         uuid NOT NULL,
    event_type       text NOT NULL,
    delivery_key     uuid NOT NULL, -- X-Service-Delivery / webhook-id, stable across retries
    redelivery       integer NOT NULL DEFAULT 0, -- 0: the original chain; n: the n-th manual redelivery
    attempt          integer NOT NULL,
    status_code      integer,
    duration_ms      integer,
    error            text,
    response_excerpt text,
    created_at       timestamptz NOT NULL DEFAULT now(),
    finished_at      timestamptz,
    -- Recording an attempt is idempotent: a replayed activity finds its row.
    CONSTRAINT webhook_deliveries_attempt_key UNIQUE (webhook_id, event_id, redelivery, attempt)
);
CREATE INDEX webhook_deliveries_webhook_idx ON webhook_deliveries (webhook_id, id);
