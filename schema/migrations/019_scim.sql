-- SCIM 2.0 provisioning: what an identity provider keeps about a member of
-- an org beyond the global user (userName is users.email, displayName is
-- users.display_name). A SCIM DELETE suspends the membership like
-- deactivation and hides it from SCIM (scim_deleted_at); a later POST of the
-- same userName restores it.
ALTER TABLE memberships
    ADD COLUMN scim_given_name  text,
    ADD COLUMN scim_family_name text,
    ADD COLUMN scim_emails      jsonb,
    ADD COLUMN scim_modified_at timestamptz,
    ADD COLUMN scim_deleted_at  timestamptz;
CREATE INDEX memberships_org_user_idx ON memberships (org_id, user_id) WHERE scim_deleted_at IS NULL;
