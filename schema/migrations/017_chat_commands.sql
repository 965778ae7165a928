-- Chat commands and events: a connected workspace may carry its own bot
-- token (AES-GCM under SERVICE_SECRETS_KEY, the org id as associated data)
-- and its name; a processed event records its org and the comment it
-- became (the ChatReplyComment workflow writes it once).
ALTER TABLE chat_workspaces ADD COLUMN team_name text, ADD COLUMN bot_token_enc bytea;

ALTER TABLE chat_events
    ADD COLUMN org_id uuid REFERENCES organizations (id) ON DELETE CASCADE,
    ADD COLUMN comment_id uuid,
    ADD COLUMN outcome text;
CREATE INDEX chat_events_created_idx ON chat_events (created_at);
