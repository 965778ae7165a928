-- Time entries, labor rates and stored capitalization exports.
--
-- Approved time entries are financial records: their ticket and project
-- foreign keys have no ON DELETE CASCADE, so a purge cannot remove the rows a
-- past period's capitalization report was computed from; such a ticket or
-- project stays behind as a soft-deleted tombstone.
CREATE TABLE time_entries (
    id               uuid PRIMARY KEY,
    org_id           uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id          uuid NOT NULL REFERENCES users (id),
    ticket_id        uuid NOT NULL REFERENCES tickets (id),
    project_id       uuid NOT NULL REFERENCES projects (id),
    date             date NOT NULL,
    duration_minutes integer NOT NULL CHECK (duration_minutes > 0 AND duration_minutes <= 1440),
    description      text,
    activity_type    text NOT NULL CHECK (activity_type IN ('Coding', 'CodeReview', 'BugFixing', 'Testing',
                                                           'Documentation', 'Design', 'Meeting', 'Planning')),
    status           text NOT NULL DEFAULT 'Draft' CHECK (status IN ('Draft', 'Submitted', 'Approved')),
    approved_by      uuid REFERENCES users (id),
    approved_at      timestamptz,
    created_at       timestamptz NOT NULL DEFAULT now(),
    updated_at       timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT time_entries_approval_check
        CHECK ((status = 'Approved') = (approved_by IS NOT NULL AND approved_at IS NOT NULL))
);
CREATE INDEX time_entries_ticket_idx ON time_entries (ticket_id, id);
CREATE INDEX time_entries_user_idx ON time_entries (user_id, org_id, id);
CREATE INDEX time_entries_project_idx ON time_entries (project_id);
CREATE INDEX time_entries_submitted_idx ON time_entries (org_id, id) WHERE status = 'Submitted';
-- The capitalization report reads one org's approved entries of one month;
-- the INCLUDE columns let it run as an index-only scan.
CREATE INDEX time_entries_report_idx ON time_entries (org_id, date)
    INCLUDE (project_id, user_id, ticket_id, activity_type, duration_minutes)
    WHERE status = 'Approved';

-- A user's loaded cost per hour in one org from effective_date on; the
-- unique key is also the index of the rate lookup (latest date <= a day).
CREATE TABLE labor_rates (
    id                uuid PRIMARY KEY,
    org_id            uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id           uuid NOT NULL REFERENCES users (id),
    loaded_rate_cents bigint NOT NULL CHECK (loaded_rate_cents >= 0),
    effective_date    date NOT NULL,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT labor_rates_org_user_date_key UNIQUE (org_id, user_id, effective_date)
);

-- One stored run of the monthly capitalization CSV for one org. Every run is
-- a new row: re-running a period never replaces an earlier file.
CREATE TABLE capitalization_exports (
    id           uuid PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    period       text NOT NULL CHECK (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    trigger      text NOT NULL CHECK (trigger IN ('schedule', 'manual')),
    status       text NOT NULL CHECK (status IN ('Pending', 'Running', 'Completed', 'Failed')),
    size_bytes   bigint,
    csv          bytea,
    error        text,
    requested_by uuid REFERENCES users (id),
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz
);
CREATE INDEX capitalization_exports_org_idx ON capitalization_exports (org_id, id);
