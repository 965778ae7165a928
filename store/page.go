package store

import (
	"context"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
)

// Page asks for one page of a keyset-paginated list ordered by id.
type Page struct {
	Limit int
	After uuid.UUID // uuid.Nil: from the start
}

// Paged is one page of rows and the id to continue after, if any.
type Paged[T any] struct {
	Items []T
	Next  *uuid.UUID
}

// SelectPage pages b by idCol (ascending, UUIDv7 so time-ordered): it fetches
// one row more than asked to know whether another page exists.
func SelectPage[T any](ctx context.Context, q Querier, b sq.SelectBuilder, idCol string, p Page, idOf func(T) uuid.UUID) (Paged[T], error) {
	if p.After != uuid.Nil {
		b = b.Where(sq.Gt{idCol: p.After})
	}
	b = b.OrderBy(idCol).Limit(uint64(p.Limit) + 1)
	rows, err := Select[T](ctx, q, b)
	if err != nil {
		return Paged[T]{}, err
	}
	out := Paged[T]{Items: rows}
	if len(rows) > p.Limit {
		out.Items = rows[:p.Limit]
		next := idOf(out.Items[p.Limit-1])
		out.Next = &next
	}
	return out, nil
}
