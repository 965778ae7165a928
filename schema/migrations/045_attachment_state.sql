-- An attachment confirmed before its object reached the storage is
-- recorded as pending; a durable job turns it ready once the object is
-- there with the confirmed size and type, or removes it after 24 hours.
-- Every attachment recorded before this migration was checked at confirm.
ALTER TABLE attachments ADD COLUMN state text NOT NULL DEFAULT 'ready'
    CHECK (state IN ('pending', 'ready'));
