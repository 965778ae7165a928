-- Personal notifications: who watches a ticket, each person's inbox, and
-- their delivery settings.

-- member_reads is the one rule of who may read an org's resource of a
-- project (domain.Authorize for a person): an active membership, and for a
-- Reporter an assignment to the project. A NULL project asks for the
-- membership alone (an import, an org-level notice).
CREATE FUNCTION member_reads(p_org uuid, p_project uuid, p_user uuid) RETURNS boolean
LANGUAGE sql STABLE AS $$
    SELECT EXISTS (
        SELECT 1 FROM memberships m
        WHERE m.org_id = p_org AND m.user_id = p_user AND m.suspended_at IS NULL
          AND (m.role <> 'reporter' OR p_project IS NULL OR EXISTS (
              SELECT 1 FROM project_members pm WHERE pm.project_id = p_project AND pm.user_id = p_user)))
$$;

-- A ticket's watchers. A ticket's create writes its first watchers and
-- notifications in its own insert statement (ticketdb.InsertNextWith).
CREATE TABLE ticket_watchers (
    ticket_id  uuid NOT NULL REFERENCES tickets (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (ticket_id, user_id)
);
CREATE INDEX ticket_watchers_user_idx ON ticket_watchers (user_id);

-- One row per recipient per event. project_id is the ticket's (or the time
-- entry's) project: what the recipient must still be able to read for the
-- row to show.
CREATE TABLE notifications (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    type       text NOT NULL CHECK (type IN ('assigned', 'mentioned', 'commented', 'replied', 'status_changed',
                   'due_soon', 'time_entry_approved', 'time_entry_rejected', 'import_finished')),
    ticket_id  uuid REFERENCES tickets (id) ON DELETE CASCADE,
    project_id uuid,
    actor_id   uuid REFERENCES users (id) ON DELETE SET NULL,
    excerpt    text NOT NULL DEFAULT '',
    created_at timestamptz NOT NULL,
    read_at    timestamptz,
    -- due_on is the due date a due_soon notification is about: one per
    -- person, ticket and date, however often the sweep runs.
    due_on     date
);
CREATE INDEX notifications_inbox_idx ON notifications (user_id, id);
CREATE INDEX notifications_unread_idx ON notifications (user_id, id) WHERE read_at IS NULL;
CREATE UNIQUE INDEX notifications_due_soon_key ON notifications (user_id, ticket_id, due_on) WHERE type = 'due_soon';

-- A person's delivery settings; no row is the defaults (email on with a
-- 10-minute digest, chat on when a chat identity is linked, every type on).
CREATE TABLE notification_settings (
    user_id        uuid PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    email_enabled  boolean NOT NULL DEFAULT true,
    digest_minutes integer NOT NULL DEFAULT 10 CHECK (digest_minutes BETWEEN 0 AND 1440),
    chat_enabled   boolean, -- NULL: on exactly when a chat identity is linked
    types_off      text[] NOT NULL DEFAULT '{}',
    updated_at     timestamptz NOT NULL
);

-- Why an Admin sent a Submitted entry back to Draft; cleared when it is
-- submitted again.
ALTER TABLE time_entries ADD COLUMN rejection_reason text;
