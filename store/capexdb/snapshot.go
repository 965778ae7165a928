package capexdb

import (
	"context"
	"slices"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// Frozen holds the descriptive columns of a closed period's projects and
// users as they were at close, so that a later project change (phase,
// capitalization type, cost center, team, budget) cannot rewrite it.
type Frozen struct {
	Projects map[uuid.UUID]Line   `json:"projects"`
	Names    map[uuid.UUID]string `json:"names"`
}

// SnapshotEntries copies the approved entries of orgID dated in [from, to),
// each priced at the rate in effect on its date, into the close's rows.
func SnapshotEntries(ctx context.Context, q store.Querier, closeID, orgID uuid.UUID, from, to time.Time) (int64, error) {
	var a args
	org := a.add(orgID)
	cid, f, t := a.add(closeID), a.add(from), a.add(to)
	tag, err := q.Exec(ctx, `WITH `+ratesCTE(org)+`
		INSERT INTO period_close_entries (close_id, org_id, id, user_id, ticket_id, project_id, date, duration_minutes,
			activity_type, rate_cents, amount_cents)
		SELECT `+cid+`, te.org_id, te.id, te.user_id, te.ticket_id, te.project_id, te.date, te.duration_minutes,
		       te.activity_type, r.loaded_rate_cents,
		       (te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0) * 2 + 60) / 120
		FROM time_entries te `+rateJoin+`
		WHERE te.org_id = `+org+` AND te.status = 'Approved' AND te.date >= `+f+` AND te.date < `+t, a...)
	if err != nil {
		return 0, store.Translate(err)
	}
	// The close reads these rows back at once (its CSV, under a policy each
	// entry classed against the month's decisions), and so does every
	// report of the month after: without statistics on rows this
	// transaction wrote, the planner takes a month of entries for a few and
	// joins them to the decisions row by row (seconds at 1M entries).
	if _, err := q.Exec(ctx, `ANALYZE period_close_entries`); err != nil {
		return 0, store.Translate(err)
	}
	return tag.RowsAffected(), nil
}

// FreezeColumns reads the live columns of the projects and users that the
// close's entries name.
func FreezeColumns(ctx context.Context, q store.Querier, closeID, orgID uuid.UUID) (Frozen, error) {
	type row struct {
		Projects []uuid.UUID `db:"projects"`
		Users    []uuid.UUID `db:"users"`
	}
	r, err := store.GetRaw[row](ctx, q, `SELECT COALESCE(array_agg(DISTINCT project_id), '{}') AS projects,
		COALESCE(array_agg(DISTINCT user_id), '{}') AS users FROM period_close_entries WHERE close_id = $1`, closeID)
	if err != nil {
		return Frozen{}, err
	}
	fr := Frozen{}
	if fr.Projects, err = projectsByID(ctx, q, orgID, r.Projects); err != nil {
		return fr, err
	}
	fr.Names, err = userNames(ctx, q, r.Users)
	return fr, err
}

// AggregateClosed is Aggregate over a close's priced entries, with the
// columns of fr. The team and cost-center filters match fr's columns.
func AggregateClosed(ctx context.Context, q store.Querier, closeID uuid.UUID, f Filter, g Grouping, fr Frozen) ([]Line, error) {
	f = closedFilter(f, fr)
	var a args
	org := a.add(f.OrgID)
	sql := `SELECT te.project_id, ` + g.userColumns() + `, ` + g.activityColumns() + `,
		       sum(te.duration_minutes) AS minutes,
		       sum(te.amount_cents)::bigint AS amount_cents,
		       sum(te.duration_minutes::bigint * COALESCE(te.rate_cents, 0))::bigint AS rate_minutes,
		       count(*) AS entries,
		       count(*) FILTER (WHERE te.rate_cents IS NULL) AS unpriced_entries, ` + f.Class.column() + `
		FROM period_close_entries te` + f.Class.join(&a) + `
		WHERE te.close_id = ` + a.add(closeID) + ` AND ` + f.where(&a, org) + `
		GROUP BY GROUPING SETS (` + g.setsBy(f.Class) + `)`
	rows, err := store.SelectRaw[aggRow](ctx, q, sql, a...)
	if err != nil || len(rows) == 0 {
		return []Line{}, err
	}
	return attach(rows, fr.Projects, fr.Names), nil
}

// closedFilter answers the team and cost-center filters from fr's columns
// (as they were at close): they become the list of matching projects.
func closedFilter(f Filter, fr Frozen) Filter {
	if f.TeamID == uuid.Nil && f.CostCenterID == "" {
		return f
	}
	var keep []uuid.UUID
	for id, p := range fr.Projects {
		if f.TeamID != uuid.Nil && (p.TeamID == nil || *p.TeamID != f.TeamID) {
			continue
		}
		if f.CostCenterID != "" && (p.CostCenterID == nil || *p.CostCenterID != f.CostCenterID) {
			continue
		}
		if !f.Restricted || slices.Contains(f.Projects, id) {
			keep = append(keep, id)
		}
	}
	if keep == nil {
		keep = []uuid.UUID{}
	}
	f.TeamID, f.CostCenterID, f.Restricted, f.Projects = uuid.Nil, "", true, keep
	return f
}
