-- Per-org single sign-on (OIDC with PKCE) and SCIM provisioning tokens.
CREATE TABLE sso_configs (
    org_id               uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
    issuer_url           text NOT NULL,
    client_id            text NOT NULL,
    -- AES-256-GCM under SERVICE_SECRETS_KEY, bound to the org id.
    client_secret_sealed bytea NOT NULL,
    allowed_domains      text[] NOT NULL DEFAULT '{}',
    default_role         text NOT NULL CHECK (default_role IN ('admin', 'member', 'reporter', 'viewer')),
    created_at           timestamptz NOT NULL DEFAULT now(),
    updated_at           timestamptz NOT NULL DEFAULT now()
);

-- A sign-in in flight: single use (deleted when the callback claims it),
-- valid until expires_at. The state itself is stored only as a SHA-256 hash.
CREATE TABLE sso_states (
    state_hash    bytea PRIMARY KEY,
    org_id        uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    code_verifier text NOT NULL,
    nonce         text NOT NULL,
    expires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sso_states_expires_idx ON sso_states (expires_at);

-- The provider's subject of a user, per org and issuer.
CREATE TABLE sso_identities (
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    issuer_url text NOT NULL,
    subject    text NOT NULL,
    user_id    uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (org_id, issuer_url, subject)
);
CREATE INDEX sso_identities_user_idx ON sso_identities (user_id);

-- SCIM bearer tokens: one live token per org (issuing revokes the old one).
CREATE TABLE scim_tokens (
    id         uuid PRIMARY KEY,
    org_id     uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    token_hash bytea NOT NULL UNIQUE,
    prefix     text NOT NULL,
    created_by uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
CREATE UNIQUE INDEX scim_tokens_live_key ON scim_tokens (org_id) WHERE revoked_at IS NULL;

-- SCIM's externalId of a user in an org (Groups keep theirs on the team).
ALTER TABLE memberships ADD COLUMN scim_external_id text;
ALTER TABLE teams ADD COLUMN scim_external_id text;
