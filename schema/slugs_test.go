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

// slugMigration is the number of the migration that rewrites org slugs.
func slugMigration(t *testing.T) int32 {
	t.Helper()
	names, err := fs.Glob(schema.Migrations(), "*_org_slugs.sql")
	if err != nil || len(names) != 1 {
		t.Fatalf("org slug migration: %v %v", names, err)
	}
	n, err := strconv.Atoi(strings.SplitN(names[0], "_", 2)[0])
	if err != nil {
		t.Fatal(err)
	}
	return int32(n)
}

// TestOrgSlugsAreRewritten migrates a database holding slugs from before
// the [a-z0-9-] rule: each is rewritten deterministically and uniquely,
// with an audit row, valid slugs are left alone, and the database refuses
// a bad slug afterwards.
func TestOrgSlugsAreRewritten(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := emptyDatabase(ctx, t)
	v := slugMigration(t)
	if _, err := schema.MigrateTo(ctx, url, v-1); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// id -> slug before; ids in the order the migration takes them.
	orgs := []struct{ id, before, after string }{
		{"00000000-0000-7000-8000-000000000001", "acme", "acme"},
		{"00000000-0000-7000-8000-000000000002", "Acme", "acme-00000000000070008000000000000002"},
		{"00000000-0000-7000-8000-000000000003", `x"; filename*=UTF-8''invoice.pdf.exe; q="`, "x-filename-utf-8-invoice-pdf-exe-q"},
		{"00000000-0000-7000-8000-000000000004", "../../etc", "etc"},
		{"00000000-0000-7000-8000-000000000005", "a\r\nSet-Cookie: x=1", "a-set-cookie-x-1"},
		{"00000000-0000-7000-8000-000000000006", ";;", "org"},
		{"00000000-0000-7000-8000-000000000007", "Café Noir", "caf-noir"},
		{"00000000-0000-7000-8000-000000000008", ".", "org-00000000000070008000000000000008"},
		{"00000000-0000-7000-8000-000000000009", "Big_" + strings.Repeat("X", 96), "big-" + strings.Repeat("x", 56)},
		{"00000000-0000-7000-8000-00000000000a", "0-ok-", "0-ok-"},
		{"00000000-0000-7000-8000-00000000000b", "--", "--"},
	}
	for _, o := range orgs {
		if _, err := conn.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, o.id, o.before); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := schema.MigrateTo(ctx, url, v); err != nil {
		t.Fatal(err)
	}
	for _, o := range orgs {
		var slug string
		var audits int
		if err := conn.QueryRow(ctx, `SELECT slug, (SELECT count(*) FROM audit_log WHERE org_id = o.id AND action = 'slug_rewritten'
			AND changes @> jsonb_build_array(jsonb_build_object('field', 'slug', 'old', $2::text, 'new', o.slug)))
			FROM organizations o WHERE id = $1`, o.id, o.before).Scan(&slug, &audits); err != nil {
			t.Fatal(err)
		}
		wantAudits := 1
		if o.before == o.after {
			wantAudits = 0
		}
		if slug != o.after || audits != wantAudits {
			t.Errorf("%q became %q (%d audit rows), want %q", o.before, slug, audits, o.after)
		}
	}
	for _, bad := range []string{"Upper", "a/b", "a.b", `a"b`, ""} {
		if _, err := conn.Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES (gen_random_uuid(), 'o', $1)`, bad); err == nil {
			t.Errorf("slug %q stored after the migration", bad)
		}
	}
}
