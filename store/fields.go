package store

import (
	"context"
	"fmt"
	"reflect"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/internal/civil"
)

// Fields is a row type T read once from its `db` tags: the one list of a
// table's columns from which a store package builds its column lists, its
// scan targets, its named insert arguments and its unnest arrays. A column
// added to the table is then one field on the row type, nothing else.
type Fields[T any] struct {
	names []string
	types []string // PostgreSQL type of each column, for unnest casts
	index [][]int  // reflect field index path (embedded structs flattened)
}

// FieldsOf reads T's `db` tags in field order. An embedded struct without a
// `db` tag contributes its own tagged fields in place (a row type shares a
// group of columns with other types by embedding it). A field type it has no
// PostgreSQL type for panics at package initialization (a test catches it).
func FieldsOf[T any]() *Fields[T] {
	f := &Fields[T]{}
	f.add(reflect.TypeFor[T](), nil)
	return f
}

func (f *Fields[T]) add(rt reflect.Type, path []int) {
	for i := range rt.NumField() {
		sf := rt.Field(i)
		idx := append(append([]int(nil), path...), i)
		name := sf.Tag.Get("db")
		if name == "" && sf.Anonymous && sf.Type.Kind() == reflect.Struct {
			f.add(sf.Type, idx)
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		f.names = append(f.names, name)
		f.types = append(f.types, pgType(sf.Type))
		f.index = append(f.index, idx)
	}
}

var pgTypes = map[reflect.Type]string{
	reflect.TypeFor[uuid.UUID](): "uuid",
	reflect.TypeFor[string]():    "text",
	reflect.TypeFor[int32]():     "int",
	reflect.TypeFor[int]():       "bigint",
	reflect.TypeFor[int64]():     "bigint",
	reflect.TypeFor[bool]():      "bool",
	reflect.TypeFor[time.Time](): "timestamptz",
	// A day without a time, and an exact amount with two decimal places.
	reflect.TypeFor[civil.Date]():    "date",
	reflect.TypeFor[civil.Decimal](): "numeric",
}

// PGTyped is a column type that names its PostgreSQL type itself (a store
// package's own type, which pgTypes cannot list).
type PGTyped interface{ PGType() string }

func pgType(t reflect.Type) string {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if s, ok := pgTypes[t]; ok {
		return s
	}
	if t.Implements(reflect.TypeFor[PGTyped]()) {
		return reflect.Zero(t).Interface().(PGTyped).PGType()
	}
	panic(fmt.Sprintf("store.FieldsOf: no PostgreSQL type for %s", t))
}

// Names is the column list, in field order.
func (f *Fields[T]) Names() []string { return f.names }

// Types are the PostgreSQL types of Names (uuid, text, int, bigint, bool,
// timestamptz, date, numeric), in the same order.
func (f *Fields[T]) Types() []string { return f.types }

// Values are r's fields in Names order.
func (f *Fields[T]) Values(r *T) []any {
	v := reflect.ValueOf(r).Elem()
	out := make([]any, len(f.index))
	for i, fi := range f.index {
		out[i] = v.FieldByIndex(fi).Interface()
	}
	return out
}

// Targets are pointers to r's fields in Names order, for rows.Scan. Scan
// into a zeroed r: a non-nil pointer field would be scanned into in place.
func (f *Fields[T]) Targets(r *T) []any {
	v := reflect.ValueOf(r).Elem()
	out := make([]any, len(f.index))
	for i, fi := range f.index {
		out[i] = v.FieldByIndex(fi).Addr().Interface()
	}
	return out
}

// Named adds r's fields to args under their column names (pgx.NamedArgs:
// @column in the statement).
func (f *Fields[T]) Named(r *T, args pgx.NamedArgs) pgx.NamedArgs {
	v := reflect.ValueOf(r).Elem()
	for i, fi := range f.index {
		args[f.names[i]] = v.FieldByIndex(fi).Interface()
	}
	return args
}

// Arrays are rows as one typed slice per column, in Names order: the
// arguments of Unnest.
func (f *Fields[T]) Arrays(rows []T) []any {
	out := make([]any, len(f.index))
	rv := reflect.ValueOf(rows)
	for i, fi := range f.index {
		ft := reflect.TypeFor[T]().FieldByIndex(fi).Type
		s := reflect.MakeSlice(reflect.SliceOf(ft), len(rows), len(rows))
		for j := range rows {
			s.Index(j).Set(rv.Index(j).FieldByIndex(fi))
		}
		out[i] = s.Interface()
	}
	return out
}

// Unnest is `unnest($1::type[], …) AS alias(columns)` over Arrays, its
// parameters numbered from first.
func (f *Fields[T]) Unnest(alias string, first int) string {
	s := "unnest("
	for i, t := range f.types {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprintf("$%d::%s[]", first+i, t)
	}
	return s + ") AS " + alias + "(" + Cols(f.names) + ")"
}

// InsertMany inserts rows into table in one statement (an import's batch):
// every column of T, from unnest over Arrays.
func (f *Fields[T]) InsertMany(ctx context.Context, q Querier, table string, rows []T) error {
	if len(rows) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO `+table+` (`+Cols(f.names)+`) SELECT * FROM `+f.Unnest("u", 1), f.Arrays(rows)...)
	return Translate(err)
}
