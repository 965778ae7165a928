package domain

import (
	"bytes"
	"encoding/json"
	"reflect"
)

// Opt is a PATCH field: absent (Set false), explicit null (Null true), or a
// value. It unmarshals itself from JSON, so request DTOs can carry it.
type Opt[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// UnmarshalJSON is only called when the key is present.
func (o *Opt[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(bytes.TrimSpace(b), []byte("null")) {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// JSONInner is the type Opt's JSON decodes into: JSONNames checks the
// member names inside an Opt as that type's.
func (Opt[T]) JSONInner() reflect.Type { return reflect.TypeFor[T]() }

// Some is a set, non-null Opt.
func Some[T any](v T) Opt[T] { return Opt[T]{Set: true, Value: v} }

// Ptr is the value as a pointer, nil when null or absent.
func (o Opt[T]) Ptr() *T {
	if !o.Set || o.Null {
		return nil
	}
	v := o.Value
	return &v
}
