package searchdb

import (
	"strings"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/searchquery"
)

// CustomField is what a cf.<key> term compiles against: the org's field of
// that key, its type and its options' ids by lowercase name.
type CustomField struct {
	ID      uuid.UUID
	Type    string
	Options map[string][]uuid.UUID
}

// customTerm compiles cf.<key>: a value of the field on the ticket
// (ticket_custom_values, by the index of the field's type), or none.
func customTerm(t searchquery.Term, env Env) (sq.Sqlizer, error) {
	f, ok := env.Custom[t.Custom]
	if !ok { // a caller that did not resolve custom fields: nothing matches
		return sq.Expr("FALSE"), nil
	}
	const exists = `EXISTS (SELECT 1 FROM ticket_custom_values cv WHERE cv.ticket_id = t.id AND cv.field_id = ? AND `
	if t.None {
		return sq.Expr(`NOT EXISTS (SELECT 1 FROM ticket_custom_values cv WHERE cv.ticket_id = t.id AND cv.field_id = ?)`, f.ID), nil
	}
	op := t.Op
	if op == "" {
		op = "="
	}
	switch f.Type {
	case "text", "url":
		return sq.Expr(exists+`lower(cv.text_value) = lower(?))`, f.ID, t.Value), nil
	case "number":
		return sq.Expr(exists+`cv.num_value `+op+` ?::numeric)`, f.ID, t.Value), nil
	case "date":
		return sq.Expr(exists+`cv.date_value `+op+` ?::date)`, f.ID, t.Value), nil
	case "checkbox":
		return sq.Expr(exists+`cv.bool_value = ?)`, f.ID, strings.EqualFold(t.Value, "true")), nil
	case "user":
		if strings.EqualFold(t.Value, "me") {
			return sq.Expr(exists+`cv.user_value = ?)`, f.ID, env.UserID), nil
		}
		return sq.Expr(exists+`cv.user_value = (SELECT u.id FROM users u WHERE lower(u.email) = lower(?)))`, f.ID, t.Value), nil
	case "select", "multi_select":
		ids := f.Options[strings.ToLower(t.Value)]
		if len(ids) == 0 {
			return sq.Expr("FALSE"), nil
		}
		return sq.Expr(exists+`cv.option_ids && ?::uuid[])`, f.ID, ids), nil
	}
	return sq.Expr("FALSE"), nil
}
