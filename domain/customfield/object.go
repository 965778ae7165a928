package customfield

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/internal/jsonw"
	"tracker/store"
)

// Object is a ticket's custom_fields as the API answers it: by key, each
// value as Field.Render gives it; empty (or nil) is {}.
type Object map[string]any

// AppendJSON appends the object; keys in order (as encoding/json writes a
// map), so the ticket's generated encoder and encoding/json agree (byte for
// byte: TestObjectJSONMatchesEncodingJSON).
func (o Object) AppendJSON(b []byte) []byte {
	if len(o) == 0 {
		return append(b, "{}"...)
	}
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	start := len(b)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(jsonw.AppendString(b, k), ':')
		switch v := o[k].(type) { // what Field.Render answers
		case string:
			b = jsonw.AppendString(b, v)
		case json.Number:
			b = append(b, v...)
		case bool:
			b = strconv.AppendBool(b, v)
		case []string:
			if v == nil {
				b = append(b, "null"...)
				continue
			}
			b = append(b, '[')
			for j, x := range v {
				if j > 0 {
					b = append(b, ',')
				}
				b = jsonw.AppendString(b, x)
			}
			b = append(b, ']')
		default:
			out, err := json.Marshal(map[string]any(o))
			if err != nil {
				return append(b[:start], "{}"...)
			}
			return append(b[:start], out...)
		}
	}
	return append(b, '}')
}

// MarshalJSON is AppendJSON for encoding/json.
func (o Object) MarshalJSON() ([]byte, error) { return o.AppendJSON(nil), nil }

// Created is the activity trail's record of the values a ticket was
// created with: one change per key (old null), in key order.
func (o Object) Created() []domain.FieldChange {
	keys := make([]string, 0, len(o))
	for k := range o {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]domain.FieldChange, 0, len(keys))
	for _, k := range keys {
		out = append(out, domain.FieldChange{Field: "custom_fields." + k, New: o[k]})
	}
	return out
}

// Objects reads the custom_fields of ticketIDs of orgID, by ticket.
func Objects(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) (map[uuid.UUID]Object, error) {
	r, err := Read(ctx, q, orgID, ticketIDs)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]Object, len(r))
	for id, m := range r {
		out[id] = Object(m)
	}
	return out, nil
}

// Render is the custom_fields a write leaves on a new ticket.
func (d Defs) Render(w Write) Object {
	byID := make(map[uuid.UUID]Field, len(d))
	for _, f := range d {
		byID[f.ID] = f
	}
	out := Object{}
	for _, v := range w.Put {
		if f, ok := byID[v.FieldID]; ok {
			if r := f.Render(v); r != nil {
				out[f.Key] = r
			}
		}
	}
	return out
}
