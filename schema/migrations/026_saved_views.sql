-- Saved views (issue 16): a named ticket query of an org with its sort and
-- visible columns, private to its owner or shared with the org.
CREATE TABLE saved_views (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    owner_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
    q          text NOT NULL DEFAULT '',
    sort       text NOT NULL DEFAULT '',
    columns    text[] NOT NULL DEFAULT '{}',
    shared     boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_views_org_idx ON saved_views (org_id, id);
