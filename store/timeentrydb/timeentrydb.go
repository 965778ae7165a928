// Package timeentrydb holds the SQL of time entries.
package timeentrydb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/internal/civil"
	"tracker/store"
)

// Content are a time entry's own values: what a create sets and a patch
// changes, between the entry's ids and its state in the API's entry and in
// the export document's.
type Content struct {
	Date            civil.Date `db:"date" json:"date"`
	DurationMinutes int        `db:"duration_minutes" json:"duration_minutes"`
	Description     *string    `db:"description" json:"description"`
	ActivityType    string     `db:"activity_type" json:"activity_type"`
}

// Row is a time_entries row: the one definition of its columns, which the
// column list, the scans, Insert and the import's InsertMany are built from
// (store.FieldsOf, flattening Content).
type Row struct {
	ID        uuid.UUID `db:"id"`
	OrgID     uuid.UUID `db:"org_id"`
	UserID    uuid.UUID `db:"user_id"`
	TicketID  uuid.UUID `db:"ticket_id"`
	ProjectID uuid.UUID `db:"project_id"`
	Content
	Status     string     `db:"status"`
	ApprovedBy *uuid.UUID `db:"approved_by"`
	ApprovedAt *time.Time `db:"approved_at"`
	CreatedAt  time.Time  `db:"created_at"`
	UpdatedAt  time.Time  `db:"updated_at"`
	// SourceApprovedBy is the approver an imported document named, as
	// text (approved_by is the importing admin); nil otherwise.
	SourceApprovedBy *string `db:"source_approved_by"`
	// RejectionReason is why an Admin sent the entry back to Draft, kept
	// until it is submitted again.
	RejectionReason *string `db:"rejection_reason"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1.
	RowVersion int64 `db:"row_version"`
}

var fields = store.FieldsOf[Row]()

// ContentFields is Content's column list.
var ContentFields = store.FieldsOf[Content]()

// Columns is the column list of Row.
func Columns() []string { return fields.Names() }

// prefixed is Columns qualified by alias, for joins.
func prefixed(alias string) []string { return store.Prefixed(alias, Columns()) }

// visible keeps the entries whose ticket and project are both live.
const visible = "EXISTS (SELECT 1 FROM tickets t JOIN projects p ON p.id = t.project_id " +
	"WHERE t.id = te.ticket_id AND t.deleted_at IS NULL AND p.deleted_at IS NULL)"

// Insert creates an entry.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	return InsertMany(ctx, q, []Row{r})
}

// InsertMany creates entries (an import's batch, with their status and
// approval); the caller has checked their months open (domain/capex/period)
// in the same transaction.
func InsertMany(ctx context.Context, q store.Querier, rs []Row) error {
	return fields.InsertMany(ctx, q, "time_entries", rs)
}

// WithAccess is an entry with the caller's standing toward its project.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a visible entry and the caller's membership in one
// query; forUpdate locks the row for a state change.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, forUpdate bool) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(prefixed("te")) + `, ` +
		strings.Join(store.AccessColumns("te.org_id", "te.project_id", "$2"), ", ") + `
		FROM time_entries te WHERE te.id = $1 AND ` + visible
	if forUpdate {
		sql += " FOR UPDATE OF te"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Update writes the mutable fields and the status of an entry while it is at
// one of the versions v names (If-Match) and returns its new version; no
// such row is store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, r Row, v store.Versions) (int64, error) {
	set := map[string]any{}
	for i, v := range ContentFields.Values(&r.Content) {
		set[ContentFields.Names()[i]] = v
	}
	return store.Scalar[int64](ctx, q, store.SQL.Update("time_entries").SetMap(set).Set("status", r.Status).Set("approved_by", r.ApprovedBy).
		Set("approved_at", r.ApprovedAt).Set("updated_at", r.UpdatedAt).Set("rejection_reason", r.RejectionReason).
		Where(sq.Eq{"id": r.ID, "org_id": r.OrgID}).Where(v.Where("row_version")).Suffix("RETURNING row_version"))
}

// Delete removes an entry that is not Approved, at one of the versions v
// names (If-Match); an approved one is kept (store.ErrNotFound), so a
// financial record cannot go by a race.
func Delete(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) error {
	n, err := store.Exec(ctx, q, store.SQL.Delete("time_entries").
		Where(sq.Eq{"id": id, "org_id": orgID}).Where(sq.NotEq{"status": "Approved"}).Where(v.Where("row_version")))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// OrgScope is one org of a list that spans several, with the caller's
// project restriction there.
type OrgScope struct {
	OrgID uuid.UUID
	// Projects restricts to these projects (API key or Reporter), when
	// Restricted is set; an empty list then matches nothing.
	Restricted bool
	Projects   []uuid.UUID
}

func (o OrgScope) where() sq.Sqlizer {
	if o.Restricted {
		return sq.And{sq.Eq{"te.org_id": o.OrgID}, sq.Expr("te.project_id = ANY(?)", o.Projects)}
	}
	return sq.Eq{"te.org_id": o.OrgID}
}

// Filter narrows a list of entries; zero fields do not filter. The list
// covers OrgID (with Restricted/Projects), or, when Orgs is set, the union
// of those orgs.
type Filter struct {
	OrgID     uuid.UUID
	Orgs      []OrgScope
	TicketID  uuid.UUID
	UserID    uuid.UUID
	ProjectID uuid.UUID
	Date      *time.Time
	Status    string
	// Projects restricts to these projects (API key or Reporter), when
	// Restricted is set; an empty list then matches nothing.
	Restricted bool
	Projects   []uuid.UUID
}

func (f Filter) apply(b sq.SelectBuilder) sq.SelectBuilder {
	if f.Orgs != nil {
		if len(f.Orgs) == 0 {
			return b.Where("false")
		}
		or := make(sq.Or, len(f.Orgs))
		for i, o := range f.Orgs {
			or[i] = o.where()
		}
		b = b.Where(or)
	} else {
		b = b.Where(OrgScope{OrgID: f.OrgID, Restricted: f.Restricted, Projects: f.Projects}.where())
	}
	b = b.Where(visible)
	if f.TicketID != uuid.Nil {
		b = b.Where(sq.Eq{"te.ticket_id": f.TicketID})
	}
	if f.UserID != uuid.Nil {
		b = b.Where(sq.Eq{"te.user_id": f.UserID})
	}
	if f.ProjectID != uuid.Nil {
		b = b.Where(sq.Eq{"te.project_id": f.ProjectID})
	}
	if f.Date != nil {
		b = b.Where(sq.Eq{"te.date": *f.Date})
	}
	if f.Status != "" {
		b = b.Where(sq.Eq{"te.status": f.Status})
	}
	return b
}

// List pages the entries matching f by id.
func List(ctx context.Context, q store.Querier, f Filter, p store.Page) (store.Paged[Row], error) {
	b := f.apply(store.SQL.Select(prefixed("te")...).From("time_entries te"))
	return store.SelectPage(ctx, q, b, "te.id", p, func(r Row) uuid.UUID { return r.ID })
}

// All lists every entry matching f by id (the unpaginated submitted queue).
func All(ctx context.Context, q store.Querier, f Filter) ([]Row, error) {
	return store.Select[Row](ctx, q, f.apply(store.SQL.Select(prefixed("te")...).From("time_entries te")).OrderBy("te.id"))
}

// AssignedProjects lists the live projects of org the user is a member of
// (a Reporter's reach).
func AssignedProjects(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) ([]uuid.UUID, error) {
	rows, err := q.Query(ctx, `SELECT pm.project_id FROM project_members pm
		JOIN projects p ON p.id = pm.project_id AND p.deleted_at IS NULL
		WHERE p.org_id = $1 AND pm.user_id = $2`, orgID, userID)
	if err != nil {
		return nil, store.Translate(err)
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[uuid.UUID])
	return ids, store.Translate(err)
}

// TicketRef is where a live ticket lives.
type TicketRef struct {
	OrgID     uuid.UUID `db:"org_id"`
	ProjectID uuid.UUID `db:"project_id"`
}

// Ticket reads the org and project of a live ticket of a live project.
func Ticket(ctx context.Context, q store.Querier, id uuid.UUID) (TicketRef, error) {
	return store.GetRaw[TicketRef](ctx, q, `SELECT t.org_id, t.project_id FROM tickets t
		JOIN projects p ON p.id = t.project_id
		WHERE t.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`, id)
}

// SharedOrgs lists the orgs where userID holds a live membership, with its
// role; when withUser is set, only those where withUser is a member too.
func SharedOrgs(ctx context.Context, q store.Querier, userID, withUser uuid.UUID) ([]OrgRole, error) {
	sql := `SELECT m.org_id, m.role FROM memberships m WHERE m.user_id = $1 AND m.suspended_at IS NULL`
	args := []any{userID}
	if withUser != uuid.Nil && withUser != userID {
		sql += ` AND EXISTS (SELECT 1 FROM memberships o WHERE o.org_id = m.org_id AND o.user_id = $2)`
		args = append(args, withUser)
	}
	return store.SelectRaw[OrgRole](ctx, q, sql+` ORDER BY m.org_id`, args...)
}

// OrgRole is one membership of SharedOrgs.
type OrgRole struct {
	OrgID uuid.UUID `db:"org_id"`
	Role  string    `db:"role"`
}
