package searchdb

import (
	"fmt"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"

	"tracker/internal/searchquery"
	"tracker/store/ticketdb"
)

// PriorityRank is the SQL rank of t.priority (None 0 … Critical 4); the
// priority sort and its index use this exact expression.
const PriorityRank = ticketdb.PriorityRank

func term(t searchquery.Term, env Env) (sq.Sqlizer, error) {
	if t.Custom != "" {
		return customTerm(t, env)
	}
	switch t.Field {
	case searchquery.FieldStatus:
		return sq.Expr("lower(t.status) = lower(?)", t.Value), nil
	case searchquery.FieldCategory:
		// The statuses of that category in each project's governing
		// workflow: its own, else the org's Default, else the built-in one.
		return sq.Expr(`(t.project_id, t.status) IN (
			SELECT cp.id, cs.value->>'name' FROM `+projectStatuses+`
			WHERE cp.org_id = ? AND cs.value->>'category' = ?)`, string(env.DefaultStatuses), env.OrgID, t.Value), nil
	case searchquery.FieldPriority:
		return priority(t), nil
	case searchquery.FieldAssignee, searchquery.FieldReporter:
		col := "t.assignee_id"
		if t.Field == searchquery.FieldReporter {
			col = "t.reporter_id"
		}
		switch {
		case t.Me:
			return sq.Expr(col+" = ?", env.UserID), nil
		case t.None:
			return sq.Expr(col + " IS NULL"), nil
		}
		return sq.Expr(col+" = (SELECT u.id FROM users u WHERE lower(u.email) = lower(?))", t.Value), nil
	case searchquery.FieldLabel:
		return anyID(env.Names.Labels[strings.ToLower(t.Value)], labelExists), nil
	case searchquery.FieldSprint:
		switch {
		case t.None:
			return sq.Expr("t.sprint_id IS NULL"), nil
		case t.Current:
			return anyID(env.Names.Current, "t.sprint_id %s"), nil
		}
		return anyID(env.Names.Sprints[strings.ToLower(t.Value)], "t.sprint_id %s"), nil
	case searchquery.FieldExternal:
		return sq.Expr("upper(t.external_key) = upper(?)", t.Value), nil
	case searchquery.FieldProject:
		return sq.Expr(`t.project_id IN (SELECT kp.id FROM projects kp
			WHERE kp.org_id = ? AND upper(kp.key) = upper(?) AND kp.deleted_at IS NULL)`, env.OrgID, t.Value), nil
	case searchquery.FieldParent:
		// Every descendant: a sub-ticket belongs to its epic however deep
		// (UNION, not UNION ALL, so a cycle ends).
		return sq.Expr(`t.id IN (WITH RECURSIVE under(id) AS (
				SELECT c.id FROM tickets c
				JOIN tickets pt ON pt.id = c.parent_id
				JOIN projects pp ON pp.id = pt.project_id
				WHERE pp.org_id = ? AND upper(pp.key) = ? AND pt.ticket_number = ? AND pt.deleted_at IS NULL
				  AND c.deleted_at IS NULL
				UNION
				SELECT c.id FROM tickets c JOIN under u ON c.parent_id = u.id WHERE c.deleted_at IS NULL)
			SELECT id FROM under)`, env.OrgID, t.Value, t.Number), nil
	case searchquery.FieldCreated:
		return when("t.created_at", t, env.Now), nil
	case searchquery.FieldUpdated:
		return when("t.updated_at", t, env.Now), nil
	case searchquery.FieldDue:
		return dueTerm(t, env), nil
	case searchquery.FieldEstimate:
		if t.None {
			return sq.Expr("t.estimate IS NULL"), nil
		}
		return sq.Expr("t.estimate "+orEq(t.Op)+" ?::numeric / 100", t.Hundredths), nil
	case searchquery.FieldTag:
		if t.TagAny {
			return sq.Expr(`t.id IN (SELECT et.entity_id FROM entity_tags et
				WHERE et.org_id = ? AND et.entity_type = 'ticket' AND et.key = ?)`, env.OrgID, t.Value), nil
		}
		return sq.Expr(`t.id IN (SELECT et.entity_id FROM entity_tags et
			WHERE et.org_id = ? AND et.entity_type = 'ticket' AND et.key = ? AND et.value = ?)`, env.OrgID, t.Value, t.TagValue), nil
	case searchquery.FieldIs:
		// blocked: an open ticket (status not of category done or
		// cancelled in its project's workflow) blocks it. Read from the
		// blocks links in target order (ticket_links_org_idx), checking each
		// link's blocker by its id against the org's closed statuses (hashed
		// once): DISTINCT keeps the target order, so a page of the default
		// order reads about as many links as it shows instead of walking the
		// tickets. The check is a scalar subquery so the planner cannot turn
		// it into a join over every ticket.
		return sq.Expr(`t.id IN (SELECT DISTINCT l.target_id FROM ticket_links l
			WHERE l.org_id = ? AND l.type = 'blocks' AND COALESCE((SELECT b.deleted_at IS NULL
				AND (b.project_id, b.status) NOT IN (`+closedStatuses+`)
				FROM tickets b WHERE b.id = l.source_id), false))`, env.OrgID, string(env.DefaultStatuses), env.OrgID), nil
	case searchquery.FieldHas:
		switch t.Value {
		case "attachments":
			// DISTINCT: the planner reads the attachments in ticket order
			// (attachments_ticket_idx) and fetches only the tickets it
			// shows, rather than walking the tickets to probe each.
			return sq.Expr("t.id IN (SELECT DISTINCT a.ticket_id FROM attachments a)"), nil
		case "labels":
			return sq.Expr(`EXISTS (SELECT 1 FROM ticket_labels tl JOIN labels l ON l.id = tl.label_id
				WHERE tl.ticket_id = t.id AND l.deleted_at IS NULL)`), nil
		case "assignee":
			return sq.Expr("t.assignee_id IS NOT NULL"), nil
		}
	}
	return nil, fmt.Errorf("searchdb: unsupported term %s:%s", t.Field, t.Value)
}

// priority compares by rank (index tickets_project_priority_idx):
// priority:>=High is High or Critical.
func priority(t searchquery.Term) sq.Sqlizer {
	op := t.Op
	if op == "" {
		op = "="
	}
	return sq.Expr(PriorityRank+" "+op+" ?", t.Priority)
}

// when compares a timestamp. A date is a UTC day: >D after it, >=D from its
// start, <D before it, <=D up to its end, D within it. An age compares the
// age: <7d is younger than 7 days (since now-7d), >7d older.
func when(col string, t searchquery.Term, now time.Time) sq.Sqlizer {
	if t.Relative {
		at := now.Add(-t.Age)
		switch t.Op {
		case "<":
			return sq.Expr(col+" > ?", at)
		case "<=":
			return sq.Expr(col+" >= ?", at)
		case ">":
			return sq.Expr(col+" < ?", at)
		case ">=":
			return sq.Expr(col+" <= ?", at)
		}
		return sq.Expr(col+" >= ?", at) // updated:7d: within the last 7 days
	}
	day, next := t.Date, t.Date.AddDate(0, 0, 1)
	switch t.Op {
	case ">":
		return sq.Expr(col+" >= ?", next)
	case ">=":
		return sq.Expr(col+" >= ?", day)
	case "<":
		return sq.Expr(col+" < ?", day)
	case "<=":
		return sq.Expr(col+" < ?", next)
	}
	return sq.Expr(col+" >= ? AND "+col+" < ?", day, next)
}

// orEq is a term's comparison, = when it has none.
func orEq(op string) string {
	if op == "" {
		return "="
	}
	return op
}

// dueTerm compares the due date with a day. Today is the UTC day of the
// domain clock's now (env.Now), never the database's: overdue is due
// before today on a ticket not of a closed status category (done,
// cancelled) in its project's workflow; 7d is from today to 7 days
// ahead (<7d excludes the seventh day, >7d is after it).
func dueTerm(t searchquery.Term, env Env) sq.Sqlizer {
	y, m, d := env.Now.UTC().Date()
	today := time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
	switch {
	case t.None:
		return sq.Expr("t.due_date IS NULL")
	case t.Overdue:
		return sq.Expr(`t.due_date < ?::date AND (t.project_id, t.status) NOT IN (`+closedStatuses+`)`, today, string(env.DefaultStatuses), env.OrgID)
	case t.Relative:
		until := today.AddDate(0, 0, t.Days)
		switch t.Op {
		case "<":
			return sq.Expr("t.due_date >= ?::date AND t.due_date < ?::date", today, until)
		case ">":
			return sq.Expr("t.due_date > ?::date", until)
		case ">=":
			return sq.Expr("t.due_date >= ?::date", until)
		}
		return sq.Expr("t.due_date >= ?::date AND t.due_date <= ?::date", today, until)
	}
	return sq.Expr("t.due_date "+orEq(t.Op)+" ?::date", t.Date)
}

// projectStatuses joins each project (cp) to the statuses (cs, one jsonb
// element each) of its governing workflow: its own, else the org's
// Default, else the built-in statuses, the one parameter.
const projectStatuses = `projects cp
	LEFT JOIN workflows cw ON cw.id = COALESCE(cp.workflow_id,
		(SELECT d.id FROM workflows d WHERE d.org_id = cp.org_id AND d.name = 'Default'))
	CROSS JOIN LATERAL jsonb_array_elements(COALESCE(cw.statuses, ?::jsonb)) cs`

// closedStatuses selects (project id, status name) of every closed status
// (category done or cancelled) of an org's projects; parameters: the
// built-in statuses, the org id.
const closedStatuses = `SELECT cp.id, cs.value->>'name' FROM ` + projectStatuses + `
	WHERE cp.org_id = ? AND cs.value->>'name' IS NOT NULL
	  AND cs.value->>'category' IN ('done', 'cancelled')`
