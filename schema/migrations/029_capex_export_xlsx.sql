-- The stored capitalization export keeps the month's XLSX beside its CSV
-- (issue 17 item 4); runs completed before this have none (NULL).
ALTER TABLE capitalization_exports ADD COLUMN xlsx bytea, ADD COLUMN xlsx_size_bytes bigint;
