-- A ticket imported from another tracker keeps its key there (PROJ-123,
-- owner/repo#45) and its address: searchable as external:PROJ-123 and
-- resolvable by GET /tickets/resolve?ref=PROJ-123.
ALTER TABLE tickets
    ADD COLUMN external_key text CHECK (length(external_key) BETWEEN 1 AND 255),
    ADD COLUMN external_url text CHECK (length(external_url) BETWEEN 1 AND 2048);

CREATE INDEX tickets_org_external_key ON tickets (org_id, upper(external_key))
    WHERE external_key IS NOT NULL AND deleted_at IS NULL;
