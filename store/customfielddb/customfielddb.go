// Package customfielddb holds the SQL of custom field definitions.
package customfielddb

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Option is one choice of a select field, as the options column keeps it.
type Option struct {
	ID       uuid.UUID `json:"id"`
	Name     string    `json:"name"`
	Color    *string   `json:"color"`
	Archived bool      `json:"archived"`
}

// Row is a custom_fields row, and (with its json names) the API's field
// definition (customfield.Field embeds it).
type Row struct {
	ID         uuid.UUID   `db:"id" json:"id"`
	OrgID      uuid.UUID   `db:"org_id" json:"org_id"`
	Key        string      `db:"key" json:"key"`
	Name       string      `db:"name" json:"name"`
	Type       string      `db:"type" json:"type"`
	Options    []Option    `db:"options" json:"options"`
	ProjectIDs []uuid.UUID `db:"project_ids" json:"project_ids"`
	Required   bool        `db:"required" json:"required"`
	CreatedAt  time.Time   `db:"created_at" json:"created_at"`
	UpdatedAt  time.Time   `db:"updated_at" json:"updated_at"`
}

var cols = []string{"id", "org_id", "key", "name", "type", "options", "project_ids", "required", "created_at", "updated_at"}

// KeyConstraint is the unique index of a field's key in its org.
const KeyConstraint = "custom_fields_org_key_key"

func optionsJSON(o []Option) string {
	if o == nil {
		o = []Option{}
	}
	b, _ := json.Marshal(o) // plain structs: never fails
	return string(b)
}

func ids(v []uuid.UUID) []uuid.UUID {
	if v == nil {
		return []uuid.UUID{}
	}
	return v
}

// Insert writes a definition; a key taken in the org is a store.ErrConflict
// on KeyConstraint.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("custom_fields").Columns(cols...).
		Values(r.ID, r.OrgID, r.Key, r.Name, r.Type, optionsJSON(r.Options), ids(r.ProjectIDs), r.Required, r.CreatedAt, r.UpdatedAt))
	return err
}

// Get reads a definition by id.
func Get(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(cols...).From("custom_fields").Where(sq.Eq{"id": id, "deleted_at": nil}))
}

// GetForUpdate reads a definition by id under its row lock.
func GetForUpdate(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(cols...).From("custom_fields").Where(sq.Eq{"id": id, "deleted_at": nil}).Suffix("FOR UPDATE"))
}

// Page lists the definitions of orgID by id; only (when not nil) keeps
// those enabled for one of its projects (every project's, or listing one).
func Page(ctx context.Context, q store.Querier, orgID uuid.UUID, only []uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(cols...).From("custom_fields").Where(sq.Eq{"org_id": orgID, "deleted_at": nil})
	if only != nil {
		b = b.Where("(cardinality(project_ids) = 0 OR project_ids && ?)", only)
	}
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// All reads every definition of orgID (an org has few), by key.
func All(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Row, error) {
	return store.Select[Row](ctx, q, store.SQL.Select(cols...).From("custom_fields").Where(sq.Eq{"org_id": orgID, "deleted_at": nil}).OrderBy("key"))
}

// OfTicketOrgSQL reads what All reads, for the org of the ticket $1 (for a
// statement batched with the ticket's own read).
var OfTicketOrgSQL = `SELECT ` + strings.Join(cols, ", ") + ` FROM custom_fields
	WHERE org_id = (SELECT org_id FROM tickets WHERE id = $1) AND deleted_at IS NULL ORDER BY key`

// Update writes a definition's changeable fields.
func Update(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("custom_fields").
		SetMap(map[string]any{"name": r.Name, "options": optionsJSON(r.Options), "project_ids": ids(r.ProjectIDs),
			"required": r.Required, "updated_at": r.UpdatedAt}).
		Where(sq.Eq{"id": r.ID, "org_id": r.OrgID}))
	return err
}

// Delete removes a definition and (foreign key) its values.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID) error {
	// Marked first, so the holders' rendered copies are rendered without it
	// while the values still say which tickets hold one.
	if _, err := store.Exec(ctx, q, store.SQL.Update("custom_fields").Set("deleted_at", sq.Expr("now()")).
		Where(sq.Eq{"id": id, "org_id": orgID, "deleted_at": nil})); err != nil {
		return err
	}
	if _, err := q.Exec(ctx, `UPDATE tickets SET custom_fields = ticket_custom_fields_json(id)
	    WHERE id IN (SELECT ticket_id FROM ticket_custom_values WHERE field_id = $1)`, id); err != nil {
		return store.Translate(err)
	}
	_, err := store.Exec(ctx, q, store.SQL.Delete("custom_fields").Where(sq.Eq{"id": id, "org_id": orgID}))
	return err
}

// MarkDeleted hides a definition (every read here skips it, its key is free
// again) until the cascade purge removes its values and then the row. The
// holders' rendered copies keep its value until the purge's batch that
// removes it.
func MarkDeleted(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("custom_fields").Set("deleted_at", at).
		Where(sq.Eq{"id": id, "org_id": orgID, "deleted_at": nil}))
	return err
}

// ValuesOver tells whether more than n tickets hold a value of field id.
func ValuesOver(ctx context.Context, q store.Querier, id uuid.UUID, n int) (bool, error) {
	var over bool
	err := q.QueryRow(ctx, `SELECT count(*) > $2 FROM (SELECT 1 FROM ticket_custom_values WHERE field_id = $1 LIMIT $2 + 1) v`, id, n).Scan(&over)
	return over, store.Translate(err)
}

// LiveProjects returns which of ids are live projects of orgID.
func LiveProjects(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error) {
	type idRow struct {
		ID uuid.UUID `db:"id"`
	}
	rows, err := store.Select[idRow](ctx, q, store.SQL.Select("id").From("projects").
		Where(sq.Eq{"org_id": orgID, "deleted_at": nil}).Where("id = ANY(?)", ids))
	out := make([]uuid.UUID, 0, len(rows))
	for _, r := range rows {
		out = append(out, r.ID)
	}
	return out, err
}
