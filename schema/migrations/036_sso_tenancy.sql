-- An org's identity provider vouches only for that org.
--
-- A membership that the org's identity provider made (a single sign-on
-- sign-in adding it, SCIM creating or linking the person) is reached only
-- through sessions that org's single sign-on started, and the API keys
-- they mint: a password (which proves nothing about the email) never
-- reaches it.
ALTER TABLE memberships ADD COLUMN sso_only boolean NOT NULL DEFAULT false;

-- A refresh token of a session started by single sign-on: its session
-- reaches its org_id only, and so do the sessions it is rotated into.
ALTER TABLE refresh_tokens ADD COLUMN bound_to_org boolean NOT NULL DEFAULT false;

-- Email domains an org proves it controls (a DNS TXT record at
-- _tracker-challenge.<domain> holding the challenge). The org's identity
-- provider may then link existing accounts of that domain.
CREATE TABLE sso_domains (
    org_id      uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    domain      text NOT NULL CHECK (domain = lower(domain)),
    challenge   text NOT NULL,
    created_by  uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at  timestamptz NOT NULL,
    verified_at timestamptz,
    PRIMARY KEY (org_id, domain)
);
