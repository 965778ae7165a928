-- Sub-tickets (issue 16): a ticket's parent, in the same org (any project).
-- Removing the parent for real detaches its children.
ALTER TABLE tickets ADD COLUMN parent_id uuid REFERENCES tickets (id) ON DELETE SET NULL;
CREATE INDEX tickets_parent_idx ON tickets (parent_id, id) WHERE parent_id IS NOT NULL AND deleted_at IS NULL;
