-- A person's live notification stream reads their notifications in
-- commit-safe order, as the event feed reads the outbox (057): ids (UUIDv7,
-- made in Go before the insert) do not follow commit order, so a stream
-- that passed an id could skip a row with a smaller id committed later.
-- Each row records its writing top-level transaction (txid); the stream
-- orders by (txid, id) and reads only rows whose transaction is older than
-- the oldest still running (pg_snapshot_xmin), so no row can later appear
-- before a position a stream has passed.
--
-- The constant default first keeps the ALTER a catalog change (no table
-- rewrite); rows written before this migration read as txid 0, all
-- committed, ordered by id among themselves.
ALTER TABLE notifications ADD COLUMN txid xid8 NOT NULL DEFAULT '0';
ALTER TABLE notifications ALTER COLUMN txid SET DEFAULT pg_current_xact_id();

-- A person's notifications in stream order, and the hub's lookup of who
-- has rows whose transactions ended since its last look.
CREATE INDEX notifications_user_txid_idx ON notifications (user_id, txid, id);
