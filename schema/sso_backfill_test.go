package schema_test

import (
	"context"
	"io/fs"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/schema"
)

// versionOf is the number of the migration whose name ends in suffix.
func versionOf(t *testing.T, suffix string) int32 {
	t.Helper()
	names, err := fs.Glob(schema.Migrations(), "*"+suffix)
	if err != nil || len(names) != 1 {
		t.Fatalf("migration *%s: %v %v", suffix, names, err)
	}
	v, err := strconv.Atoi(names[0][:strings.IndexByte(names[0], '_')])
	if err != nil {
		t.Fatal(err)
	}
	return int32(v)
}

// TestSSOTenancyBackfill: on a database that SCIM and single sign-on used
// before memberships could be bound to them, the backfill marks the
// memberships they made as reachable through the org's sign-on only, makes
// the SCIM accounts nobody used claimable, and ends the live sessions of
// people who signed in by SSO (they were not bound to their org); a
// membership made by invite and a password session of someone who never
// used SSO stay as they were.
func TestSSOTenancyBackfill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := emptyDatabase(ctx, t)
	backfill := versionOf(t, "_sso_tenancy_backfill.sql")
	if _, err := schema.MigrateTo(ctx, url, backfill-1); err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `
		INSERT INTO organizations (id, name, slug) VALUES ('00000000-0000-0000-0000-00000000000a', 'Org', 'org');
		INSERT INTO users (id, email, display_name, password_hash, active) VALUES
		  ('00000000-0000-0000-0000-000000000001', 'linked@x.test', 'Linked', 'hash', true),
		  ('00000000-0000-0000-0000-000000000002', 'fresh@x.test', 'Fresh', NULL, true),
		  ('00000000-0000-0000-0000-000000000003', 'used@x.test', 'Used', NULL, true),
		  ('00000000-0000-0000-0000-000000000004', 'joined@x.test', 'Joined', 'hash', true),
		  ('00000000-0000-0000-0000-000000000005', 'invited@x.test', 'Invited', 'hash', true);
		INSERT INTO memberships (org_id, user_id, role)
		  SELECT '00000000-0000-0000-0000-00000000000a', id, 'member' FROM users;
		INSERT INTO audit_log (id, org_id, entity_type, entity_id, action) VALUES
		  (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'user', '00000000-0000-0000-0000-000000000001', 'scim_linked'),
		  (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'user', '00000000-0000-0000-0000-000000000002', 'scim_created'),
		  (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'user', '00000000-0000-0000-0000-000000000003', 'scim_created'),
		  (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'membership', '00000000-0000-0000-0000-000000000004', 'joined_by_sso'),
		  (gen_random_uuid(), '00000000-0000-0000-0000-00000000000a', 'membership', '00000000-0000-0000-0000-000000000005', 'created');
		INSERT INTO sso_identities (org_id, issuer_url, subject, user_id) VALUES
		  ('00000000-0000-0000-0000-00000000000a', 'https://idp.test', 'used', '00000000-0000-0000-0000-000000000003'),
		  ('00000000-0000-0000-0000-00000000000a', 'https://idp.test', 'joined', '00000000-0000-0000-0000-000000000004');
		INSERT INTO refresh_tokens (id, user_id, org_id, family_id, token_hash, expires_at)
		  SELECT gen_random_uuid(), id, '00000000-0000-0000-0000-00000000000a', gen_random_uuid(), decode(md5(email), 'hex'), now() + interval '1 day'
		  FROM users WHERE email IN ('used@x.test', 'invited@x.test');`); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.MigrateTo(ctx, url, backfill); err != nil {
		t.Fatal(err)
	}
	var got string
	if err := db.QueryRow(ctx, `SELECT string_agg(split_part(u.email, '@', 1) || ':' || m.sso_only || ',' || u.placeholder || ',' ||
		(SELECT count(*) FROM refresh_tokens r WHERE r.user_id = u.id AND r.revoked_at IS NULL), ' ' ORDER BY u.email)
		FROM users u JOIN memberships m ON m.user_id = u.id`).Scan(&got); err != nil {
		t.Fatal(err)
	}
	want := "fresh:true,true,0 invited:false,false,1 joined:true,false,0 linked:true,false,0 used:true,false,0"
	if got != want {
		t.Fatalf("after the backfill:\n got  %s\n want %s", got, want)
	}
}
