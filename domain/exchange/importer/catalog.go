package importer

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/domain/org"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/labeldb"
)

// ActionImported is the audit action of every row an import creates.
// Imports emit no webhook events: a bulk import would flood receivers.
const ActionImported = "imported"

// catalogRun imports the catalog in the step's transaction.
type catalogRun struct {
	ctx    context.Context
	q      store.Querier
	row    importdb.Row
	now    time.Time
	counts importdb.Counts
	keys   []importdb.Key
	audits map[string][]uuid.UUID // entity type → created ids
	users  map[string]uuid.UUID   // lower-cased email → id
	wfs    map[string]uuid.UUID   // name → id
	teams  map[string]uuid.UUID   // lower-cased name → id
}

// Catalog imports users (by email), workflows (by name), labels (by name),
// projects (by key) with their members, and sprints (by name within the
// project). An existing row with the same key is reused as it is, never
// duplicated nor changed.
func (r *Runner) Catalog(ctx context.Context, id uuid.UUID) (Step, error) {
	var out Step
	err := r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return domain.NotFoundAs(err, "import")
		}
		if row.Stage != importdb.StageStaged || importdb.Finished(row.Status) {
			out = stepOf(row)
			return nil
		}
		items, err := importdb.Items(ctx, q, id, 0, 1)
		if err != nil {
			return err
		}
		if len(items) != 1 {
			return permanent("the catalog of import %s is not staged", id)
		}
		var doc export.Document
		if err := json.Unmarshal(items[0].Payload, &doc); err != nil {
			return permanent("staged catalog does not decode: %v", err)
		}
		c := &catalogRun{ctx: ctx, q: q, row: row, now: r.now(), audits: map[string][]uuid.UUID{}}
		if err := c.run(doc); err != nil {
			return err
		}
		if err := importdb.PutKeys(ctx, q, row.OrgID, row.Source, id, c.keys); err != nil {
			return err
		}
		for _, et := range []string{"invite", "workflow", "label", "team", "project", "sprint", "custom_field"} {
			if err := importdb.InsertAudits(ctx, q, row.OrgID, row.RequestedBy, ActionImported, c.now,
				importdb.Audit{EntityType: et, IDs: c.audits[et]}, domain.NewID); err != nil {
				return err
			}
		}
		if err := importdb.Progress(ctx, q, id, importdb.StageCatalog, row.TicketsTotal, 1, c.counts, c.now); err != nil {
			return err
		}
		row.Stage, row.NextSeq, row.Counts = importdb.StageCatalog, 1, c.counts
		out = stepOf(row)
		return nil
	})
	return out, err
}

func (c *catalogRun) key(kind, key string, id uuid.UUID, created bool) {
	c.keys = append(c.keys, importdb.Key{Kind: kind, Key: key, ID: id, Created: created})
}

func (c *catalogRun) run(doc export.Document) error {
	steps := []func(export.Document) error{c.importUsers, c.importWorkflows, c.importLabels, c.importTeams, c.importProjects, c.importFields}
	for _, step := range steps {
		if err := step(doc); err != nil {
			return err
		}
	}
	return nil
}

func (c *catalogRun) importUsers(doc export.Document) error {
	emails := make([]string, len(doc.Users))
	for i, u := range doc.Users {
		emails[i] = u.Email
	}
	existing, err := importdb.UsersByEmail(c.ctx, c.q, emails)
	if err != nil {
		return err
	}
	var fresh []importdb.NewUser
	for _, u := range doc.Users {
		if _, ok := existing[strings.ToLower(u.Email)]; !ok {
			name := u.DisplayName
			if strings.TrimSpace(name) == "" {
				name = strings.SplitN(u.Email, "@", 2)[0]
			}
			fresh = append(fresh, importdb.NewUser{ID: domain.NewID(), Email: u.Email, DisplayName: name})
		}
	}
	created, err := importdb.InsertUsers(c.ctx, c.q, fresh, c.now)
	if err != nil {
		return err
	}
	c.counts.UsersCreated = len(created)
	isNew := map[uuid.UUID]bool{}
	for _, id := range created {
		isNew[id] = true
	}
	if c.users, err = importdb.UsersByEmail(c.ctx, c.q, emails); err != nil {
		return err
	}
	var invites []importdb.Invite
	for _, u := range doc.Users {
		id, ok := c.users[strings.ToLower(u.Email)]
		if !ok {
			return permanent("user %s could not be created", u.Email)
		}
		c.key(importdb.KindUser, strings.ToLower(u.Email), id, isNew[id])
		if u.Role != nil {
			invites = append(invites, importdb.Invite{ID: domain.NewID(), Code: org.RandomCode(18), Email: u.Email,
				UserID: id, Role: c.grantable(domain.ParseRole(*u.Role)).DB()})
		}
	}
	// An import never enrolls anyone: a person it names with a role who is
	// not a member of the org gets a pending invite, accepted by the person.
	// An import whose requester was deleted meanwhile invites nobody.
	if c.row.RequestedBy == nil {
		return nil
	}
	made, err := importdb.InsertInvites(c.ctx, c.q, c.row.OrgID, *c.row.RequestedBy, invites, c.now.Add(org.InviteTTL), c.now)
	c.audits["invite"] = made
	return err
}

// grantable caps a document role at what the importer may grant: only an
// Owner makes Owners (as in POST /orgs/{id}/members).
func (c *catalogRun) grantable(r domain.Role) domain.Role {
	if r == domain.RoleOwner && c.row.RequesterRole != domain.RoleOwner.DB() {
		return domain.RoleAdmin
	}
	if r == domain.RoleNone {
		return domain.RoleMember
	}
	return r
}

func (c *catalogRun) importWorkflows(doc export.Document) error {
	var err error
	if c.wfs, err = importdb.WorkflowsByName(c.ctx, c.q, c.row.OrgID); err != nil {
		return err
	}
	for _, w := range doc.Workflows {
		if id, ok := c.wfs[w.Name]; ok {
			c.key(importdb.KindWorkflow, w.Name, id, false)
			continue
		}
		id := domain.NewID()
		if w.Transitions == nil {
			w.Transitions = []export.Transition{}
		}
		st, _ := json.Marshal(w.Statuses)
		tr, _ := json.Marshal(w.Transitions)
		enf := w.Enforcement
		if enf == "" {
			enf = "none"
		}
		if err := importdb.InsertWorkflow(c.ctx, c.q, c.row.OrgID, id, w.Name, st, tr, enf, c.now); err != nil {
			return err
		}
		c.wfs[w.Name] = id
		c.counts.WorkflowsCreated++
		c.audits["workflow"] = append(c.audits["workflow"], id)
		c.key(importdb.KindWorkflow, w.Name, id, true)
	}
	return nil
}

func (c *catalogRun) importLabels(doc export.Document) error {
	byName, err := importdb.LabelsByName(c.ctx, c.q, c.row.OrgID)
	if err != nil {
		return err
	}
	for _, l := range doc.Labels {
		lower := strings.ToLower(l.Name)
		if id, ok := byName[lower]; ok {
			c.key(importdb.KindLabel, lower, id, false)
			continue
		}
		id := domain.NewID()
		r := labeldb.Row{ID: id, OrgID: c.row.OrgID, Content: l.Content, CreatedAt: c.now, UpdatedAt: c.now, RowVersion: 1}
		if err := labeldb.Insert(c.ctx, c.q, r); err != nil {
			return err
		}
		byName[lower] = id
		c.counts.LabelsCreated++
		c.audits["label"] = append(c.audits["label"], id)
		c.key(importdb.KindLabel, lower, id, true)
	}
	return nil
}
