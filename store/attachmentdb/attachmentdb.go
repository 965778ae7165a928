// Package attachmentdb holds the SQL of attachments. An attachment is
// visible while its ticket and the ticket's project are live.
package attachmentdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Row is an attachments row.
type Row struct {
	ID          uuid.UUID `db:"id"`
	OrgID       uuid.UUID `db:"org_id"`
	TicketID    uuid.UUID `db:"ticket_id"`
	Filename    string    `db:"filename"`
	ContentType string    `db:"content_type"`
	SizeBytes   int64     `db:"size_bytes"`
	StorageKey  string    `db:"storage_key"`
	UploadedBy  uuid.UUID `db:"uploaded_by"`
	CreatedAt   time.Time `db:"created_at"`
	State       string    `db:"state"`
}

// States of an attachment: pending until its object is in the storage with
// the confirmed size and type, then ready.
const (
	StatePending = "pending"
	StateReady   = "ready"
)

// Columns is the column list of Row.
func Columns() []string {
	return []string{"id", "org_id", "ticket_id", "filename", "content_type", "size_bytes", "storage_key", "uploaded_by", "created_at", "state"}
}

func prefixed(p string) []string { return store.Prefixed(p, Columns()) }

// WithAccess is an attachment and the caller's standing toward its project.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a visible attachment with the caller's access; forUpdate
// locks the row against a concurrent delete.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, forUpdate bool) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(prefixed("a")) + `, ` + store.Cols(store.AccessColumns("t.org_id", "t.project_id", "$2")) + `
	        FROM attachments a
	        JOIN tickets t ON t.id = a.ticket_id
	        JOIN projects p ON p.id = t.project_id
	        WHERE a.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	if forUpdate {
		sql += " FOR UPDATE OF a"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Insert records an attachment; a storage key already recorded is
// store.ErrConflict.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("attachments").Columns(Columns()...).
		Values(r.ID, r.OrgID, r.TicketID, r.Filename, r.ContentType, r.SizeBytes, r.StorageKey, r.UploadedBy, r.CreatedAt, r.State))
	return err
}

// GetForVerify reads an attachment of orgID by id, row-locked, whether or
// not its ticket is still visible.
func GetForVerify(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("attachments").
		Where(sq.Eq{"org_id": orgID, "id": id}).Suffix("FOR UPDATE"))
}

// PendingByKey finds the pending attachment recorded under key.
func PendingByKey(ctx context.Context, q store.Querier, key string) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("attachments").
		Where(sq.Eq{"storage_key": key, "state": StatePending}))
}

// SetReady turns a pending attachment ready.
func SetReady(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("attachments").Set("state", StateReady).
		Where(sq.Eq{"org_id": orgID, "id": id, "state": StatePending}))
	return err
}

// ListByTicket pages a ticket's attachments by id (upload order).
func ListByTicket(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("attachments").Where(sq.Eq{"org_id": orgID, "ticket_id": ticketID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Delete removes one attachment row.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	n, err := store.Exec(ctx, q, store.SQL.Delete("attachments").Where(sq.Eq{"org_id": orgID, "id": id}))
	if err == nil && n == 0 {
		return store.ErrNotFound
	}
	return err
}

// RecordedKeys returns which of keys have an attachment row (any org): the
// cleanup of unconfirmed uploads keeps those.
func RecordedKeys(ctx context.Context, q store.Querier, keys []string) (map[string]bool, error) {
	rows, err := store.SelectRaw[struct {
		Key string `db:"storage_key"`
	}](ctx, q, `SELECT storage_key FROM attachments WHERE storage_key = ANY ($1)`, keys)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(rows))
	for _, r := range rows {
		out[r.Key] = true
	}
	return out, nil
}

// ByOrg pages every attachment of an org (export), in id order.
func ByOrg(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) ([]Row, error) {
	b := store.SQL.Select(Columns()...).From("attachments").Where(sq.Eq{"org_id": orgID, "ticket_id": ticketIDs}).OrderBy("id")
	return store.Select[Row](ctx, q, b)
}

// TopicDeleteObjects is the outbox topic of the durable removal of
// attachment objects (written by a delete and by cascade purges).
const TopicDeleteObjects = "job.attachment_objects_delete"

// DeleteJob is the payload of a TopicDeleteObjects row.
type DeleteJob struct {
	OrgID uuid.UUID `json:"org_id"`
	Keys  []string  `json:"keys"`
}

// PurgeSQL is the cascade purge's attachments step for the tickets that
// ticketScope selects ($1 org, $3 batch limit): one batch of rows deleted
// and, in the same statement, one outbox job that removes their objects.
func PurgeSQL(ticketScope string) string {
	return `WITH d AS (
		    DELETE FROM attachments WHERE id IN (
		        SELECT x.id FROM attachments x WHERE x.org_id = $1 AND x.ticket_id IN (` + ticketScope + `) LIMIT $3)
		    RETURNING storage_key),
		o AS (
		    INSERT INTO outbox (id, org_id, topic, payload)
		    SELECT gen_random_uuid(), $1, '` + TopicDeleteObjects + `',
		           jsonb_build_object('org_id', $1::uuid, 'keys', jsonb_agg(storage_key))
		    FROM d HAVING count(*) > 0)
		SELECT count(*) FROM d`
}
