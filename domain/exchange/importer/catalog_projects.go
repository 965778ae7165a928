package importer

import (
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/domain/project"
	"tracker/internal/civil"
	"tracker/store/exchangedb/importdb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
)

// orNow is a document timestamp, or now when the document left it out.
func orNow(t, now time.Time) time.Time {
	if t.IsZero() {
		return now
	}
	return t.UTC()
}

// sprintKey names a sprint in the key map: its project's key and its name.
func sprintKey(projectKey, name string) string { return strings.ToUpper(projectKey) + "/" + name }

func (c *catalogRun) importProjects(doc export.Document) error {
	byKey, err := importdb.ProjectsByKey(c.ctx, c.q, c.row.OrgID)
	if err != nil {
		return err
	}
	ids := make([]uuid.UUID, len(doc.Projects))
	for i, p := range doc.Projects {
		key := strings.ToUpper(p.Key)
		if id, ok := byKey[key]; ok {
			ids[i] = id
			c.key(importdb.KindProject, key, id, false)
			continue
		}
		// The document's date was checked with the rest of it (validate.go).
		inService := project.CheckInService(new(domain.Problems), p.PlacedInService)
		np := projectdb.Row{ID: domain.NewID(), OrgID: c.row.OrgID, Key: key, Name: p.Name,
			Description: p.Description, TicketCounter: int64(p.TicketCounter), Content: p.Content,
			BudgetCents: p.BudgetCents, BudgetPeriod: p.BudgetPeriod, PlacedInService: inService, CreatedAt: orNow(p.CreatedAt, c.now)}
		np.UpdatedAt = orNow(p.UpdatedAt, np.CreatedAt)
		// A document written before projects had a unit has none: points.
		np.EstimateUnit = project.NormalizeEstimateUnit(new(domain.Problems), np.EstimateUnit)
		if p.Workflow != nil {
			if wf, ok := c.wfs[*p.Workflow]; ok {
				np.WorkflowID = &wf
			}
		}
		if p.Team != nil {
			if t, ok := c.teams[strings.ToLower(*p.Team)]; ok {
				np.TeamID = &t
			}
		}
		if err := projectdb.Insert(c.ctx, c.q, np); err != nil {
			return err
		}
		byKey[key], ids[i] = np.ID, np.ID
		c.counts.ProjectsCreated++
		c.audits["project"] = append(c.audits["project"], np.ID)
		c.key(importdb.KindProject, key, np.ID, true)
	}
	for i, p := range doc.Projects {
		members := make([]uuid.UUID, 0, len(p.Members))
		for _, e := range p.Members {
			members = append(members, c.users[strings.ToLower(e)])
		}
		if err := importdb.AddProjectMembers(c.ctx, c.q, c.row.OrgID, ids[i], members, c.now); err != nil {
			return err
		}
	}
	return c.importSprints(doc, ids)
}

func (c *catalogRun) importSprints(doc export.Document, projectIDs []uuid.UUID) error {
	existing, err := c.sprintsByName(projectIDs)
	if err != nil {
		return err
	}
	for i, p := range doc.Projects {
		for _, s := range p.Sprints {
			key := sprintKey(p.Key, s.Name)
			if id, ok := existing[projectIDs[i].String()+"/"+s.Name]; ok {
				c.key(importdb.KindSprint, key, id, false)
				continue
			}
			ns := sprintdb.Row{ID: domain.NewID(), OrgID: c.row.OrgID, ProjectID: projectIDs[i], Content: sprintContent(s),
				Status: s.Status, CreatedAt: orNow(s.CreatedAt, c.now), RowVersion: 1}
			ns.UpdatedAt = orNow(s.UpdatedAt, ns.CreatedAt)
			if err := sprintdb.Insert(c.ctx, c.q, ns); err != nil {
				return err
			}
			existing[projectIDs[i].String()+"/"+s.Name] = ns.ID
			c.counts.SprintsCreated++
			c.audits["sprint"] = append(c.audits["sprint"], ns.ID)
			c.key(importdb.KindSprint, key, ns.ID, true)
		}
	}
	return nil
}

// sprintsByName maps "<project id>/<name>" of the projects' live sprints to
// ids, with names made unique as the export makes them.
func (c *catalogRun) sprintsByName(projectIDs []uuid.UUID) (map[string]uuid.UUID, error) {
	rows, err := importdb.LiveSprints(c.ctx, c.q, projectIDs)
	if err != nil {
		return nil, err
	}
	byProject := map[uuid.UUID][]importdb.LiveSprint{}
	for _, r := range rows {
		byProject[r.ProjectID] = append(byProject[r.ProjectID], r)
	}
	out := make(map[string]uuid.UUID, len(rows))
	for pid, list := range byProject {
		names := make([]string, len(list))
		for i, r := range list {
			names[i] = r.Name
		}
		for i, n := range export.SprintNames(names) {
			out[pid.String()+"/"+n] = list[i].ID
		}
	}
	return out, nil
}

// importTeams matches teams by name ignoring case (an existing team is
// reused as it is) and adds the listed members who are members of the org.
func (c *catalogRun) importTeams(doc export.Document) error {
	byName, err := importdb.TeamsByName(c.ctx, c.q, c.row.OrgID)
	if err != nil {
		return err
	}
	c.teams = byName
	for _, t := range doc.Teams {
		lower := strings.ToLower(t.Name)
		// Teams are matched by name on every import, so the key map
		// (whose kinds are fixed by the schema) does not list them.
		id, ok := byName[lower]
		if !ok {
			id = domain.NewID()
			if err := importdb.InsertTeam(c.ctx, c.q, c.row.OrgID, id, t.Name, c.now); err != nil {
				return err
			}
			byName[lower] = id
			c.counts.TeamsCreated++
			c.audits["team"] = append(c.audits["team"], id)
		}
		members := make([]uuid.UUID, 0, len(t.Members))
		for _, e := range t.Members {
			members = append(members, c.users[strings.ToLower(e)])
		}
		if err := importdb.AddTeamMembers(c.ctx, c.q, c.row.OrgID, id, members, c.now); err != nil {
			return err
		}
	}
	return nil
}

// sprintContent is a document sprint's own values, its dates read from
// their text (zero when malformed: the validation reports those).
func sprintContent(s export.Sprint) sprintdb.Content {
	c := s.Content
	c.StartDate, _ = civil.ParseDate(s.StartDate)
	c.EndDate, _ = civil.ParseDate(s.EndDate)
	return c
}
