-- A ticket's due date and estimate, and the unit its project counts
-- estimates in. Both ticket columns are nullable (no value); the API holds
-- an estimate to 0-1,000,000 with at most two decimals, the CHECK keeps a
-- negative one out of any other path too.
ALTER TABLE tickets
    ADD COLUMN due_date date,
    ADD COLUMN estimate numeric(12, 2) CHECK (estimate >= 0);

ALTER TABLE projects ADD COLUMN estimate_unit text NOT NULL DEFAULT 'points'
    CHECK (estimate_unit IN ('points', 'hours'));
