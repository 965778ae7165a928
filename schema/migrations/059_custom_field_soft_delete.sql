-- A field held by many tickets is deleted in two parts: the definition is
-- marked deleted at once (invisible, its key free again) and the cascade job
-- purges its values in batches, then the row itself.
ALTER TABLE custom_fields ADD COLUMN deleted_at timestamptz;
DROP INDEX custom_fields_org_key_key;
CREATE UNIQUE INDEX custom_fields_org_key_key ON custom_fields (org_id, key) WHERE deleted_at IS NULL;
