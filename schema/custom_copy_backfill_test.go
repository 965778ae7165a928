package schema_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/schema"
)

// TestCustomFieldsCopyBackfill: the migration that adds tickets'
// rendered copy of their custom values fills it for existing tickets from
// ticket_custom_values as the API renders them (keys in order, a select by
// its option's name, a multi-select's names in the order stored, strings
// escaped as encoding/json escapes them, a deleted field left out), and {}
// for a ticket without values.
func TestCustomFieldsCopyBackfill(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := emptyDatabase(ctx, t)
	copyV := versionOf(t, "_ticket_custom_fields_copy.sql")
	if _, err := schema.MigrateTo(ctx, url, copyV-1); err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	if _, err := db.Exec(ctx, `
		INSERT INTO organizations (id, name, slug) VALUES ('00000000-0000-0000-0000-00000000000a', 'Org', 'org');
		INSERT INTO users (id, email, display_name) VALUES ('00000000-0000-0000-0000-000000000001', 'u@x.test', 'U');
		INSERT INTO projects (id, org_id, key, name) VALUES ('00000000-0000-0000-0000-0000000000b0', '00000000-0000-0000-0000-00000000000a', 'P', 'P');
		INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id) VALUES
		  ('00000000-0000-0000-0000-0000000000c1', '00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-0000000000b0', 1, 'held', 'Todo', '00000000-0000-0000-0000-000000000001'),
		  ('00000000-0000-0000-0000-0000000000c2', '00000000-0000-0000-0000-00000000000a', '00000000-0000-0000-0000-0000000000b0', 2, 'bare', 'Todo', '00000000-0000-0000-0000-000000000001');
		INSERT INTO custom_fields (id, org_id, key, name, type, options, deleted_at) VALUES
		  ('00000000-0000-0000-0000-0000000000f1', '00000000-0000-0000-0000-00000000000a', 'sev', 'Sev', 'select',
		   '[{"id":"00000000-0000-0000-0000-0000000000e1","name":"Low"},{"id":"00000000-0000-0000-0000-0000000000e2","name":"A<&>B"}]', NULL),
		  ('00000000-0000-0000-0000-0000000000f2', '00000000-0000-0000-0000-00000000000a', 'tags', 'Tags', 'multi_select',
		   '[{"id":"00000000-0000-0000-0000-0000000000e3","name":"a"},{"id":"00000000-0000-0000-0000-0000000000e4","name":"b"}]', NULL),
		  ('00000000-0000-0000-0000-0000000000f3', '00000000-0000-0000-0000-00000000000a', 'points', 'Points', 'number', '[]', NULL),
		  ('00000000-0000-0000-0000-0000000000f4', '00000000-0000-0000-0000-00000000000a', 'note', 'Note', 'text', '[]', NULL),
		  ('00000000-0000-0000-0000-0000000000f5', '00000000-0000-0000-0000-00000000000a', 'gone', 'Gone', 'text', '[]', now()),
		  ('00000000-0000-0000-0000-0000000000f6', '00000000-0000-0000-0000-00000000000a', 'due', 'Due', 'date', '[]', NULL),
		  ('00000000-0000-0000-0000-0000000000f7', '00000000-0000-0000-0000-00000000000a', 'flag', 'Flag', 'checkbox', '[]', NULL);
		INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, text_value, num_value, date_value, bool_value, option_ids)
		SELECT '00000000-0000-0000-0000-0000000000c1', f::uuid, '00000000-0000-0000-0000-00000000000a', tv, nv, dv, bv, ov FROM (VALUES
		  ('00000000-0000-0000-0000-0000000000f1', NULL, NULL::numeric, NULL::date, NULL::boolean, ARRAY['00000000-0000-0000-0000-0000000000e2']::uuid[]),
		  ('00000000-0000-0000-0000-0000000000f2', NULL, NULL, NULL, NULL, ARRAY['00000000-0000-0000-0000-0000000000e4', '00000000-0000-0000-0000-0000000000e3']::uuid[]),
		  ('00000000-0000-0000-0000-0000000000f3', NULL, 2.50, NULL, NULL, NULL),
		  ('00000000-0000-0000-0000-0000000000f4', E'line\n"q"', NULL, NULL, NULL, NULL),
		  ('00000000-0000-0000-0000-0000000000f5', 'hidden', NULL, NULL, NULL, NULL),
		  ('00000000-0000-0000-0000-0000000000f6', NULL, NULL, '2026-12-01', NULL, NULL),
		  ('00000000-0000-0000-0000-0000000000f7', NULL, NULL, NULL, false, NULL)) AS v (f, tv, nv, dv, bv, ov);`); err != nil {
		t.Fatal(err)
	}
	if _, err := schema.MigrateTo(ctx, url, copyV); err != nil {
		t.Fatal(err)
	}
	var held, bare string
	if err := db.QueryRow(ctx, `SELECT (SELECT custom_fields::text FROM tickets WHERE ticket_number = 1),
		(SELECT custom_fields::text FROM tickets WHERE ticket_number = 2)`).Scan(&held, &bare); err != nil {
		t.Fatal(err)
	}
	want := `{"due":"2026-12-01","flag":false,"note":"line\n\"q\"","points":2.50,"sev":"A\u003c\u0026\u003eB","tags":["b","a"]}`
	if held != want || bare != "{}" {
		t.Fatalf("copies after the backfill:\n%s\n%s\nwant\n%s\n{}", held, bare, want)
	}
}
