package domain

import (
	"bytes"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
)

// Patch is a partial change of C, a row's own values (a store Content: one
// flat struct whose `json` tags are the API's keys and `db` tags the
// columns). Value holds what a request sent; sent names the keys it sent,
// true for those sent as null. The create and update inputs, the checks and
// the activity trail's changes all read C's fields, so a new field of C
// needs no line in a request type, a use case or its change list.
type Patch[C any] struct {
	Value C
	sent  map[string]bool
}

// PatchOf is the patch of C that the JSON object body sends, v its values as
// decoded (the request embeds C). A key C lacks is not part of it.
func PatchOf[C any](body []byte, v C) Patch[C] {
	var keys map[string]json.RawMessage
	_ = json.Unmarshal(body, &keys) // Bind has checked the body already
	p := PatchWith(v)
	for _, f := range contentOf(reflect.TypeFor[C]()) {
		if raw, ok := keys[f.key]; ok {
			p.sent[f.key] = bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
		}
	}
	return p
}

// PatchWith is the patch of C that sets keys to their values in v.
func PatchWith[C any](v C, keys ...string) Patch[C] {
	p := Patch[C]{Value: v, sent: make(map[string]bool, len(keys))}
	for _, k := range keys {
		p.sent[k] = false
	}
	return p
}

// Has reports whether the patch sets key (to a value or to null).
func (p Patch[C]) Has(key string) bool { _, ok := p.sent[key]; return ok }

// Null reports whether the patch sets key to null.
func (p Patch[C]) Null(key string) bool { return p.sent[key] }

// Empty reports whether the patch sets nothing.
func (p Patch[C]) Empty() bool { return len(p.sent) == 0 }

// Changeset is what a change writes: the columns to set and the activity
// trail's changes, old and new as values (a pointer's value, nil for NULL).
type Changeset struct {
	Set     map[string]any
	Changes []FieldChange
}

// Track records field in c when o sets it to a value other than old.
func Track[T comparable](c *Changeset, field string, o Opt[T], old *T) {
	if nv := o.Ptr(); o.Set && !(old == nil && nv == nil || old != nil && nv != nil && *old == *nv) {
		c.Set[field] = valueOf(reflect.ValueOf(nv))
		c.Changes = append(c.Changes, FieldChange{Field: field, Old: valueOf(reflect.ValueOf(old)), New: c.Set[field]})
	}
}

// Track records in c what the patch sets to other values than old's, in C's
// field order, leaving out the keys in skip (a field with rules of its own,
// such as a workflow's status).
func (p Patch[C]) Track(c *Changeset, old C, skip ...string) {
	ov, nv := reflect.ValueOf(old), reflect.ValueOf(p.Value)
	for _, f := range contentOf(reflect.TypeFor[C]()) {
		if !p.Has(f.key) || slices.Contains(skip, f.key) {
			continue
		}
		was, now := valueOf(ov.Field(f.index)), valueOf(nv.Field(f.index))
		if reflect.DeepEqual(was, now) {
			continue
		}
		c.Set[f.column] = now
		c.Changes = append(c.Changes, FieldChange{Field: f.column, Old: was, New: now})
	}
}

// Apply is old with the fields the patch sets taken from its values.
func (p Patch[C]) Apply(old C) C {
	ov, nv := reflect.ValueOf(&old).Elem(), reflect.ValueOf(p.Value)
	for _, f := range contentOf(reflect.TypeFor[C]()) {
		if p.Has(f.key) {
			ov.Field(f.index).Set(nv.Field(f.index))
		}
	}
	return old
}

// Created lists the fields of a new row's values as the activity trail
// records a creation: every value, but a nil pointer not at all.
func Created[C any](v C) []FieldChange {
	var out []FieldChange
	rv := reflect.ValueOf(v)
	for _, f := range contentOf(reflect.TypeFor[C]()) {
		if now := valueOf(rv.Field(f.index)); now != nil {
			out = append(out, FieldChange{Field: f.column, New: now})
		}
	}
	return out
}

// contentField is one field of a Content type: its JSON key, column and
// index.
type contentField struct {
	key, column string
	index       int
}

var contents sync.Map // reflect.Type → []contentField

// contentOf lists t's fields once per type: the write path asks on every
// create and PATCH.
func contentOf(t reflect.Type) []contentField {
	if v, ok := contents.Load(t); ok {
		return v.([]contentField)
	}
	out := make([]contentField, 0, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		key, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, contentField{key: key, column: f.Tag.Get("db"), index: i})
	}
	contents.Store(t, out)
	return out
}

// valueOf is a field's value, a pointer's value or nil for a nil pointer.
func valueOf(v reflect.Value) any {
	if v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return reflect.Indirect(v).Interface()
}

// Filled is the patch of C that sets each field of v that is not zero, and
// keys besides: a new row's values, checked by the same rules as a change.
func Filled[C any](v C, keys ...string) Patch[C] {
	p, rv := PatchWith(v, keys...), reflect.ValueOf(v)
	for _, f := range contentOf(reflect.TypeFor[C]()) {
		if !rv.Field(f.index).IsZero() {
			p.sent[f.key] = false
		}
	}
	return p
}
