package capexdb

import (
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Tag is one key:value condition of the report's tag filter.
type Tag struct{ Key, Value string }

// Filter selects the approved entries of one org and date range.
type Filter struct {
	OrgID        uuid.UUID
	From, To     time.Time // [From, To), dates
	UserID       uuid.UUID
	ProjectID    uuid.UUID // one project (the drill-down of a report line)
	TeamID       uuid.UUID
	CostCenterID string
	ActivityType string
	// Tags are ANDed; each matches a tag of the entry's project, ticket,
	// user or the entry itself.
	Tags []Tag
	// Projects restricts to these projects when Restricted (API keys).
	Restricted bool
	Projects   []uuid.UUID
	// Tickets restricts to the entries of these tickets when OnlyTickets
	// (the tickets a policy makes OpEx): capex_ticket_rollup answers it
	// for whole months, the entries otherwise.
	OnlyTickets bool
	Tickets     []uuid.UUID
	// Class, when set, classifies every entry in the query itself, and
	// every line carries its class (the aggregate is also grouped by it).
	// Only the entries answer it, not the rollup.
	Class *Classing
}

// Classing is a policy's decisions for one month as the aggregate applies
// them to each entry: CapEx when its project is one of Projects and its
// date is on or after that project's From, unless its ticket is one of
// OpEx; OpEx otherwise. Projects and From are parallel.
type Classing struct {
	Projects []uuid.UUID
	From     []time.Time
	OpEx     []uuid.UUID
}

// join renders the joins the class expression reads: each entry's
// project's first capitalized date, and whether its ticket is decided
// OpEx, both hash joins (an entry is tested once, not against a list).
func (c *Classing) join(a *args) string {
	if c == nil {
		return ""
	}
	return ` LEFT JOIN unnest(` + a.add(c.Projects) + `::uuid[], ` + a.add(c.From) + `::date[]) AS cap (project_id, cfrom)
		ON cap.project_id = te.project_id
		LEFT JOIN (SELECT DISTINCT u.ticket_id FROM unnest(` + a.add(c.OpEx) + `::uuid[]) AS u (ticket_id)) ox
		ON ox.ticket_id = te.ticket_id`
}

// column is the class of an entry (NULL when unclassified).
func (c *Classing) column() string {
	if c == nil {
		return "NULL::text AS class"
	}
	return classExpr + " AS class"
}

const classExpr = `(CASE WHEN cap.cfrom IS NOT NULL AND te.date >= cap.cfrom AND ox.ticket_id IS NULL
	THEN 'CapEx' ELSE 'OpEx' END)`

// byTicket tells whether f selects by ticket (which the rollup cannot).
func (f Filter) byTicket() bool { return f.OnlyTickets || f.Class != nil }

// args numbers the parameters of hand-written SQL.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return fmt.Sprintf("$%d", len(*a))
}

// where renders the entry conditions of f.
func (f Filter) where(a *args, org string) string {
	w := []string{"te.org_id = " + org, "te.status = 'Approved'",
		"te.date >= " + a.add(f.From), "te.date < " + a.add(f.To)}
	w = append(w, f.narrow(a, org)...)
	if f.OnlyTickets {
		// A semi-join, not ticket_id = ANY($n): a prepared statement's
		// generic plan tests an array parameter element by element on
		// every row.
		w = append(w, "te.ticket_id IN (SELECT unnest("+a.add(f.Tickets)+"::uuid[]))")
	}
	for _, t := range f.Tags {
		w = append(w, tagCond(a, org, t, "project", "ticket", "user", "time_entry", "team"))
	}
	return strings.Join(w, " AND ")
}

// narrow renders the conditions on user, activity type, team, cost center
// and the API key's projects, which the rollup's columns answer too.
func (f Filter) narrow(a *args, org string) []string {
	var w []string
	if f.UserID != uuid.Nil {
		w = append(w, "te.user_id = "+a.add(f.UserID))
	}
	if f.ProjectID != uuid.Nil {
		w = append(w, "te.project_id = "+a.add(f.ProjectID))
	}
	if f.ActivityType != "" {
		w = append(w, "te.activity_type = "+a.add(f.ActivityType))
	}
	if f.TeamID != uuid.Nil {
		w = append(w, "te.project_id IN (SELECT id FROM projects WHERE org_id = "+org+" AND team_id = "+a.add(f.TeamID)+")")
	}
	if f.CostCenterID != "" {
		w = append(w, "te.project_id IN (SELECT id FROM projects WHERE org_id = "+org+" AND cost_center_id = "+a.add(f.CostCenterID)+")")
	}
	if f.Restricted {
		w = append(w, "te.project_id = ANY("+a.add(f.Projects)+")")
	}
	return w
}

// entityColumn is the entry's column that names an entity of each kind.
var entityColumn = map[string]string{"project": "te.project_id", "ticket": "te.ticket_id", "user": "te.user_id", "time_entry": "te.id"}

// tagCond matches an entry whose entity of one of kinds carries t. IN
// (subquery) per kind runs as a hashed subplan: the tagged ids are read
// once, not once per entry.
func tagCond(a *args, org string, t Tag, kinds ...string) string {
	k, v := a.add(t.Key), a.add(t.Value)
	parts := make([]string, 0, len(kinds))
	for _, kind := range kinds {
		tagged := "(SELECT entity_id FROM entity_tags WHERE org_id = " + org +
			" AND entity_type = '" + kind + "' AND key = " + k + " AND value = " + v + ")"
		if kind == "team" { // a team's tag reaches the entries of its projects
			parts = append(parts, "te.project_id IN (SELECT id FROM projects WHERE org_id = "+org+" AND team_id IN "+tagged+")")
			continue
		}
		parts = append(parts, entityColumn[kind]+" IN "+tagged)
	}
	return "(" + strings.Join(parts, " OR ") + ")"
}
