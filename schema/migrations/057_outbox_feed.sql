-- The event feed (GET /orgs/{id}/events) reads an org's events from the
-- outbox in commit-safe order. Ids (UUIDv7, made in Go before the insert)
-- and created_at do not follow commit order: a transaction that took its id
-- first may commit last, and a reader that already passed that id would
-- skip it. So each row records its writing transaction (txid, the
-- top-level transaction id even inside a savepoint), and the feed orders
-- by (txid, id) and reads only rows whose transaction is older than the
-- oldest transaction still running (pg_snapshot_xmin): every such
-- transaction has ended, so no row can later appear before a position a
-- reader has passed (see docs/behaviour/webhooks-and-events.md, Feed).
--
-- The constant default first keeps the ALTER a catalog change (no table
-- rewrite); rows written before this migration read as txid 0, all
-- committed, ordered by id among themselves.
ALTER TABLE outbox ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE outbox ALTER COLUMN txid SET DEFAULT pg_current_xact_id();

-- The feed's one index: an org's events in feed order. Partial on the
-- subscribable event types, so job and notification rows sharing the
-- outbox are never scanned. The feed's query repeats this predicate.
CREATE INDEX outbox_feed_idx ON outbox (org_id, txid, id)
    WHERE topic IN ('ticket.created', 'ticket.updated', 'ticket.status_changed',
                    'comment.created', 'sprint.started', 'sprint.completed');
