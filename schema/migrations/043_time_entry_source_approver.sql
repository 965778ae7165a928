-- The approver an imported document named for an Approved time entry, kept
-- as text only: an import records the approval as the importing admin's
-- (approved_by), since a document cannot vouch for who approved in this
-- org. Null for entries approved here, and for imported ones whose source
-- approver is the importing admin. Capped like an email address.
ALTER TABLE time_entries ADD COLUMN source_approved_by text
    CHECK (char_length(source_approved_by) BETWEEN 1 AND 320);
