package customfielddb

import (
	"context"
	"encoding/json"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
)

// Value is a ticket_custom_values row: one ticket's value of one field, in
// the column of the field's type (numbers and dates as their SQL text).
type Value struct {
	TicketID  uuid.UUID   `db:"ticket_id"`
	FieldID   uuid.UUID   `db:"field_id"`
	OrgID     uuid.UUID   `db:"org_id"`
	Text      *string     `db:"text_value"`
	Num       *string     `db:"num_value"`
	Date      *string     `db:"date_value"`
	Bool      *bool       `db:"bool_value"`
	User      *uuid.UUID  `db:"user_value"`
	OptionIDs []uuid.UUID `db:"option_ids"`
}

// Put writes values, each replacing its ticket's earlier value of its field.
func Put(ctx context.Context, q store.Querier, vs []Value) error {
	if len(vs) == 0 {
		return nil
	}
	b := store.SQL.Insert("ticket_custom_values").Columns("ticket_id", "field_id", "org_id", "text_value", "num_value",
		"date_value", "bool_value", "user_value", "option_ids")
	for _, v := range vs {
		var opts any
		if v.OptionIDs != nil {
			opts = v.OptionIDs
		}
		b = b.Values(v.TicketID, v.FieldID, v.OrgID, v.Text, sq.Expr("?::numeric", v.Num), sq.Expr("?::date", v.Date), v.Bool, v.User, opts)
	}
	_, err := store.Exec(ctx, q, b.Suffix(`ON CONFLICT (ticket_id, field_id) DO UPDATE SET text_value = EXCLUDED.text_value,
		num_value = EXCLUDED.num_value, date_value = EXCLUDED.date_value, bool_value = EXCLUDED.bool_value,
		user_value = EXCLUDED.user_value, option_ids = EXCLUDED.option_ids`))
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, 0, len(vs))
	for _, v := range vs {
		ids = append(ids, v.TicketID)
	}
	return RewriteCopies(ctx, q, ids)
}

// RewriteCopies renders the rendered copies (tickets.custom_fields) of
// ticketIDs anew from their values, for a write that has not laid them
// down itself.
func RewriteCopies(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) error {
	if len(ticketIDs) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `UPDATE tickets SET custom_fields = ticket_custom_fields_json(id)
	    WHERE id = ANY($1) AND custom_fields::text IS DISTINCT FROM ticket_custom_fields_json(id)::text`, ticketIDs)
	return store.Translate(err)
}

// FieldValue is a Value with the key, type and options of its field.
type FieldValue struct {
	Value
	Key     string   `db:"key"`
	Type    string   `db:"type"`
	Options []Option `db:"options"`
}

// OfLive reads the values of ticketIDs in orgID with their fields (live
// ones: a deleted field's values waiting for the purge are left out), in
// one query. A page's values are read on every list: the columns come by
// position, and only a select field's options (the others' are empty).
func OfLive(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) ([]FieldValue, error) {
	if len(ticketIDs) == 0 {
		return nil, nil
	}
	rows, err := q.Query(ctx, `SELECT `+liveCols+`
	    FROM ticket_custom_values v JOIN custom_fields f ON f.id = v.field_id AND f.deleted_at IS NULL
	    WHERE v.org_id = $1 AND v.ticket_id = ANY($2)`, orgID, ticketIDs)
	if err != nil {
		return nil, store.Translate(err)
	}
	return scanLive(rows)
}

// liveCols are the columns of a FieldValue, in its order, of a value v
// joined with its live field f.
const liveCols = `v.ticket_id, v.field_id, v.org_id, v.text_value, v.num_value::text, v.date_value::text,
	v.bool_value, v.user_value, v.option_ids, f.key, f.type, CASE WHEN v.option_ids IS NOT NULL THEN f.options END`

func scanLive(rows pgx.Rows) ([]FieldValue, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (FieldValue, error) {
		var v FieldValue
		err := r.Scan(&v.TicketID, &v.FieldID, &v.OrgID, &v.Text, &v.Num, &v.Date, &v.Bool, &v.User, &v.OptionIDs,
			&v.Key, &v.Type, &v.Options)
		return v, err
	})
	return out, store.Translate(err)
}

// Replace writes one ticket's change of values in one statement: clear
// removes its values of those fields, put writes each value over the one it
// replaces. It answers the ticket's values as they were before (with their
// live fields), which the activity trail compares with the new ones.
func Replace(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, clear []uuid.UUID, put []Value) ([]FieldValue, error) {
	vals := NewValuesJSON(put)
	if vals == nil {
		vals = []byte("[]")
	}
	if clear == nil {
		clear = []uuid.UUID{}
	}
	// Every part of the statement sees the rows as they were before it, so
	// old reads the values the writes replace.
	rows, err := q.Query(ctx, `WITH old AS (
	        SELECT `+liveCols+` FROM ticket_custom_values v JOIN custom_fields f ON f.id = v.field_id AND f.deleted_at IS NULL
	        WHERE v.org_id = $1 AND v.ticket_id = $2),
	    cleared AS (DELETE FROM ticket_custom_values WHERE org_id = $1 AND ticket_id = $2 AND field_id = ANY($3::uuid[])),
	    put AS (
	        INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, text_value, num_value, date_value, bool_value, user_value, option_ids)
	        SELECT $2, x.field_id, $1, x.text_value, x.num_value::numeric, x.date_value::date, x.bool_value, x.user_value, x.option_ids
	        FROM jsonb_to_recordset($4::jsonb) AS x(field_id uuid, text_value text, num_value text, date_value text,
	            bool_value boolean, user_value uuid, option_ids uuid[])
	        ON CONFLICT (ticket_id, field_id) DO UPDATE SET text_value = EXCLUDED.text_value, num_value = EXCLUDED.num_value,
	            date_value = EXCLUDED.date_value, bool_value = EXCLUDED.bool_value, user_value = EXCLUDED.user_value,
	            option_ids = EXCLUDED.option_ids)
	    SELECT * FROM old`, orgID, ticketID, clear, string(vals))
	if err != nil {
		return nil, store.Translate(err)
	}
	was, err := scanLive(rows)
	if err != nil {
		return nil, err
	}
	// The statement's parts see the values as they were: the copy comes
	// after it.
	return was, RewriteCopies(ctx, q, []uuid.UUID{ticketID})
}

// OfTicketSQL reads the values of ticket $1 with their live fields (the
// columns of a FieldValue; rows for ScanLive), for a statement batched with
// the ticket's own read.
const OfTicketSQL = `SELECT ` + liveCols + `
	FROM ticket_custom_values v JOIN custom_fields f ON f.id = v.field_id AND f.deleted_at IS NULL
	WHERE v.ticket_id = $1`

// ScanLive scans the rows of OfTicketSQL.
func ScanLive(rows pgx.Rows) ([]FieldValue, error) { return scanLive(rows) }

// ReplaceCTE is Replace's write without its read, as the data-modifying
// CTEs (? placeholders and their arguments) of another statement on the
// ticket, so a PATCH writes the values in its ticket's UPDATE: clear removes
// the ticket's values of those fields, put writes each value over the one
// it replaces.
func ReplaceCTE(orgID, ticketID uuid.UUID, clear []uuid.UUID, put []Value) (string, []any) {
	vals := NewValuesJSON(put)
	if vals == nil {
		vals = []byte("[]")
	}
	if clear == nil {
		clear = []uuid.UUID{}
	}
	return `WITH cf_cleared AS (DELETE FROM ticket_custom_values WHERE org_id = ? AND ticket_id = ? AND field_id = ANY(?::uuid[])),
	    cf_put AS (
	        INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, text_value, num_value, date_value, bool_value, user_value, option_ids)
	        SELECT ?::uuid, x.field_id, ?::uuid, x.text_value, x.num_value::numeric, x.date_value::date, x.bool_value, x.user_value, x.option_ids
	        FROM jsonb_to_recordset(?::jsonb) AS x(field_id uuid, text_value text, num_value text, date_value text,
	            bool_value boolean, user_value uuid, option_ids uuid[])
	        ON CONFLICT (ticket_id, field_id) DO UPDATE SET text_value = EXCLUDED.text_value, num_value = EXCLUDED.num_value,
	            date_value = EXCLUDED.date_value, bool_value = EXCLUDED.bool_value, user_value = EXCLUDED.user_value,
	            option_ids = EXCLUDED.option_ids)`, []any{orgID, ticketID, clear, ticketID, orgID, string(vals)}
}

// Members returns which of userIDs are members of orgID.
func Members(ctx context.Context, q store.Querier, orgID uuid.UUID, userIDs []uuid.UUID) (map[uuid.UUID]bool, error) {
	type row struct {
		UserID uuid.UUID `db:"user_id"`
	}
	rows, err := store.Select[row](ctx, q, store.SQL.Select("user_id").From("memberships").
		Where(sq.Eq{"org_id": orgID}).Where("user_id = ANY(?)", userIDs))
	out := map[uuid.UUID]bool{}
	for _, r := range rows {
		out[r.UserID] = true
	}
	return out, err
}

// NewValuesJSON is vs as ticketdb.InsertNextWith takes them: a JSON array
// of rows without ticket and org.
func NewValuesJSON(vs []Value) []byte {
	if len(vs) == 0 {
		return nil
	}
	type row struct {
		FieldID   uuid.UUID   `json:"field_id"`
		Text      *string     `json:"text_value"`
		Num       *string     `json:"num_value"`
		Date      *string     `json:"date_value"`
		Bool      *bool       `json:"bool_value"`
		User      *uuid.UUID  `json:"user_value"`
		OptionIDs []uuid.UUID `json:"option_ids"`
	}
	rows := make([]row, len(vs))
	for i, v := range vs {
		rows[i] = row{v.FieldID, v.Text, v.Num, v.Date, v.Bool, v.User, v.OptionIDs}
	}
	b, _ := json.Marshal(rows) // plain values: never fails
	return b
}
