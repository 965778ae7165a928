// Package projectdb holds the SQL of projects and project members. Every
// query names the project's org or a live project of it; soft-deleted
// projects (deleted_at set) are invisible to every read here.
package projectdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/store"
)

// Content are a project's own values that the API's project
// (domain/project.Project), the export document's project (export.Project,
// JSON and SQLite) and the import carry unchanged, so each embeds Content
// instead of naming its fields. Its `db` tags are the columns, its `json`
// tags the API's and the document's keys; it sits where these keys always
// were in both. A new plain field of projects is a field here (at the end):
// Row, the API (its JSON, the create and PATCH bodies and inputs, the
// activity trail's changes), the export and the import follow, and domain/exchange/export's
// TestTicketFieldsAgree holds them to the OpenAPI schema and
// docs/export-schema.json. The other columns keep their own places, which
// differ between the API and the document.
type Content struct {
	CapitalizationType *string `db:"capitalization_type" json:"capitalization_type"`
	DevelopmentPhase   *string `db:"development_phase" json:"development_phase"`
	CostCenterID       *string `db:"cost_center_id" json:"cost_center_id"`
	AmortizationMonths *int64  `db:"amortization_months" json:"amortization_months"`
	// EstimateUnit is what its tickets' estimates count: points or hours.
	EstimateUnit string `db:"estimate_unit" json:"estimate_unit"`
	// The facts the capitalization frameworks decide by (see
	// domain/capex.Policy): ASU 2025-06 reads the first three, IAS 38 the
	// last two.
	FundingAuthorizedOn              *civil.Date `db:"funding_authorized_on" json:"funding_authorized_on"`
	CompletionProbable               *bool       `db:"completion_probable" json:"completion_probable"`
	SignificantUncertaintyResolvedOn *civil.Date `db:"significant_uncertainty_resolved_on" json:"significant_uncertainty_resolved_on"`
	ResearchEndsOn                   *civil.Date `db:"research_ends_on" json:"research_ends_on"`
	IAS38CriteriaMetOn               *civil.Date `db:"ias38_criteria_met_on" json:"ias38_criteria_met_on"`
}

// ContentFields is Content's column list, for the export and the import.
var ContentFields = store.FieldsOf[Content]()

// Row is a projects row (without deleted_at: reads only see live rows).
// Its columns, scan and insert are built from its `db` tags.
type Row struct {
	ID            uuid.UUID  `db:"id"`
	OrgID         uuid.UUID  `db:"org_id"`
	TeamID        *uuid.UUID `db:"team_id"`
	WorkflowID    *uuid.UUID `db:"workflow_id"`
	Key           string     `db:"key"`
	Name          string     `db:"name"`
	Description   *string    `db:"description"`
	TicketCounter int64      `db:"ticket_counter"`
	Content
	PlacedInService *time.Time `db:"placed_in_service"`
	BudgetCents     *int64     `db:"budget_cents"`
	BudgetPeriod    *string    `db:"budget_period"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

var (
	fields  = store.FieldsOf[Row]()
	columns = fields.Names()
	// insertColumns are the columns Insert writes (row_version, Row's
	// last field, takes its default).
	insertColumns = columns[:len(columns)-1]
)

// Columns is the column list of Row, each prefixed with alias when given.
func Columns(alias string) []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		if alias != "" {
			c = alias + "." + c
		}
		out[i] = c
	}
	return out
}

// WithAccess is a project and the caller's standing toward it, read in one
// query.
type WithAccess struct {
	Row
	store.AccessRow
}

// Insert creates a project; a live project with the same key (any case) in
// the org is store.ErrConflict, an unknown team or workflow store.ErrInvalidRef.
func Insert(ctx context.Context, q store.Querier, r Row) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("projects").Columns(insertColumns...).
		Values(fields.Values(&r)[:len(insertColumns)]...))
	return err
}

func accessSelect(where string, lock bool) string {
	sql := `SELECT ` + strings.Join(Columns("p"), ", ") + `, ` +
		strings.Join(store.AccessColumns("p.org_id", "p.id", "$1"), ", ") +
		` FROM projects p WHERE p.deleted_at IS NULL AND ` + where
	if lock {
		// Serializes with ticket inserts (which bump ticket_counter) and
		// other deletes of the same project.
		sql += ` FOR UPDATE OF p`
	}
	return sql
}

// GetWithAccess reads a live project with userID's access row; lock takes a
// row lock for a following write in the same transaction.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock bool) (WithAccess, error) {
	return store.GetRaw[WithAccess](ctx, q, accessSelect("p.id = $2", lock), userID, id)
}

// ByKeyWithAccess reads the live project of org whose key matches key in any
// case, with userID's access row.
func ByKeyWithAccess(ctx context.Context, q store.Querier, orgID uuid.UUID, key string, userID uuid.UUID) (WithAccess, error) {
	return store.GetRaw[WithAccess](ctx, q, accessSelect("p.org_id = $2 AND upper(p.key) = upper($3)", false), userID, orgID, key)
}

// Filter narrows a project listing.
type Filter struct {
	OrgID uuid.UUID
	// AssignedTo keeps only the projects userID is a member of (Reporters).
	AssignedTo *uuid.UUID
	// OnlyIDs keeps only these projects (API keys restricted to projects);
	// nil means no restriction.
	OnlyIDs []uuid.UUID
}

// List pages the live projects of an org by id.
func List(ctx context.Context, q store.Querier, f Filter, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns("p")...).From("projects p").
		Where(sq.Eq{"p.org_id": f.OrgID}).Where("p.deleted_at IS NULL")
	if f.AssignedTo != nil {
		b = b.Where("EXISTS (SELECT 1 FROM project_members pm WHERE pm.project_id = p.id AND pm.user_id = ?)", *f.AssignedTo)
	}
	if f.OnlyIDs != nil {
		b = b.Where(sq.Eq{"p.id": f.OnlyIDs})
	}
	return store.SelectPage(ctx, q, b, "p.id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update sets the given columns (and updated_at) on a live project of org at
// one of the versions v names (If-Match) and returns the row after the
// change; no such row is store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, set map[string]any, at time.Time) (Row, error) {
	set["updated_at"] = at
	return store.Get[Row](ctx, q, store.SQL.Update("projects").SetMap(set).
		Where(sq.Eq{"id": id, "org_id": orgID}).Where("deleted_at IS NULL").Where(v.Where("row_version")).
		Suffix("RETURNING "+store.Cols(Columns(""))))
}

// TeamInOrg reports whether teamID is a team of org.
func TeamInOrg(ctx context.Context, q store.Querier, orgID, teamID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr("EXISTS (SELECT 1 FROM teams WHERE id = ? AND org_id = ?)", teamID, orgID)))
}

// WorkflowInOrg reports whether workflowID is a workflow of org.
func WorkflowInOrg(ctx context.Context, q store.Querier, orgID, workflowID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr("EXISTS (SELECT 1 FROM workflows WHERE id = ? AND org_id = ?)", workflowID, orgID)))
}
