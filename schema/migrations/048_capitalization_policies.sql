-- Dated capitalization policies and the project facts they read.
--
-- A policy names the accounting framework that classifies an org's approved
-- time as CapEx or OpEx from a month on (effective_from, the first day of
-- that month); the policy in force for a month is the one with the latest
-- effective_from not after it, the highest version among equals. Policies
-- are never changed or deleted: a new version replaces one from its month.
-- An org without any policy keeps the project-phase classification.
CREATE TABLE capitalization_policies (
    id                       uuid PRIMARY KEY,
    org_id                   uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    version                  integer NOT NULL CHECK (version >= 1),
    framework                text NOT NULL CHECK (framework IN ('asc_350_40_stages', 'asu_2025_06', 'ias_38')),
    effective_from           date NOT NULL CHECK (extract(day FROM effective_from) = 1),
    standard_hours_per_month integer NOT NULL CHECK (standard_hours_per_month BETWEEN 1 AND 744),
    rules                    jsonb NOT NULL DEFAULT '[]',
    note                     text CHECK (char_length(note) <= 2000),
    created_by               uuid REFERENCES users (id),
    created_at               timestamptz NOT NULL,
    UNIQUE (org_id, version)
);
CREATE INDEX capitalization_policies_in_force_idx ON capitalization_policies (org_id, effective_from, version);

-- The facts of a project that ASU 2025-06 (funding authorized, completion
-- probable, significant development uncertainty resolved) and IAS 38
-- (research ended, the development criteria met) decide by. Null: not (yet)
-- established, so nothing is capitalized under the framework that reads it.
ALTER TABLE projects
    ADD COLUMN funding_authorized_on date,
    ADD COLUMN completion_probable boolean,
    ADD COLUMN significant_uncertainty_resolved_on date,
    ADD COLUMN research_ends_on date,
    ADD COLUMN ias38_criteria_met_on date;
