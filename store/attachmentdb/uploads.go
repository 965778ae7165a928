package attachmentdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Upload is an attachment_uploads row: one presigned upload.
type Upload struct {
	StorageKey  string    `db:"storage_key"`
	OrgID       uuid.UUID `db:"org_id"`
	TicketID    uuid.UUID `db:"ticket_id"`
	Filename    string    `db:"filename"`
	ContentType string    `db:"content_type"`
	SizeBytes   int64     `db:"size_bytes"`
	PresignedBy uuid.UUID `db:"presigned_by"`
	CreatedAt   time.Time `db:"created_at"`
}

func uploadColumns() []string {
	return []string{"storage_key", "org_id", "ticket_id", "filename", "content_type", "size_bytes", "presigned_by", "created_at"}
}

// InsertUpload records a presigned upload.
func InsertUpload(ctx context.Context, q store.Querier, u Upload) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("attachment_uploads").Columns(uploadColumns()...).
		Values(u.StorageKey, u.OrgID, u.TicketID, u.Filename, u.ContentType, u.SizeBytes, u.PresignedBy, u.CreatedAt))
	return err
}

// GetUpload reads the presigned upload of key on ticketID of orgID.
func GetUpload(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, key string) (Upload, error) {
	return store.Get[Upload](ctx, q, store.SQL.Select(uploadColumns()...).From("attachment_uploads").
		Where(sq.Eq{"storage_key": key, "org_id": orgID, "ticket_id": ticketID}))
}

// PurgeUploads removes the records of uploads presigned before cutoff.
func PurgeUploads(ctx context.Context, q store.Querier, cutoff time.Time) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("attachment_uploads").Where(sq.Lt{"created_at": cutoff}))
}

// DeleteUpload forgets the presigned upload of key: it can no longer be
// confirmed.
func DeleteUpload(ctx context.Context, q store.Querier, key string) error {
	_, err := store.Exec(ctx, q, store.SQL.Delete("attachment_uploads").Where(sq.Eq{"storage_key": key}))
	return err
}
