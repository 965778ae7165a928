package testfactory

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/tagdb"
)

// TagOpts name the tagged entity (EntityType as the API spells it:
// project, ticket, user, team, time_entry) and the tag; Key defaults to
// "k", Value to "v".
type TagOpts struct {
	EntityType string
	EntityID   uuid.UUID
	Key, Value string
}

// Tag sets a tag on an entity of orgID (an existing key takes the new
// value).
func Tag(t testing.TB, db *store.DB, orgID uuid.UUID, o TagOpts) tagdb.Row {
	t.Helper()
	if o.Key == "" {
		o.Key = "k"
	}
	if o.Value == "" {
		o.Value = "v"
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r, err := tagdb.Upsert(context.Background(), db.Q(), tagdb.Row{ID: domain.NewID(), OrgID: orgID, EntityType: o.EntityType,
		EntityID: o.EntityID, Key: o.Key, Value: o.Value, CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatalf("testfactory.Tag: %v", err)
	}
	return r
}
