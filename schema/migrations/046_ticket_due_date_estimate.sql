-- A ticket's due date and estimate, and the unit its project counts
-- estimates in. Both ticket columns are nullable (no value); the API holds
-- an estimate to 0-1,000,000 with at most two decimals, the CHECK keeps a
-- negative one out of any other path too.
ALTER TABLE tickets
    ADD COLUMN due_date date,
    ADD COLUMN estimate numeric(12, 2) CHECK (estimate >= 0);

ALTER TABLE projects ADD COLUMN estimate_unit text NOT NULL DEFAULT 'points'
    CHECK (estimate_unit IN ('points', 'hours'));

-- The due and estimate sorts in their default directions (sort:due soonest
-- first, sort:estimate largest first), org-wide and within a project, so a
-- first page is read in index order rather than by sorting every match.
-- The keys are the exact expressions store/searchdb.sortExpr writes: a
-- ticket without a value sorts last (due: days since 1970-01-01, else
-- 2147483647; estimate: hundredths, else -1, read backwards).
CREATE INDEX tickets_org_due_idx ON tickets (org_id,
    COALESCE(due_date - DATE '1970-01-01', 2147483647), id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_due_idx ON tickets (project_id,
    COALESCE(due_date - DATE '1970-01-01', 2147483647), id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_org_estimate_idx ON tickets (org_id,
    COALESCE((estimate * 100)::bigint, -1), id) WHERE deleted_at IS NULL;
CREATE INDEX tickets_project_estimate_idx ON tickets (project_id,
    COALESCE((estimate * 100)::bigint, -1), id) WHERE deleted_at IS NULL;
-- A selective due-date filter org-wide (due:2026-12-01, a short range),
-- which the id order would otherwise find only by reading every ticket.
CREATE INDEX tickets_org_due_date_idx ON tickets (org_id, due_date)
    WHERE deleted_at IS NULL AND due_date IS NOT NULL;
-- due:overdue and due:<7d in the default (id) order read only the tickets
-- that have a due date: measured on the 1,000,000-ticket benchmark
-- (cmd/benchsearch), the first page of due:overdue read 313 tickets through
-- tickets_org_idx and 59 through this one (p95 39.8 -> 24.5 ms).
CREATE INDEX tickets_org_due_id_idx ON tickets (org_id, id)
    WHERE deleted_at IS NULL AND due_date IS NOT NULL;
