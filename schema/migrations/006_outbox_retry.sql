-- The outbox relay never stalls on one row: a row whose dispatch fails is
-- retried with backoff (next_attempt_at) while the rows behind it flow past,
-- and after too many attempts it is parked (dead_at set: status "dead") for
-- an operator (`tracker outbox dead`, `tracker outbox retry ID`).
-- next_attempt_at is also the lease of a relay dispatching the row: other
-- relays skip it until then. A row is pending while dispatched_at and
-- dead_at are both NULL.
ALTER TABLE outbox
    ADD COLUMN attempts        integer NOT NULL DEFAULT 0,
    ADD COLUMN last_error      text,
    ADD COLUMN next_attempt_at timestamptz,
    ADD COLUMN dead_at         timestamptz;

DROP INDEX IF EXISTS outbox_pending_idx;
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE dispatched_at IS NULL AND dead_at IS NULL;
CREATE INDEX outbox_dead_idx ON outbox (dead_at) WHERE dead_at IS NOT NULL;
