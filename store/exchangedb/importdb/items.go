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
	if _, err := q.Exec(ctx, `DELETE FROM import_items WHERE import_id = $1`, importID); err != nil {
		return store.Translate(err)
	}
	c, ok := q.(copier)
	if !ok {
		return errors.New("importdb: staging needs a transaction that supports COPY")
	}
	_, err := c.CopyFrom(ctx, pgx.Identifier{"import_items"}, []string{"import_id", "seq", "payload"},
		pgx.CopyFromSlice(len(payloads), func(i int) ([]any, error) {
			return []any{importID, i, payloads[i]}, nil
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
