-- Code-host integration: per-org connections with their own (encrypted)
-- webhook secret, a record of every processed delivery (redelivery of the
-- same X-Codehost-Delivery id changes nothing twice), and, on audit rows,
-- what an integration acted through (pull request URL, sender).
ALTER TABLE audit_log ADD COLUMN via jsonb;

CREATE TABLE codehost_connections (
    id           uuid PRIMARY KEY,
    org_id       uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    secret_enc   bytea NOT NULL, -- AES-GCM under SERVICE_SECRETS_KEY
    repositories text[] NOT NULL DEFAULT '{}', -- lower-case owner/name; empty: any
    created_by   uuid REFERENCES users (id) ON DELETE SET NULL,
    created_at   timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX codehost_connections_org_idx ON codehost_connections (org_id, id);
CREATE INDEX codehost_connections_repos_idx ON codehost_connections USING gin (repositories);

-- scope is 'global' (the service-wide secret) or the connection id.
CREATE TABLE codehost_deliveries (
    scope       text NOT NULL,
    delivery_id text NOT NULL,
    org_id      uuid REFERENCES organizations (id) ON DELETE CASCADE,
    response    jsonb,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, delivery_id)
);
CREATE INDEX codehost_deliveries_created_idx ON codehost_deliveries (created_at);
