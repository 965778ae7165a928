package capexdb

import (
	"context"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/store"
)

// The report reads capex_rollup (migration 007): approved minutes and
// priced cents per (org, month, project, user, activity type), kept by
// triggers in the writing transaction. Its cost grows with the month's
// groups (at most projects × users × 8), not with its entries.

// monthAligned reports whether t is the first instant of a month (UTC).
func monthAligned(t time.Time) bool {
	t = t.UTC()
	return t.Day() == 1 && t.Hour() == 0 && t.Minute() == 0 && t.Second() == 0 && t.Nanosecond() == 0
}

// rollupColumns are the summed columns of a source row, named as the
// aggregate over it reads them.
const rollupColumns = `te.project_id, te.user_id, te.activity_type, te.minutes, te.amount_cents, te.rate_minutes,
	te.entries, te.unpriced_entries`

// Aggregate sums the approved entries that f selects by g's grouping sets,
// with the same numbers as AggregateDirect. Whole months are read from the
// rollup; a tag filter takes the rollup groups whose project or user carries
// each tag, plus the few entries that match only through a tagged ticket or
// entry, read one by one. Other ranges fall back to AggregateDirect.
func Aggregate(ctx context.Context, q store.Querier, f Filter, g Grouping) ([]Line, error) {
	if monthAligned(f.From) && monthAligned(f.To) && f.OnlyTickets && f.Class == nil &&
		len(f.Tags) == 0 {
		return aggregateTickets(ctx, q, f, g)
	}
	if !monthAligned(f.From) || !monthAligned(f.To) || f.byTicket() {
		return AggregateDirect(ctx, q, f, g)
	}
	var a args
	org := a.add(f.OrgID)
	w := append([]string{"te.org_id = " + org, "te.month >= " + a.add(f.From), "te.month < " + a.add(f.To)}, f.narrow(&a, org)...)
	if g.Full && len(f.Tags) == 0 && f.To.Equal(f.From.AddDate(0, 1, 0)) {
		// One month at the rollup's own grain: each rollup row is already
		// one (project, user, activity type) line (its key; rows whose
		// entries all left are deleted), so they are read as they are.
		// Grouping 40k rows by their own key cost the per-user report and
		// the CSV most of their database time at 1M entries a month.
		return aggregateRows(ctx, q, f.OrgID, `SELECT te.project_id, te.user_id, true AS by_user, te.activity_type,
			true AS by_activity, te.minutes, te.amount_cents, te.rate_minutes, te.entries, te.unpriced_entries,
			NULL::text AS class
			FROM capex_rollup te WHERE `+strings.Join(w, " AND "), a)
	}
	var grouped []string // per tag: the project or the user carries it
	for _, t := range f.Tags {
		grouped = append(grouped, tagCond(&a, org, t, "project", "user", "team"))
	}
	src := `SELECT ` + rollupColumns + ` FROM capex_rollup te WHERE ` + strings.Join(append(w, grouped...), " AND ")
	with := ""
	if len(f.Tags) > 0 {
		// An entry outside the grouped part that matches every tag matches
		// at least one of them only through its ticket or itself: the
		// candidates are read from the tagged tickets' and entries' ids
		// (the month's part of each tagged ticket by index), never by
		// scanning the month.
		var kv []string
		for _, t := range f.Tags {
			kv = append(kv, "(key = "+a.add(t.Key)+" AND value = "+a.add(t.Value)+")")
		}
		tagged := func(kind string) string {
			return "SELECT entity_id FROM entity_tags WHERE org_id = " + org + " AND entity_type = '" + kind +
				"' AND (" + strings.Join(kv, " OR ") + ")"
		}
		from, to := a.add(f.From), a.add(f.To)
		cols := "x.id, x.org_id, x.project_id, x.user_id, x.ticket_id, x.activity_type, x.duration_minutes, x.date"
		// The first part is an index-only scan of
		// time_entries_ticket_report_idx (migration 028); the second adds
		// the tagged entries whose ticket is not tagged (so no entry is
		// read twice and nothing needs deduplicating).
		cand := `(SELECT ` + cols + `, 'Approved'::text AS status FROM time_entries x
			WHERE x.ticket_id IN (` + tagged("ticket") + `)
			  AND x.status = 'Approved' AND x.date >= ` + from + ` AND x.date < ` + to + `
			UNION ALL
			SELECT ` + cols + `, x.status FROM time_entries x WHERE x.id IN (` + tagged("time_entry") + `)
			  AND x.ticket_id NOT IN (` + tagged("ticket") + `))`
		with = `WITH ` + ratesCTE(org) + `, `
		src += `
		UNION ALL
		SELECT te.project_id, te.user_id, te.activity_type, te.duration_minutes::bigint,
		       (te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0) * 2 + 60) / 120,
		       te.duration_minutes::bigint * COALESCE(r.loaded_rate_cents, 0), 1::bigint,
		       (r.loaded_rate_cents IS NULL)::int::bigint
		FROM ` + cand + ` te ` + rateJoin + `
		WHERE ` + f.where(&a, org) + `
		  AND NOT (` + strings.Join(grouped, " AND ") + `)`
	} else {
		with = `WITH `
	}
	sql := with + `src (project_id, user_id, activity_type, minutes, amount_cents, rate_minutes, entries, unpriced_entries) AS (
		` + src + `)
		SELECT te.project_id, ` + g.userColumns() + `, ` + g.activityColumns() + `,
		       sum(te.minutes)::bigint AS minutes, sum(te.amount_cents)::bigint AS amount_cents,
		       sum(te.rate_minutes)::bigint AS rate_minutes, sum(te.entries)::bigint AS entries,
		       sum(te.unpriced_entries)::bigint AS unpriced_entries, NULL::text AS class
		FROM src te
		GROUP BY GROUPING SETS (` + g.sets() + `)`
	return aggregateRows(ctx, q, f.OrgID, sql, a)
}

// aggregateTickets is Aggregate of the entries of f.Tickets, read from
// capex_ticket_rollup (migration 053): in proportion to those tickets'
// (project, user, activity type) groups in the months, not to their
// entries.
func aggregateTickets(ctx context.Context, q store.Querier, f Filter, g Grouping) ([]Line, error) {
	var a args
	org := a.add(f.OrgID)
	// A join, not ticket_id = ANY($n): a prepared statement's generic plan
	// tests an array parameter element by element on every row.
	tickets := `JOIN (SELECT DISTINCT u.id FROM unnest(` + a.add(f.Tickets) + `::uuid[]) AS u (id)) x ON x.id = te.ticket_id`
	// One month is an equality, so each ticket is one range of the key
	// (org, month, ticket, …); a range of months scans them.
	var months string
	if f.To.Equal(f.From.AddDate(0, 1, 0)) {
		months = "te.month = " + a.add(f.From)
	} else {
		months = "te.month >= " + a.add(f.From) + " AND te.month < " + a.add(f.To)
	}
	w := append([]string{"te.org_id = " + org, months}, f.narrow(&a, org)...)
	return aggregateRows(ctx, q, f.OrgID, `SELECT te.project_id, `+g.userColumns()+`, `+g.activityColumns()+`,
		       sum(te.minutes)::bigint AS minutes, sum(te.amount_cents)::bigint AS amount_cents,
		       sum(te.rate_minutes)::bigint AS rate_minutes, sum(te.entries)::bigint AS entries,
		       sum(te.unpriced_entries)::bigint AS unpriced_entries, NULL::text AS class
		FROM capex_ticket_rollup te `+tickets+` WHERE `+strings.Join(w, " AND ")+`
		GROUP BY GROUPING SETS (`+g.sets()+`)`, a)
}

// Spent is SpentDirect read from the rollup (whole-month bounds).
func Spent(ctx context.Context, q store.Querier, orgID uuid.UUID, projects []uuid.UUID, from, to time.Time) (map[uuid.UUID]int64, error) {
	if !monthAligned(from) || !monthAligned(to) {
		return SpentDirect(ctx, q, orgID, projects, from, to)
	}
	type row struct {
		ProjectID uuid.UUID `db:"project_id"`
		Spent     int64     `db:"spent"`
	}
	rows, err := store.SelectRaw[row](ctx, q, `SELECT te.project_id, sum(te.amount_cents)::bigint AS spent
		FROM capex_rollup te JOIN projects p ON p.id = te.project_id
		WHERE te.org_id = $1 AND te.project_id = ANY($2) AND te.month < $4
		  AND (te.month >= $3 OR COALESCE(p.budget_period, 'Fixed') = 'Fixed')
		GROUP BY te.project_id`, orgID, projects, from, to)
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]int64, len(rows))
	for _, r := range rows {
		out[r.ProjectID] = r.Spent
	}
	return out, nil
}
