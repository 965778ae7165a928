// Package statusflowdb holds the SQL of ticket-status workflows (the workflows table).
package statusflowdb

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Row is a workflows row; Statuses and Transitions are JSON.
type Row struct {
	ID          uuid.UUID `db:"id"`
	OrgID       uuid.UUID `db:"org_id"`
	Name        string    `db:"name"`
	Statuses    []byte    `db:"statuses"`
	Transitions []byte    `db:"transitions"`
	Enforcement string    `db:"enforcement"`
	CreatedAt   time.Time `db:"created_at"`
	UpdatedAt   time.Time `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "name", "statuses", "transitions", "enforcement", "created_at", "updated_at", "row_version"}
}

// Insert creates a workflow.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("workflows").
		Columns("id", "org_id", "name", "statuses", "transitions", "enforcement", "created_at", "updated_at").
		Values(r.ID, r.OrgID, r.Name, string(r.Statuses), string(r.Transitions), r.Enforcement, r.CreatedAt, r.UpdatedAt))
	return err
}
