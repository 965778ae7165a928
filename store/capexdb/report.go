// Package capexdb holds the SQL of the capitalization report and of its
// stored exports.
package capexdb

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/internal/civil"
	"tracker/store"
)

// Line is the aggregate of one (project, user, activity type), or of one
// (project, activity type) or (project, user) when the grouping is coarser
// (ByUser, ByActivity say which), with the project's and user's columns.
type Line struct {
	ProjectID          uuid.UUID  `db:"project_id"`
	ProjectKey         string     `db:"project_key"`
	ProjectName        string     `db:"project_name"`
	CapitalizationType *string    `db:"capitalization_type"`
	DevelopmentPhase   *string    `db:"development_phase"`
	CostCenterID       *string    `db:"cost_center_id"`
	TeamID             *uuid.UUID `db:"team_id"`
	TeamName           *string    `db:"team_name"`
	BudgetCents        *int64     `db:"budget_cents"`
	BudgetPeriod       *string    `db:"budget_period"`
	ByUser             bool       `db:"by_user"`
	UserID             uuid.UUID  `db:"user_id"`      // uuid.Nil unless ByUser
	DisplayName        string     `db:"display_name"` // "" unless ByUser
	ByActivity         bool       `db:"by_activity"`
	ActivityType       string     `db:"activity_type"` // "" unless ByActivity
	Minutes            int64      `db:"minutes"`
	AmountCents        int64      `db:"amount_cents"`
	// RateMinutes is Σ minutes × rate, for the minutes-weighted mean rate.
	RateMinutes     int64 `db:"rate_minutes"`
	Entries         int64 `db:"entries"`
	UnpricedEntries int64 `db:"unpriced_entries"`
	// The project's facts that the capitalization frameworks read.
	FundingAuthorizedOn              *civil.Date `db:"funding_authorized_on"`
	CompletionProbable               *bool       `db:"completion_probable"`
	SignificantUncertaintyResolvedOn *civil.Date `db:"significant_uncertainty_resolved_on"`
	ResearchEndsOn                   *civil.Date `db:"research_ends_on"`
	IAS38CriteriaMetOn               *civil.Date `db:"ias38_criteria_met_on"`
	// Class is CapEx or OpEx when a policy classified the line apart from
	// its project's phase ("" otherwise).
	Class string `db:"-" json:",omitempty"`
}

// Grouping is the grain of the aggregate. The JSON report needs only
// (project, activity type) lines, plus (project, user) lines for its users;
// the CSV and the per-user report need (project, user, activity type).
type Grouping struct {
	Full      bool // (project, user, activity type)
	WithUsers bool // also (project, user), when not Full
	// OnlyUsers is (project, user) lines alone (the people report), when
	// neither of the others is set.
	OnlyUsers bool
}

func (g Grouping) sets() string { return g.setsBy(nil) }

// setsBy is sets, each also grouped by c's class when c is set.
func (g Grouping) setsBy(c *Classing) string {
	var sets []string
	switch {
	case g.Full:
		sets = []string{"te.project_id, te.user_id, te.activity_type"}
	case g.WithUsers:
		sets = []string{"te.project_id, te.activity_type", "te.project_id, te.user_id"}
	case g.OnlyUsers:
		sets = []string{"te.project_id, te.user_id"}
	default:
		sets = []string{"te.project_id, te.activity_type"}
	}
	for i := range sets {
		if c != nil {
			sets[i] += ", " + classExpr
		}
		sets[i] = "(" + sets[i] + ")"
	}
	return strings.Join(sets, ", ")
}

// ratesCTE turns an org's rates into [from, to) intervals so that each entry
// joins the one rate in effect on its date (the latest effective date not
// after it) by a hash join on the user, not a lookup per entry.
func ratesCTE(org string) string {
	return `rates AS (
		SELECT user_id, effective_date AS from_date, loaded_rate_cents,
		       lead(effective_date) OVER (PARTITION BY user_id ORDER BY effective_date) AS to_date
		FROM labor_rates WHERE org_id = ` + org + `)`
}

const rateJoin = `LEFT JOIN rates r ON r.user_id = te.user_id AND te.date >= r.from_date
	AND (r.to_date IS NULL OR te.date < r.to_date)`

// userColumns selects the user of a line; GROUPING may only name a column
// that some grouping set holds.
func (g Grouping) userColumns() string {
	if g.Full || g.WithUsers || g.OnlyUsers {
		return "te.user_id, GROUPING(te.user_id) = 0 AS by_user"
	}
	return "NULL::uuid AS user_id, false AS by_user"
}

// activityColumns selects the activity type of a line, likewise.
func (g Grouping) activityColumns() string {
	if g.OnlyUsers && !g.Full && !g.WithUsers {
		return "NULL::text AS activity_type, false AS by_activity"
	}
	return "te.activity_type, GROUPING(te.activity_type) = 0 AS by_activity"
}

// aggRow is one grouped row of the aggregate, before the project's and
// user's columns are attached.
type aggRow struct {
	ProjectID       uuid.UUID  `db:"project_id"`
	ByUser          bool       `db:"by_user"`
	UserID          *uuid.UUID `db:"user_id"`
	ByActivity      bool       `db:"by_activity"`
	ActivityType    *string    `db:"activity_type"`
	Minutes         int64      `db:"minutes"`
	AmountCents     int64      `db:"amount_cents"`
	RateMinutes     int64      `db:"rate_minutes"`
	Entries         int64      `db:"entries"`
	UnpricedEntries int64      `db:"unpriced_entries"`
	Class           *string    `db:"class"`
}

// AggregateDirect prices every matching approved entry at the rate in
// effect on its date and sums minutes and cents by g's grouping sets, in one
// query (the straight computation that Aggregate's rollup must equal);
// the projects' and users' columns are read apart (once per project and
// user, not once per line) and attached.
func AggregateDirect(ctx context.Context, q store.Querier, f Filter, g Grouping) ([]Line, error) {
	var a args
	org := a.add(f.OrgID)
	sql := `WITH ` + ratesCTE(org) + `
		SELECT te.project_id, ` + g.userColumns() + `, ` + g.activityColumns() + `,
		       sum(te.duration_minutes) AS minutes,
		       sum((te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0) * 2 + 60) / 120)::bigint AS amount_cents,
		       sum(te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0))::bigint AS rate_minutes,
		       count(*) AS entries,
		       count(*) FILTER (WHERE r.loaded_rate_cents IS NULL) AS unpriced_entries, ` + f.Class.column() + `
		FROM time_entries te ` + rateJoin + f.Class.join(&a) + `
		WHERE ` + f.where(&a, org) + `
		GROUP BY GROUPING SETS (` + g.setsBy(f.Class) + `)`
	return aggregateRows(ctx, q, f.OrgID, sql, a)
}

// aggregateRows runs an aggregate and attaches the project's and user's
// columns of its rows.
func aggregateRows(ctx context.Context, q store.Querier, orgID uuid.UUID, sql string, a args) ([]Line, error) {
	rows, err := scanAggRows(ctx, q, sql, a)
	if err != nil || len(rows) == 0 {
		return []Line{}, err
	}
	var projectIDs, userIDs []uuid.UUID
	seenP, seenU := map[uuid.UUID]bool{}, map[uuid.UUID]bool{}
	for _, r := range rows {
		if !seenP[r.ProjectID] {
			seenP[r.ProjectID] = true
			projectIDs = append(projectIDs, r.ProjectID)
		}
		if r.UserID != nil && !seenU[*r.UserID] {
			seenU[*r.UserID] = true
			userIDs = append(userIDs, *r.UserID)
		}
	}
	projects, err := projectsByID(ctx, q, orgID, projectIDs)
	if err != nil {
		return nil, err
	}
	names, err := userNames(ctx, q, userIDs)
	if err != nil {
		return nil, err
	}
	return attach(rows, projects, names), nil
}

// scanAggRows runs an aggregate and scans its rows by position (a month
// grouped by user is tens of thousands of rows; scanning by name costs more
// than the query).
func scanAggRows(ctx context.Context, q store.Querier, sql string, a args) ([]aggRow, error) {
	rows, err := q.Query(ctx, sql, a...)
	if err != nil {
		return nil, store.Translate(err)
	}
	defer rows.Close()
	var out []aggRow
	for rows.Next() {
		var r aggRow
		if err := rows.Scan(&r.ProjectID, &r.UserID, &r.ByUser, &r.ActivityType, &r.ByActivity, &r.Minutes, &r.AmountCents,
			&r.RateMinutes, &r.Entries, &r.UnpricedEntries, &r.Class); err != nil {
			return nil, store.Translate(err)
		}
		out = append(out, r)
	}
	return out, store.Translate(rows.Err())
}

// attach gives each grouped row its project's and user's columns.
func attach(rows []aggRow, projects map[uuid.UUID]Line, names map[uuid.UUID]string) []Line {
	out := make([]Line, 0, len(rows))
	for _, r := range rows {
		l := projects[r.ProjectID]
		l.ProjectID, l.ByUser, l.ByActivity = r.ProjectID, r.ByUser, r.ByActivity
		if r.UserID != nil {
			l.UserID, l.DisplayName = *r.UserID, names[*r.UserID]
		}
		if r.ActivityType != nil {
			l.ActivityType = *r.ActivityType
		}
		l.Minutes, l.AmountCents, l.RateMinutes, l.Entries, l.UnpricedEntries =
			r.Minutes, r.AmountCents, r.RateMinutes, r.Entries, r.UnpricedEntries
		if r.Class != nil {
			l.Class = *r.Class
		}
		out = append(out, l)
	}
	return out
}

// projectsByID reads the descriptive columns of the report's projects
// (soft-deleted ones too: their approved time stays on the books).
func projectsByID(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID) (map[uuid.UUID]Line, error) {
	rows, err := store.SelectRaw[Line](ctx, q, `SELECT p.id AS project_id, p.key AS project_key, p.name AS project_name,
		p.capitalization_type, p.development_phase, p.cost_center_id, p.team_id, t.name AS team_name,
		p.budget_cents, p.budget_period, false AS by_user, '00000000-0000-0000-0000-000000000000'::uuid AS user_id,
		'' AS display_name, false AS by_activity, '' AS activity_type, 0::bigint AS minutes, 0::bigint AS amount_cents,
		0::bigint AS rate_minutes, 0::bigint AS entries, 0::bigint AS unpriced_entries,
		p.funding_authorized_on, p.completion_probable, p.significant_uncertainty_resolved_on, p.research_ends_on,
		p.ias38_criteria_met_on
		FROM projects p LEFT JOIN teams t ON t.id = p.team_id WHERE p.org_id = $1 AND p.id = ANY($2)`, orgID, ids)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]Line, len(rows))
	for _, r := range rows {
		out[r.ProjectID] = r
	}
	return out, nil
}

func userNames(ctx context.Context, q store.Querier, ids []uuid.UUID) (map[uuid.UUID]string, error) {
	type row struct {
		ID          uuid.UUID `db:"id"`
		DisplayName string    `db:"display_name"`
	}
	out := make(map[uuid.UUID]string, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	rows, err := store.SelectRaw[row](ctx, q, `SELECT id, display_name FROM users WHERE id = ANY($1)`, ids)
	for _, r := range rows {
		out[r.ID] = r.DisplayName
	}
	return out, err
}

// SpentDirect is the approved amount of each project for its budget: within
// [from, to) for periodic budgets, and everything before to for Fixed ones
// (and budgets without a period). Every entry of the project counts,
// whatever the report's filters.
func SpentDirect(ctx context.Context, q store.Querier, orgID uuid.UUID, projects []uuid.UUID, from, to time.Time) (map[uuid.UUID]int64, error) {
	var a args
	org := a.add(orgID)
	sql := `WITH ` + ratesCTE(org) + `
	SELECT te.project_id,
	       sum((te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0) * 2 + 60) / 120)::bigint AS spent
	FROM time_entries te JOIN projects p ON p.id = te.project_id ` + rateJoin + `
	WHERE te.org_id = ` + org + ` AND te.status = 'Approved' AND te.project_id = ANY(` + a.add(projects) + `)
	  AND te.date < ` + a.add(to) + `
	  AND (te.date >= ` + a.add(from) + ` OR COALESCE(p.budget_period, 'Fixed') = 'Fixed')
	GROUP BY te.project_id`
	type row struct {
		ProjectID uuid.UUID `db:"project_id"`
		Spent     int64     `db:"spent"`
	}
	rows, err := store.SelectRaw[row](ctx, q, sql, a...)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(rows))
	for _, r := range rows {
		out[r.ProjectID] = r.Spent
	}
	return out, nil
}

// EntityTag is one tag of an entity.
type EntityTag struct {
	EntityID uuid.UUID `db:"entity_id"`
	Key      string    `db:"key"`
	Value    string    `db:"value"`
}

// TagsOf lists the tags of the given entities of one kind, by entity and key.
func TagsOf(ctx context.Context, q store.Querier, orgID uuid.UUID, kind string, ids []uuid.UUID) ([]EntityTag, error) {
	return store.SelectRaw[EntityTag](ctx, q, `SELECT entity_id, key, value FROM entity_tags
		WHERE org_id = $1 AND entity_type = $2 AND entity_id = ANY($3) ORDER BY entity_id, key`, orgID, kind, ids)
}
