package importdb

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
)

// copier is a transaction (or pool) that speaks COPY.
type copier interface {
	CopyFrom(ctx context.Context, table pgx.Identifier, columns []string, src pgx.CopyFromSource) (int64, error)
}

// ReplaceItems stages an import's items (payloads in seq order from 0) with
// COPY, dropping any left by an earlier, unfinished attempt.
func ReplaceItems(ctx context.Context, q store.Querier, importID uuid.UUID, payloads [][]byte) error {
	if err := DeleteItems(ctx, q, importID); err != nil {
		return err
	}
	return CopyItems(ctx, q, importID, 0, payloads)
}

// DeleteItems drops an import's staged items (an earlier, unfinished
// attempt's).
func DeleteItems(ctx context.Context, q store.Querier, importID uuid.UUID) error {
	_, err := q.Exec(ctx, `DELETE FROM import_items WHERE import_id = $1`, importID)
	return store.Translate(err)
}

// CopyItems stages payloads with COPY as the items first, first+1, …: a
// streamed staging writes its tickets a batch at a time.
func CopyItems(ctx context.Context, q store.Querier, importID uuid.UUID, first int, payloads [][]byte) error {
	c, ok := q.(copier)
	if !ok {
		return errors.New("importdb: staging needs a transaction that supports COPY")
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"import_items"}, []string{"import_id", "seq", "payload"},
		pgx.CopyFromSlice(len(payloads), func(i int) ([]any, error) {
			return []any{importID, first + i, payloads[i]}, nil
		}))
	return store.Translate(err)
}

// Item is one staged payload.
type Item struct {
	Seq     int    `db:"seq"`
	Payload []byte `db:"payload"`
}

// Items reads the staged items with from <= seq < to, in order.
func Items(ctx context.Context, q store.Querier, importID uuid.UUID, from, to int) ([]Item, error) {
	return store.SelectRaw[Item](ctx, q, `SELECT seq, payload FROM import_items
	    WHERE import_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq`, importID, from, to)
}
