-- Imports of export documents: one row per POST /import, the document's
-- staged pieces, and the map from source keys to the rows an import created
-- or matched.
--
-- The document itself is kept here, not in Temporal: workflow payloads are
-- limited to a few MB, so the Import workflow's input is only the import id.
-- It is cleared, with the staged items, when the import completes.
CREATE TABLE imports (
    id           uuid PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    requested_by uuid REFERENCES users (id) ON DELETE SET NULL,
    -- The importer's role when the import was requested: Owner may grant the
    -- Owner role to imported members, anyone else at most Admin.
    requester_role text NOT NULL CHECK (requester_role IN ('owner', 'admin')),
    status       text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed', 'failed')),
    -- Where the document came from (its `source`): with a project key and a
    -- ticket number it names a ticket in the key map.
    source       text NOT NULL,
    document     bytea,
    size_bytes   bigint NOT NULL,
    -- Progress: the stage reached, the staged ticket count, the next staged
    -- ticket (a batch commits its rows and moves this mark in one
    -- transaction, so a retried batch finds its work done) and the eight
    -- counts of the summary.
    stage        text NOT NULL DEFAULT 'queued' CHECK (stage IN ('queued', 'staged', 'catalog', 'tickets', 'done')),
    tickets_total integer NOT NULL DEFAULT 0,
    next_seq     integer NOT NULL DEFAULT 0,
    counts       jsonb NOT NULL DEFAULT '{}',
    errors       jsonb NOT NULL DEFAULT '[]',
    created_at   timestamptz NOT NULL DEFAULT now(),
    started_at   timestamptz,
    finished_at  timestamptz
);
CREATE INDEX imports_org_idx ON imports (org_id, id);
-- Documents run to ~100 MB: stored out of line without compression, which
-- would cost more time than the space is worth for a row kept briefly.
ALTER TABLE imports ALTER COLUMN document SET STORAGE EXTERNAL;

-- One staged ticket (with its comments, labels and time entries) per row,
-- in document order; seq 0 is the catalog (users, workflows, labels,
-- projects with members and sprints). Written once per import in one
-- transaction, read in batches by seq.
CREATE TABLE import_items (
    import_id uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    seq       integer NOT NULL,
    payload   bytea NOT NULL,
    PRIMARY KEY (import_id, seq)
);

-- Source key → row of the target org. Kinds: user, workflow, label, project
-- (key: project key), sprint (key: project key + sprint name), ticket (key:
-- project key + ticket number). A ticket found here was imported before
-- from the same source into the same org and is never created again.
CREATE TABLE import_key_map (
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    source     text NOT NULL,
    kind       text NOT NULL CHECK (kind IN ('user', 'workflow', 'label', 'project', 'sprint', 'ticket')),
    source_key text NOT NULL,
    target_id  uuid NOT NULL,
    import_id  uuid NOT NULL REFERENCES imports (id) ON DELETE CASCADE,
    created    boolean NOT NULL, -- false: an existing row was matched
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT import_key_map_key UNIQUE (org_id, source, kind, source_key)
);
