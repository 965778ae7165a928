-- Period close: a closed month freezes its time entries and labor rates, and
-- its capitalization report is served from the snapshot taken at close.
--
-- An org opts in to the monthly Schedule closing the previous month.
ALTER TABLE organizations ADD COLUMN auto_close_periods boolean NOT NULL DEFAULT false;

-- One close of one org's month. Reopening keeps the row (who, when, why) and
-- its CSV and checksum for the audit trail; at most one close of a month is
-- in force (reopened_at IS NULL) at a time.
CREATE TABLE period_closes (
    id            uuid PRIMARY KEY,
    org_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    period        text NOT NULL CHECK (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    closed_by     uuid REFERENCES users (id), -- NULL: closed by the monthly Schedule
    closed_at     timestamptz NOT NULL,
    snapshot      bytea NOT NULL,             -- JSON: frozen project, user and tag columns, budget spend
    csv           bytea NOT NULL,             -- the unfiltered capitalization CSV at close
    sha256        text NOT NULL,              -- hex SHA-256 of csv
    entries       bigint NOT NULL,
    reopened_by   uuid REFERENCES users (id),
    reopened_at   timestamptz,
    reopen_reason text,
    CHECK ((reopened_at IS NULL) = (reopen_reason IS NULL))
);
CREATE UNIQUE INDEX period_closes_in_force_idx ON period_closes (org_id, period) WHERE reopened_at IS NULL;
CREATE INDEX period_closes_org_idx ON period_closes (org_id, period, closed_at);

-- The approved entries of a closed month, each priced at close: the report
-- of a closed month aggregates these rows, never time_entries and
-- labor_rates. Column names follow time_entries so the report's filters
-- apply unchanged. Deleted on reopen (the close row keeps CSV and checksum).
CREATE TABLE period_close_entries (
    close_id         uuid NOT NULL REFERENCES period_closes (id) ON DELETE CASCADE DEFERRABLE INITIALLY DEFERRED,
    org_id           uuid NOT NULL,
    id               uuid NOT NULL,           -- the time entry
    user_id          uuid NOT NULL,
    ticket_id        uuid NOT NULL,
    project_id       uuid NOT NULL,
    date             date NOT NULL,
    duration_minutes integer NOT NULL,
    activity_type    text NOT NULL,
    status           text NOT NULL DEFAULT 'Approved',
    rate_cents       bigint,                  -- NULL: no rate in effect (priced at 0)
    amount_cents     bigint NOT NULL,
    PRIMARY KEY (close_id, id)
);
