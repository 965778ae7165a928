-- Attachments: files kept in object storage (S3-compatible, or the embedded
-- local store), uploaded and downloaded by clients with presigned URLs. A row
-- is written at confirm, once a HEAD on the storage proved the object.
CREATE TABLE attachments (
    id           uuid PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    -- No cascade: the purge of a ticket deletes the objects, then the rows.
    ticket_id    uuid NOT NULL REFERENCES tickets (id),
    filename     text NOT NULL CHECK (char_length(filename) BETWEEN 1 AND 255),
    content_type text NOT NULL,
    size_bytes   bigint NOT NULL CHECK (size_bytes > 0),
    storage_key  text NOT NULL,
    uploaded_by  uuid NOT NULL REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT attachments_storage_key_key UNIQUE (storage_key)
);
CREATE INDEX attachments_ticket_idx ON attachments (ticket_id, id);
CREATE INDEX attachments_org_idx ON attachments (org_id, id);
