-- Chat tenancy. A thread mapping belongs to its org: two orgs may map the
-- same (channel, thread) without one blocking or capturing the other's, so
-- the thread is unique per org, and the cross-org lookup of a delivered
-- reply keeps its index.
ALTER TABLE chat_thread_mappings DROP CONSTRAINT chat_thread_mappings_thread_key;
ALTER TABLE chat_thread_mappings
    ADD CONSTRAINT chat_thread_mappings_org_thread_key UNIQUE (org_id, channel_id, thread_ts);
CREATE INDEX chat_thread_mappings_thread_idx ON chat_thread_mappings (channel_id, thread_ts);

-- An org's chat settings: whether workspaces connected to no org may reach
-- it (the installation tenancy model). No row: the default, true.
CREATE TABLE chat_settings (
    org_id                        uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    accept_unconnected_workspaces boolean NOT NULL DEFAULT true,
    updated_by                    uuid REFERENCES users (id) ON DELETE SET NULL,
    updated_at                    timestamptz NOT NULL DEFAULT now()
);
