-- Accounts, organizations, access, audit and outbox.
-- users are global identities (one person, many orgs); every tenant-owned
-- row below carries org_id.
CREATE TABLE users (
    id            uuid PRIMARY KEY,
    email         text NOT NULL,
    display_name  text NOT NULL,
    password_hash text,
    active        boolean NOT NULL DEFAULT true,
    created_at    timestamptz NOT NULL DEFAULT now(),
    updated_at    timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE organizations (
    id         uuid PRIMARY KEY,
    name       text NOT NULL,
    slug       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT organizations_slug_key UNIQUE (slug)
);

CREATE TABLE memberships (
    org_id    uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id   uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role      text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'reporter', 'viewer')),
    joined_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, user_id)
);
CREATE INDEX memberships_user_idx ON memberships (user_id, joined_at);

-- A refresh token belongs to a family (one login); reusing a revoked token
-- revokes the whole family.
CREATE TABLE refresh_tokens (
    id         uuid PRIMARY KEY,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    family_id  uuid NOT NULL,
    token_hash bytea NOT NULL UNIQUE,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX refresh_tokens_family_idx ON refresh_tokens (family_id);

CREATE TABLE api_keys (
    id           uuid PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id      uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name         text NOT NULL,
    key_prefix   text NOT NULL,
    key_hash     bytea NOT NULL UNIQUE,
    scopes       text[] NOT NULL,
    project_ids  uuid[] NOT NULL DEFAULT '{}',
    expires_at   timestamptz,
    last_used_at timestamptz,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX api_keys_user_idx ON api_keys (user_id, id);

CREATE TABLE invites (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code        text NOT NULL UNIQUE,
    email       text,
    role        text NOT NULL CHECK (role IN ('owner', 'admin', 'member', 'reporter', 'viewer')),
    created_by  uuid NOT NULL REFERENCES users (id),
    expires_at  timestamptz NOT NULL,
    accepted_at timestamptz,
    accepted_by uuid REFERENCES users (id),
    revoked_at  timestamptz,
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invites_org_idx ON invites (org_id, id);

CREATE TABLE teams (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name       text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX teams_org_idx ON teams (org_id, id);

CREATE TABLE team_members (
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    team_id    uuid NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team_id, user_id)
);

-- statuses: [{name, category}], transitions: [{from, to}]
CREATE TABLE workflows (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    name        text NOT NULL,
    statuses    jsonb NOT NULL,
    transitions jsonb NOT NULL,
    enforcement text NOT NULL DEFAULT 'none' CHECK (enforcement IN ('none', 'warn', 'strict')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    updated_at  timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT workflows_org_name_key UNIQUE (org_id, name)
);

-- Every change to a tenant's data writes one audit row in the change's
-- transaction; the ticket activity feed and sprint burndown read it.
CREATE TABLE audit_log (
    id          uuid PRIMARY KEY,
    org_id      uuid NOT NULL,
    actor_id    uuid,
    entity_type text NOT NULL,
    entity_id   uuid NOT NULL,
    action      text NOT NULL,
    changes     jsonb NOT NULL DEFAULT '[]',
    created_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_entity_idx ON audit_log (org_id, entity_type, entity_id, id);

-- Transactional outbox: events and durable jobs written with the change
-- that caused them, relayed to Temporal by the worker.
CREATE TABLE outbox (
    id            uuid PRIMARY KEY,
    org_id        uuid NOT NULL,
    topic         text NOT NULL,
    payload       jsonb NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now(),
    dispatched_at timestamptz
);
CREATE INDEX outbox_pending_idx ON outbox (id) WHERE dispatched_at IS NULL;
CREATE INDEX outbox_dispatched_idx ON outbox (dispatched_at) WHERE dispatched_at IS NOT NULL;
-- No NOTIFY trigger: a trigger would NOTIFY from every writing transaction,
-- and PostgreSQL serializes notifying commits cluster-wide. The store pokes
-- the relay after commit instead (store/notify.go).
