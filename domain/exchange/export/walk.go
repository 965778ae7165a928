package export

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/google/uuid"

	"tracker/domain/customfield"
	"tracker/store"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
)

// projectWalker feeds one project after another, tickets in batches.
type projectWalker struct {
	ctx    context.Context
	q      store.Querier
	emails map[uuid.UUID]string
	batch  int
	out    sink
	fields map[uuid.UUID]customfield.Field // the exported definitions, by id
}

func (w *projectWalker) email(id uuid.UUID) (string, error) {
	e, ok := w.emails[id]
	if !ok {
		return "", fmt.Errorf("%w: %s", errMissingUser, id)
	}
	return e, nil
}

func (w *projectWalker) optEmail(id *uuid.UUID) (*string, error) {
	if id == nil {
		return nil, nil
	}
	e, err := w.email(*id)
	return &e, err
}

func (w *projectWalker) walk(r exportdb.Project) error {
	p := Project{
		Key: r.Key, Name: r.Name, Description: r.Description, Workflow: r.Workflow, Team: r.Team, TicketCounter: r.TicketCounter,
		Content: r.Content, BudgetCents: r.BudgetCents, BudgetPeriod: r.BudgetPeriod,
		PlacedInService: r.PlacedInService, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Members: []string{}, Sprints: []Sprint{},
	}
	members, err := exportdb.Members(w.ctx, w.q, r.ID)
	if err != nil {
		return err
	}
	for _, id := range members {
		e, err := w.email(id)
		if err != nil {
			return err
		}
		p.Members = append(p.Members, e)
	}
	srows, err := sprintdb.Export(w.ctx, w.q, r.ID)
	if err != nil {
		return err
	}
	sprintNames := uniqueSprintNames(srows)
	for _, s := range srows {
		sp := Sprint{Content: s.Content, StartDate: s.StartDate.String(), EndDate: s.EndDate.String(), Status: s.Status,
			CreatedAt: s.CreatedAt.UTC(), UpdatedAt: s.UpdatedAt.UTC()}
		sp.Name = sprintNames[s.ID]
		p.Sprints = append(p.Sprints, sp)
	}
	if err := w.out.project(p); err != nil {
		return err
	}
	after := 0
	for {
		rows, err := ticketdb.ExportAfter(w.ctx, w.q, r.ID, after, w.batch)
		if err != nil {
			return err
		}
		if err := w.tickets(p.Key, rows, sprintNames); err != nil {
			return err
		}
		if len(rows) < w.batch {
			return w.out.endProject()
		}
		after = int(rows[len(rows)-1].TicketNumber)
	}
}

// uniqueSprintNames gives every sprint its document name.
func uniqueSprintNames(rows []sprintdb.Row) map[uuid.UUID]string {
	names := make([]string, len(rows))
	for i, s := range rows {
		names[i] = s.Name
	}
	out := make(map[uuid.UUID]string, len(rows))
	for i, n := range SprintNames(names) {
		out[rows[i].ID] = n
	}
	return out
}

// SprintNames makes the names of a project's sprints (in creation order)
// unique, because tickets refer to sprints by name: a later duplicate gets
// " (2)", " (3)", … (skipping names other sprints carry). The importer
// applies the same rule to a project's existing sprints, so a document
// imported back into its own org finds its sprints.
func SprintNames(names []string) []string {
	own := make(map[string]bool, len(names))
	for _, n := range names {
		own[n] = true
	}
	used := make(map[string]bool, len(names))
	out := make([]string, len(names))
	for i, base := range names {
		name := base
		for n := 2; used[name]; n++ {
			if name = base + " (" + strconv.Itoa(n) + ")"; own[name] {
				name = base // another sprint's own name: try the next number
			}
		}
		used[name] = true
		out[i] = name
	}
	return out
}

// tickets converts one batch with its labels, comments and time entries.
func (w *projectWalker) tickets(key string, rows []ticketdb.Row, sprints map[uuid.UUID]string) error {
	if len(rows) == 0 {
		return nil
	}
	ids := make([]uuid.UUID, len(rows))
	for i, t := range rows {
		ids[i] = t.ID
	}
	labels, err := exportdb.TicketLabels(w.ctx, w.q, ids)
	if err != nil {
		return err
	}
	byTicket := map[uuid.UUID][]string{}
	for _, l := range labels {
		byTicket[l.TicketID] = append(byTicket[l.TicketID], l.Name)
	}
	comments, err := w.comments(ids)
	if err != nil {
		return err
	}
	entries, err := w.timeEntries(ids)
	if err != nil {
		return err
	}
	files, err := w.attachments(ids)
	if err != nil {
		return err
	}
	parents, links, err := w.relations(ids)
	if err != nil {
		return err
	}
	values, err := w.customValues(ids)
	if err != nil {
		return err
	}
	for _, r := range rows {
		t := Ticket{Number: int(r.TicketNumber), Content: r.Content, Labels: byTicket[r.ID], CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
			Comments: comments[r.ID], TimeEntries: entries[r.ID], Attachments: files[r.ID],
			Parent: parents[r.ID], Links: links[r.ID], CustomFields: values[r.ID], ExternalKey: r.ExternalKey, ExternalURL: r.ExternalURL}
		if t.Reporter, err = w.email(r.ReporterID); err != nil {
			return err
		}
		if t.Assignee, err = w.optEmail(r.AssigneeID); err != nil {
			return err
		}
		if r.SprintID != nil {
			name := sprints[*r.SprintID]
			t.Sprint = &name
		}
		fillArrays(&t)
		if err := w.out.ticket(key, t); err != nil {
			return err
		}
	}
	return nil
}

func fillArrays(t *Ticket) {
	if t.Labels == nil {
		t.Labels = []string{}
	}
	if t.Comments == nil {
		t.Comments = []Comment{}
	}
	if t.TimeEntries == nil {
		t.TimeEntries = []TimeEntry{}
	}
}

// comments groups the batch's comments by ticket; a parent becomes its
// position among the ticket's comments.
func (w *projectWalker) comments(ids []uuid.UUID) (map[uuid.UUID][]Comment, error) {
	rows, err := exportdb.Comments(w.ctx, w.q, ids)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]Comment{}
	pos := make(map[uuid.UUID]int, len(rows))
	for _, c := range rows {
		list := out[c.TicketID]
		pos[c.ID] = len(list)
		author, err := w.email(c.AuthorID)
		if err != nil {
			return nil, err
		}
		cm := Comment{Author: author, Content: c.Content, CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
		if c.ParentCommentID != nil {
			if i, ok := pos[*c.ParentCommentID]; ok {
				cm.Parent = &i
			}
		}
		out[c.TicketID] = append(list, cm)
	}
	return out, nil
}

func (w *projectWalker) timeEntries(ids []uuid.UUID) (map[uuid.UUID][]TimeEntry, error) {
	rows, err := exportdb.TimeEntries(w.ctx, w.q, ids)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]TimeEntry{}
	for _, e := range rows {
		user, err := w.email(e.UserID)
		if err != nil {
			return nil, err
		}
		te := TimeEntry{User: user, Date: e.Date.String(), Content: e.Content, Status: e.Status,
			CreatedAt: e.CreatedAt.UTC(), UpdatedAt: e.UpdatedAt.UTC(), SourceApprovedBy: e.SourceApprovedBy}
		if te.ApprovedBy, err = w.optEmail(e.ApprovedBy); err != nil {
			return nil, err
		}
		if e.ApprovedAt != nil {
			at := e.ApprovedAt.UTC()
			te.ApprovedAt = &at
		}
		out[e.TicketID] = append(out[e.TicketID], te)
	}
	return out, nil
}

// workflowOf decodes a workflow's JSON columns.
func workflowOf(r exportdb.Workflow) (Workflow, error) {
	w := Workflow{Name: r.Name, Enforcement: r.Enforcement, Statuses: []Status{}, Transitions: []Transition{}}
	if err := json.Unmarshal(r.Statuses, &w.Statuses); err != nil {
		return w, fmt.Errorf("workflow %s statuses: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.Transitions, &w.Transitions); err != nil {
		return w, fmt.Errorf("workflow %s transitions: %w", r.ID, err)
	}
	return w, nil
}

// attachments groups the batch's attachments by ticket, in upload order.
func (w *projectWalker) attachments(ids []uuid.UUID) (map[uuid.UUID][]Attachment, error) {
	rows, err := exportdb.Attachments(w.ctx, w.q, ids)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID][]Attachment{}
	for _, a := range rows {
		by, err := w.email(a.UploadedBy)
		if err != nil {
			return nil, err
		}
		out[a.TicketID] = append(out[a.TicketID], Attachment{Filename: a.Filename, ContentType: a.ContentType,
			SizeBytes: a.SizeBytes, StorageKey: a.StorageKey, UploadedBy: by, CreatedAt: a.CreatedAt.UTC()})
	}
	return out, nil
}

// relations reads the batch's parents and the links stored from its
// tickets, naming the other tickets by reference.
func (w *projectWalker) relations(ids []uuid.UUID) (map[uuid.UUID]*string, map[uuid.UUID][]Link, error) {
	prows, err := exportdb.Parents(w.ctx, w.q, ids)
	if err != nil {
		return nil, nil, err
	}
	parents := make(map[uuid.UUID]*string, len(prows))
	for _, r := range prows {
		ref := Ref(r.Key, r.Number)
		parents[r.TicketID] = &ref
	}
	lrows, err := exportdb.Links(w.ctx, w.q, ids)
	if err != nil {
		return nil, nil, err
	}
	links := map[uuid.UUID][]Link{}
	for _, r := range lrows {
		links[r.TicketID] = append(links[r.TicketID], Link{Type: r.Type, Ticket: Ref(r.Key, r.Number)})
	}
	return parents, links, nil
}
