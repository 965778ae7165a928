package exportdb

import (
	"context"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/attachmentdb"
)

// Attachments reads the ready attachments of the given tickets in upload
// order: a pending one has no object yet, and may never have one.
func Attachments(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) ([]attachmentdb.Row, error) {
	return store.SelectRaw[attachmentdb.Row](ctx, q, `SELECT `+store.Cols(attachmentdb.Columns())+`
	    FROM attachments WHERE ticket_id = ANY($1) AND state = 'ready' ORDER BY ticket_id, id`, ticketIDs)
}
