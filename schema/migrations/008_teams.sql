-- Teams: names unique per org ignoring case, and the lookup of a user's
-- teams in an org. Memberships can be suspended (SCIM deactivation): the row
-- is kept for history, and a suspended member counts as a non-member.
CREATE UNIQUE INDEX teams_org_name_key ON teams (org_id, lower(name));
CREATE INDEX team_members_org_user_idx ON team_members (org_id, user_id);
ALTER TABLE memberships ADD COLUMN suspended_at timestamptz;
