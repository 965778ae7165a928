-- Memberships an identity provider made before 036 become reachable only
-- through that org's single sign-on: SCIM linked existing people and SSO
-- added existing users without any proof that they belonged to the org.
UPDATE memberships m SET sso_only = true
WHERE EXISTS (SELECT 1 FROM audit_log a
              WHERE a.org_id = m.org_id AND a.entity_id = m.user_id
                AND ((a.entity_type = 'membership' AND a.action = 'joined_by_sso')
                  OR (a.entity_type = 'user' AND a.action IN ('scim_created', 'scim_linked'))));

-- Accounts SCIM created that nobody has used yet (no password, never
-- signed in by SSO) are unclaimed: registering with the email claims them.
UPDATE users u SET placeholder = true
WHERE u.password_hash IS NULL AND NOT u.placeholder
  AND NOT EXISTS (SELECT 1 FROM sso_identities i WHERE i.user_id = u.id)
  AND EXISTS (SELECT 1 FROM audit_log a WHERE a.entity_type = 'user' AND a.entity_id = u.id AND a.action = 'scim_created');

-- Sessions single sign-on started before 036 were not bound to their org,
-- and no column tells them from password sessions: every live refresh
-- token of a person who has signed in by SSO is revoked (they sign in
-- again once; access tokens end within the hour).
UPDATE refresh_tokens SET revoked_at = now()
WHERE revoked_at IS NULL AND user_id IN (SELECT user_id FROM sso_identities);
