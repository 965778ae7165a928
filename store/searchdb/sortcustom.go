package searchdb

import (
	"context"
	"fmt"
	"strconv"

	sq "github.com/Masterminds/squirrel"

	"tracker/internal/searchquery"
	"tracker/store"
)

// sort:cf.<key> is read in two parts, each in the order of an index: the
// matches with a value, walking the field's (field_id, value, ticket_id)
// index of ticket_custom_values and joining each ticket, then — only when
// that part ends within the page — the matches without one, by ticket id.
// One ORDER BY over a COALESCE of a correlated read would read and sort
// every match for each page, and a UNION of the two parts would walk the
// tickets without a value even when the page is full (or, when the filter
// implies a value, every ticket for none).

// afterNone tells whether the keyset position of s lies among the tickets
// without a value (the valued part is over).
func afterNone(s Search) bool {
	if s.After == nil {
		return false
	}
	if s.Sort.CustomType == "number" {
		return s.After.Num == NoNumber(s.Sort.Desc)
	}
	return s.After.Int == NoDue(s.Sort.Desc)
}

func direction(desc bool) (dir, cmp string) {
	if desc {
		return " DESC", "<"
	}
	return " ASC", ">"
}

// customPage is the valued part of sort:cf.<key>: the matches with a value
// of the field, in (value, ticket) order after the keyset position, one
// more than the limit; sort_value is the key as text (a date's days since
// 1970-01-01).
func customPage(s Search, cols []string) (sq.SelectBuilder, error) {
	dir, cmp := direction(s.Sort.Desc)
	value, order, key := "cv.num_value::text", "cv.num_value", "?::numeric"
	var after any
	if s.After != nil {
		after = s.After.Num
	}
	if s.Sort.CustomType != "number" {
		value, order, key = "(cv.date_value - DATE '1970-01-01')::text", "cv.date_value", "DATE '1970-01-01' + ?::int"
		if s.After != nil {
			after = s.After.Int
		}
	}
	b, err := base(s, append(cols, value+" AS sort_value")...)
	if err != nil {
		return b, err
	}
	b = b.Join("ticket_custom_values cv ON cv.ticket_id = t.id").
		Where("cv.field_id = ?", s.Env.SortField).Where(order + " IS NOT NULL")
	if s.After != nil {
		b = b.Where("("+order+", cv.ticket_id) "+cmp+" ("+key+", ?)", after, s.After.ID)
	}
	return b.OrderBy(order+dir, "cv.ticket_id"+dir).Limit(uint64(s.Limit) + 1), nil
}

// nonePage is the other part: the matches without a value, by ticket id
// after the keyset position when it lies among them, limit rows.
func nonePage(s Search, cols []string, limit int) (sq.SelectBuilder, error) {
	dir, cmp := direction(s.Sort.Desc)
	none := NoNumber(s.Sort.Desc)
	if s.Sort.CustomType != "number" {
		none = strconv.FormatInt(NoDue(s.Sort.Desc), 10)
	}
	b, err := base(s, append(cols, fmt.Sprintf("'%s'::text AS sort_value", none))...)
	if err != nil {
		return b, err
	}
	b = b.Where("NOT EXISTS (SELECT 1 FROM ticket_custom_values cv WHERE cv.ticket_id = t.id AND cv.field_id = ?)", s.Env.SortField)
	if afterNone(s) {
		b = b.Where("t.id "+cmp+" ?", s.After.ID)
	}
	return b.OrderBy("t.id" + dir).Limit(uint64(limit)), nil
}

// listCustom reads a page of sort:cf.<key> (s resolved): up to one row
// more than the limit, from the valued part and then the other.
func listCustom(ctx context.Context, q store.Querier, s Search) ([]rankedRow, error) {
	var out []rankedRow
	if !afterNone(s) {
		b, err := Page(s)
		if err != nil {
			return nil, err
		}
		if out, err = selectRanked(ctx, q, b); err != nil || len(out) > s.Limit {
			return out, err
		}
	}
	cols := append(pageColumns(), "0::real AS rank")
	b, err := nonePage(s, cols, s.Limit+1-len(out))
	if err != nil {
		return nil, err
	}
	rest, err := selectRanked(ctx, q, b)
	return append(out, rest...), err
}

func selectRanked(ctx context.Context, q store.Querier, b sq.SelectBuilder) ([]rankedRow, error) {
	sql, args, err := b.ToSql()
	if err != nil {
		return nil, err
	}
	return store.SelectRaw[rankedRow](ctx, q, sql, customPlan(args)...)
}

// sortsByCustom tells whether s is a sort:cf.<key> (read by listCustom).
func sortsByCustom(s Search) bool { return s.Sort.Key == searchquery.SortCustom }
