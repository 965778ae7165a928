// Package tagdb holds the SQL of entity tags: key-value pairs on projects,
// tickets, users, teams and time entries of one org.
package tagdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is an entity_tags row.
type Row struct {
	ID         uuid.UUID `db:"id"`
	OrgID      uuid.UUID `db:"org_id"`
	EntityType string    `db:"entity_type"`
	EntityID   uuid.UUID `db:"entity_id"`
	Key        string    `db:"key"`
	Value      string    `db:"value"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

var columns = []string{"id", "org_id", "entity_type", "entity_id", "key", "value", "created_at", "updated_at"}

// Columns is the column list of Row, each prefixed with alias when given.
func Columns(alias string) []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		if alias != "" {
			c = alias + "." + c
		}
		out[i] = c
	}
	return out
}

// Entity names one tagged entity of an org.
type Entity struct {
	OrgID uuid.UUID
	Type  string
	ID    uuid.UUID
}

func (e Entity) where(alias string) sq.Eq {
	return sq.Eq{alias + "org_id": e.OrgID, alias + "entity_type": e.Type, alias + "entity_id": e.ID}
}

// ForEntity lists an entity's tags by key.
func ForEntity(ctx context.Context, q store.Querier, e Entity) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(Columns("")...).From("entity_tags").
		Where(e.where("")).OrderBy("key"))
}

// Upsert sets an entity's tag: a new key is inserted, an existing one gets
// the new value (and updated_at). It returns the row after the write.
func Upsert(ctx context.Context, q store.Querier, r Row) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Insert("entity_tags").Columns(Columns("")...).
		Values(r.ID, r.OrgID, r.EntityType, r.EntityID, r.Key, r.Value, r.CreatedAt, r.UpdatedAt).
		Suffix(`ON CONFLICT ON CONSTRAINT entity_tags_entity_key_key DO UPDATE
			SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at RETURNING `+store.Cols(Columns(""))))
}

// Delete removes an entity's tag by key and returns it; none is
// store.ErrNotFound.
func Delete(ctx context.Context, q store.Querier, e Entity, key string) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Delete("entity_tags").Where(e.where("")).Where(sq.Eq{"key": key}).
		Suffix("RETURNING "+store.Cols(Columns(""))))
}
