package schema_test

import (
	"context"
	"testing"

	"tracker/schema"
	"tracker/store/storetest"
)

func TestMigrateReachesLatestAndIsIdempotent(t *testing.T) {
	db, url := storetest.NewWithURL(t)
	ctx := context.Background()
	var v int32
	if err := db.Pool.QueryRow(ctx, schema.VersionQuery).Scan(&v); err != nil {
		t.Fatal(err)
	}
	if v != schema.Latest() {
		t.Fatalf("template at version %d, want %d", v, schema.Latest())
	}
	// A second run (another replica starting) applies nothing and keeps the version.
	got, err := schema.Migrate(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	if got != schema.Latest() {
		t.Fatalf("re-migrate gave %d, want %d", got, schema.Latest())
	}
}
