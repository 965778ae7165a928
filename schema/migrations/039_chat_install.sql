-- Connecting a chat workspace is proven by the chat app's OAuth install:
-- installed_at is when the chat service's oauth.v2.access named the
-- workspace for this org. Rows connected before by a bare team id keep a
-- NULL: an unproven claim, which routes no workspace traffic to the org and
-- gives way to an org that installs the app in that workspace.
ALTER TABLE chat_workspaces ADD COLUMN installed_at timestamptz;

-- An install in flight: single use (deleted when the callback claims it),
-- valid until expires_at, bound to the org and the admin who started it.
-- The state itself is stored only as a SHA-256 hash.
CREATE TABLE chat_install_states (
    state_hash bytea PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_by uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_install_states_expires_idx ON chat_install_states (expires_at);
