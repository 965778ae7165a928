-- Chat integration: workspaces connected to orgs, chat users linked to
-- members, ticket threads, notification delivery records, channel
-- subscriptions to ticket events, and processed event ids (dedup).
CREATE TABLE chat_workspaces (
    team_id    text PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_by uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_workspaces_org_idx ON chat_workspaces (org_id);

CREATE TABLE chat_identities (
    org_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id       uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    slack_user_id text NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, slack_user_id),
    CONSTRAINT chat_identities_user_key UNIQUE (org_id, user_id)
);

CREATE TABLE chat_thread_mappings (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    ticket_id  uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    channel_id text NOT NULL,
    thread_ts  text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT chat_thread_mappings_thread_key UNIQUE (channel_id, thread_ts)
);
CREATE INDEX chat_thread_mappings_ticket_idx ON chat_thread_mappings (org_id, ticket_id, id);

-- One row per notification; the ChatNotification workflow records each
-- attempt's outcome here.
CREATE TABLE chat_notifications (
    id                uuid PRIMARY KEY,
    org_id            uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    ticket_id         uuid REFERENCES tickets (id) ON DELETE SET NULL,
    notification_type text NOT NULL,
    channel_id        text NOT NULL,
    thread_ts         text,
    text              text NOT NULL,
    status            text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
    attempts          integer NOT NULL DEFAULT 0,
    last_error        text,
    message_ts        text,
    created_at        timestamptz NOT NULL DEFAULT now(),
    updated_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX chat_notifications_org_idx ON chat_notifications (org_id, id);

CREATE TABLE chat_subscriptions (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    channel_id  text NOT NULL,
    event_types text[] NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT chat_subscriptions_channel_key UNIQUE (org_id, channel_id)
);

CREATE TABLE chat_events (
    event_id   text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);
