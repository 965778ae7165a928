package schema_test

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/schema"
	"tracker/store/storetest"
	"tracker/store/tempdb"
)

// TestStepwiseMigrationEqualsTemplate walks an empty database through every
// migration one at a time and compares its catalog with the test template's
// (tables, columns, types, defaults, indexes, constraints, triggers,
// functions, types and sequences): a migration that only works on a fresh
// database, or a template that drifted from the migrations, fails here.
func TestStepwiseMigrationEqualsTemplate(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := emptyDatabase(ctx, t)
	for v := int32(1); v <= schema.Latest(); v++ {
		got, err := schema.MigrateTo(ctx, url, v)
		if err != nil {
			t.Fatalf("migration %d on a database at %d: %v", v, v-1, err)
		}
		if got != v {
			t.Fatalf("after migration %d the database reports version %d", v, got)
		}
	}
	_, tmplURL := storetest.NewWithURL(t)
	stepwise, template := dumpSchema(ctx, t, url), dumpSchema(ctx, t, tmplURL)
	if d := diffLines(stepwise, template); d != "" {
		t.Fatalf("step-by-step schema differs from the template (- stepwise, + template):\n%s", d)
	}
	if len(template) < 50 {
		t.Fatalf("schema dump has only %d lines; the catalog queries are broken", len(template))
	}
}

// emptyDatabase creates a database with nothing in it, dropped when the test ends.
func emptyDatabase(ctx context.Context, t *testing.T) string {
	t.Helper()
	admin, err := pgx.Connect(ctx, tempdb.AdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(ctx)
	name := "tracker_step_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if c, err := pgx.Connect(ctx, tempdb.AdminURL()); err == nil {
			defer c.Close(ctx)
			_, _ = c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		}
	})
	return tempdb.URLFor(name)
}

// catalogQueries each yield one text line per schema object of the public schema.
var catalogQueries = map[string]string{
	"column": `SELECT table_name || '.' || column_name || ' ' || udt_name || ' null=' || is_nullable ||
		' default=' || coalesce(column_default, '-') || ' identity=' || is_identity || ' generated=' || coalesce(generation_expression, '-')
		FROM information_schema.columns WHERE table_schema = 'public'`,
	"table": `SELECT c.relname || ' kind=' || c.relkind::text || ' rls=' || c.relrowsecurity::text
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = 'public' AND c.relkind IN ('r','p','v','m','S')`,
	"index": `SELECT indexdef FROM pg_indexes WHERE schemaname = 'public'`,
	"constraint": `SELECT c.conrelid::regclass || ' ' || c.conname || ' ' || pg_get_constraintdef(c.oid)
		FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = 'public'`,
	"trigger": `SELECT pg_get_triggerdef(t.oid) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND NOT t.tgisinternal`,
	"function": `SELECT pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE n.nspname = 'public'`,
	"type": `SELECT t.typname || ' ' || coalesce(string_agg(e.enumlabel, ',' ORDER BY e.enumsortorder), '')
		FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_enum e ON e.enumtypid = t.oid
		WHERE n.nspname = 'public' AND t.typtype IN ('e','d','c') AND NOT EXISTS
		(SELECT 1 FROM pg_class c WHERE c.reltype = t.oid AND c.relkind <> 'c') GROUP BY t.typname`,
	"view": `SELECT viewname || ' ' || definition FROM pg_views WHERE schemaname = 'public'`,
	"policy": `SELECT tablename || ' ' || policyname || ' ' || cmd || ' ' || coalesce(qual, '') || ' ' || coalesce(with_check, '')
		FROM pg_policies WHERE schemaname = 'public'`,
	"extension": `SELECT extname FROM pg_extension`,
}

// dumpSchema renders the catalog of the database at url as sorted lines.
func dumpSchema(ctx context.Context, t *testing.T, url string) map[string]bool {
	t.Helper()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	out := map[string]bool{}
	for kind, q := range catalogQueries {
		rows, err := conn.Query(ctx, q)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		lines, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		for _, l := range lines {
			out[kind+": "+l] = true
		}
	}
	return out
}

func diffLines(a, b map[string]bool) string {
	var d []string
	for l := range a {
		if !b[l] {
			d = append(d, "- "+l)
		}
	}
	for l := range b {
		if !a[l] {
			d = append(d, "+ "+l)
		}
	}
	if len(d) == 0 {
		return ""
	}
	sort.Strings(d)
	return strings.Join(d, "\n")
}
