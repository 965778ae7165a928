package projectdb

import (
	"context"
	"errors"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Dependents are the live rows under a project that block a plain delete.
type Dependents struct {
	Tickets  int64 `db:"tickets" json:"tickets"`
	Sprints  int64 `db:"sprints" json:"sprints"`
	Comments int64 `db:"comments" json:"comments"`
}

// CountDependents counts the project's live tickets and sprints, and the
// comments on its live tickets (comments have no deleted_at of their own).
func CountDependents(ctx context.Context, q store.Querier, projectID uuid.UUID) (Dependents, error) {
	return store.GetRaw[Dependents](ctx, q, `SELECT
		(SELECT count(*) FROM tickets t WHERE t.project_id = $1 AND t.deleted_at IS NULL) AS tickets,
		(SELECT count(*) FROM sprints s WHERE s.project_id = $1 AND s.deleted_at IS NULL) AS sprints,
		(SELECT count(*) FROM comments c JOIN tickets t ON t.id = c.ticket_id
		  WHERE t.project_id = $1 AND t.deleted_at IS NULL) AS comments`, projectID)
}

// SoftDelete hides a live project of org at one of the versions v names at
// once; the durable cascade purges it and its dependents later. No such row
// is store.ErrNotFound.
func SoftDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, at time.Time) error {
	n, err := store.Exec(ctx, q, store.SQL.Update("projects").Set("deleted_at", at).Set("updated_at", at).
		Where(sq.Eq{"id": id, "org_id": orgID}).Where("deleted_at IS NULL").Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ErrStillReferenced is HardDelete's answer when rows that no count covers
// (soft-deleted tickets awaiting their purge, kept time entries, ...) still
// point at the project: nothing was deleted and the transaction is usable.
var ErrStillReferenced = errors.New("project still referenced")

// HardDelete removes a project of org at one of the versions v names with its
// member assignments and its own tags, inside a savepoint so that a foreign
// key violation leaves the caller's transaction usable (ErrStillReferenced).
// No such row is store.ErrNotFound.
func HardDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	if _, err := q.Exec(ctx, "SAVEPOINT project_hard_delete"); err != nil {
		return store.Translate(err)
	}
	err := hardDelete(ctx, q, orgID, id, v)
	if errors.Is(err, store.ErrInvalidRef) {
		if _, rbErr := q.Exec(ctx, "ROLLBACK TO SAVEPOINT project_hard_delete"); rbErr != nil {
			return store.Translate(rbErr)
		}
		return ErrStillReferenced
	}
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, "RELEASE SAVEPOINT project_hard_delete")
	return store.Translate(err)
}

func hardDelete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("project_members").Where(sq.Eq{"org_id": orgID, "project_id": id})); err != nil {
		return err
	}
	if _, err := store.Exec(ctx, q, store.SQL.Delete("entity_tags").
		Where(sq.Eq{"org_id": orgID, "entity_type": "project", "entity_id": id})); err != nil {
		return err
	}
	n, err := store.Exec(ctx, q, store.SQL.Delete("projects").Where(sq.Eq{"id": id, "org_id": orgID}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}
