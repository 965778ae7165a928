-- Presigned uploads: what presign announced (name, type, size) and to whom,
-- so that confirm records exactly that upload, by its presigner, under the
-- name presigned. A row lives 24 hours (the cleanup of unconfirmed uploads
-- removes older rows); confirming within that time is required anyway.
CREATE TABLE attachment_uploads (
    storage_key  text PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    ticket_id    uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    filename     text NOT NULL,
    content_type text NOT NULL,
    size_bytes   bigint NOT NULL,
    presigned_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL
);
CREATE INDEX attachment_uploads_created_idx ON attachment_uploads (created_at);
