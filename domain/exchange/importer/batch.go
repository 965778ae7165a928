package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/ticketdb"
)

// ticketKey names a ticket in the key map: its project's key and number.
func ticketKey(projectKey string, number int) string {
	return strings.ToUpper(projectKey) + "-" + strconv.Itoa(number)
}

// Batch imports the next batch of staged tickets, each with its labels,
// comments and time entries, in one transaction that also moves the
// progress mark. A ticket is created with its own number when the project
// has it free. A ticket already imported from the same source (key map),
// or whose number is held by a ticket with the same created_at (the same
// ticket: a document imported back into its own org), is skipped with its
// comments and time entries. A ticket whose number is held by another
// ticket gets the next number of the project's counter.
func (r *Runner) Batch(ctx context.Context, id uuid.UUID) (Step, error) {
	var out Step
	err := r.DB.InTx(ctx, func(q store.Querier) error {
		row, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return domain.NotFoundAs(err, "import")
		}
		if row.Stage != importdb.StageCatalog && row.Stage != importdb.StageTickets || row.NextSeq > row.TicketsTotal ||
			importdb.Finished(row.Status) {
			out = stepOf(row)
			return nil
		}
		size := r.BatchSize
		if size <= 0 {
			size = 2000
		}
		to := min(row.NextSeq+size, row.TicketsTotal+1)
		b := &batchRun{ctx: ctx, q: q, row: row, now: r.now()}
		if err := b.run(row.NextSeq, to); err != nil {
			return err
		}
		row.Stage, row.NextSeq, row.Counts = importdb.StageTickets, to, row.Counts.Add(b.counts)
		if err := importdb.Progress(ctx, q, id, row.Stage, row.TicketsTotal, row.NextSeq, row.Counts, b.now); err != nil {
			return err
		}
		out = stepOf(row)
		return nil
	})
	return out, err
}

type batchRun struct {
	ctx     context.Context
	q       store.Querier
	row     importdb.Row
	now     time.Time
	counts  importdb.Counts
	users   map[string]uuid.UUID
	labels  map[string]uuid.UUID
	proj    map[string]uuid.UUID
	sprints map[string]uuid.UUID
	// fields are the org's custom fields by key, read once a ticket of the
	// batch has values.
	fields customfield.Defs
	// requester is the importing admin's email, read once it is needed.
	requester string
}

// pending is a ticket of the batch on its way in.
type pending struct {
	key     string // project key
	t       export.Ticket
	row     ticketdb.Row
	created bool
	// commentIDs are the ids its comments get, drawn before the ticket's
	// insert, which computes the search vector from their bodies in id
	// order.
	commentIDs []uuid.UUID
}

func (b *batchRun) loadKeys() error {
	var err error
	kinds := []struct {
		kind string
		dst  *map[string]uuid.UUID
	}{{importdb.KindUser, &b.users}, {importdb.KindLabel, &b.labels}, {importdb.KindProject, &b.proj}, {importdb.KindSprint, &b.sprints}}
	for _, k := range kinds {
		if *k.dst, err = importdb.Keys(b.ctx, b.q, b.row.OrgID, b.row.Source, k.kind, nil); err != nil {
			return err
		}
	}
	return nil
}

func (b *batchRun) user(email string) (uuid.UUID, error) {
	id, ok := b.users[strings.ToLower(email)]
	if !ok {
		return uuid.Nil, permanent("user %s is not part of the import", email)
	}
	return id, nil
}

func (b *batchRun) optUser(email *string) (*uuid.UUID, error) {
	if email == nil {
		return nil, nil
	}
	id, err := b.user(*email)
	return &id, err
}

func (b *batchRun) run(from, to int) error {
	items, err := importdb.Items(b.ctx, b.q, b.row.ID, from, to)
	if err != nil {
		return err
	}
	if err := b.loadKeys(); err != nil {
		return err
	}
	all := make([]*pending, 0, len(items))
	keys := make([]string, 0, len(items))
	for _, it := range items {
		var s staged
		if err := json.Unmarshal(it.Payload, &s); err != nil {
			return permanent("staged ticket %d does not decode: %v", it.Seq, err)
		}
		p, err := b.prepare(s)
		if err != nil {
			return err
		}
		all = append(all, p)
		keys = append(keys, ticketKey(s.Project, s.Ticket.Number))
		if s.Ticket.Parent != nil {
			keys = append(keys, refKey(*s.Ticket.Parent))
		}
	}
	// The batch's own tickets imported before, and the parents already in.
	known, err := importdb.Keys(b.ctx, b.q, b.row.OrgID, b.row.Source, importdb.KindTicket, slices.Compact(slices.Sorted(slices.Values(keys))))
	if err != nil {
		return err
	}
	var todo, again []*pending
	for _, p := range all {
		if id, ok := known[ticketKey(p.key, p.t.Number)]; ok {
			if b.row.Format != "" && b.row.Format != "tracker_json" {
				p.row.ID = id
				again = append(again, p)
				continue
			}
			b.counts.TicketsSkipped++
		} else {
			todo = append(todo, p)
		}
	}
	if err := b.refresh(again); err != nil {
		return err
	}
	matched, err := b.insertTickets(todo, known)
	if err != nil {
		return err
	}
	if err := b.children(todo, matched); err != nil {
		return err
	}
	return ticketdb.GiveSearchVectors(b.ctx, b.q, false)
}

// prepare resolves a staged ticket's references.
func (b *batchRun) prepare(s staged) (*pending, error) {
	t := s.Ticket
	pid, ok := b.proj[strings.ToUpper(s.Project)]
	if !ok {
		return nil, permanent("project %s is not part of the import", s.Project)
	}
	prio, ok := ticket.ParsePriority(t.Priority)
	if !ok {
		prio = "None"
	}
	r := ticketdb.Row{ID: domain.NewID(), OrgID: b.row.OrgID, ProjectID: pid, TicketNumber: int32(t.Number), Content: t.Content,
		CreatedAt: orNow(t.CreatedAt, b.now)}
	r.Priority = prio
	r.UpdatedAt = orNow(t.UpdatedAt, r.CreatedAt)
	r.ExternalKey, r.ExternalURL = t.ExternalKey, t.ExternalURL
	var err error
	if r.ReporterID, err = b.user(t.Reporter); err != nil {
		return nil, err
	}
	if r.AssigneeID, err = b.optUser(t.Assignee); err != nil {
		return nil, err
	}
	if t.Sprint != nil {
		sid, ok := b.sprints[sprintKey(s.Project, *t.Sprint)]
		if !ok {
			return nil, permanent("sprint %q of project %s is not part of the import", *t.Sprint, s.Project)
		}
		r.SprintID = &sid
	}
	return &pending{key: s.Project, t: t, row: r}, nil
}

// insertTickets creates the tickets and returns the ones matched to an
// existing ticket instead (key → id). The numbers held already are read
// first, so that every ticket goes in with one statement, with its search
// vector and, when its parent is already in, its parent.
func (b *batchRun) insertTickets(todo []*pending, known map[string]uuid.UUID) (map[string]uuid.UUID, error) {
	matched := map[string]uuid.UUID{}
	if len(todo) == 0 {
		return matched, nil
	}
	maxNum := map[uuid.UUID]int{}
	for _, p := range todo {
		maxNum[p.row.ProjectID] = max(maxNum[p.row.ProjectID], int(p.row.TicketNumber))
	}
	pids := make([]uuid.UUID, 0, len(maxNum))
	for id := range maxNum {
		pids = append(pids, id)
	}
	slices.SortFunc(pids, func(a, c uuid.UUID) int { return strings.Compare(a.String(), c.String()) }) // lock order
	nums := make([]int, len(pids))
	for i, id := range pids {
		nums[i] = maxNum[id]
	}
	// With the projects locked, no number at or below their counters is
	// taken until the batch commits: what is held now stays so.
	if err := importdb.RaiseCounters(b.ctx, b.q, pids, nums); err != nil {
		return nil, err
	}
	pp, nn := make([]uuid.UUID, len(todo)), make([]int, len(todo))
	for i, p := range todo {
		pp[i], nn[i] = p.row.ProjectID, int(p.row.TicketNumber)
	}
	holders, err := importdb.ExistingTickets(b.ctx, b.q, pp, nn)
	if err != nil {
		return nil, err
	}
	held := map[string]importdb.Existing{}
	for _, h := range holders {
		held[h.ProjectID.String()+"#"+strconv.Itoa(h.Number)] = h
	}
	ins := make([]*pending, 0, len(todo))
	var renumber []*pending
	for _, p := range todo {
		h, ok := held[p.row.ProjectID.String()+"#"+strconv.Itoa(int(p.row.TicketNumber))]
		switch {
		case ok && sameInstant(h.CreatedAt, p.row.CreatedAt):
			matched[ticketKey(p.key, p.t.Number)] = h.ID
			b.counts.TicketsSkipped++
			continue
		case ok:
			renumber = append(renumber, p)
		}
		ins = append(ins, p)
	}
	if err := b.renumber(renumber); err != nil {
		return nil, err
	}
	parents := maps.Clone(known)
	maps.Copy(parents, matched)
	if err := b.parentsAtInsert(ins, parents); err != nil {
		return nil, err
	}
	return matched, b.insertRows(ins)
}

// insertRows inserts the tickets, each with the search vector of its
// comments (written by children, with the setting that keeps it on).
func (b *batchRun) insertRows(ps []*pending) error {
	if err := ticketdb.GiveSearchVectors(b.ctx, b.q, true); err != nil {
		return err
	}
	rows, text := make([]ticketdb.Row, len(ps)), make([]string, len(ps))
	for i, p := range ps {
		rows[i] = p.row
		text[i] = p.commentText()
	}
	created, err := ticketdb.InsertMany(b.ctx, b.q, rows, text)
	if err != nil {
		return err
	}
	for _, p := range ps {
		if !created[p.row.ID] {
			// Read under the projects' lock just before: another writer
			// broke the counter's promise. The retried batch reads again.
			return fmt.Errorf("ticket number %d of project %s was taken during the batch", p.row.TicketNumber, p.key)
		}
		p.created = true
		b.counts.TicketsCreated++
	}
	return nil
}

// commentText is the ticket's comment bodies in id order, joined by a space:
// the comment part of its search vector (ticket_search_vector's string_agg).
func (p *pending) commentText() string {
	p.commentIDs = make([]uuid.UUID, len(p.t.Comments))
	order := make([]int, len(p.t.Comments))
	for i := range p.t.Comments {
		p.commentIDs[i], order[i] = domain.NewID(), i
	}
	slices.SortFunc(order, func(a, c int) int { return bytes.Compare(p.commentIDs[a][:], p.commentIDs[c][:]) })
	var sb strings.Builder
	for i, o := range order {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(p.t.Comments[o].Body)
	}
	return sb.String()
}

// renumber gives tickets whose number another ticket holds new numbers
// from their project's counter.
func (b *batchRun) renumber(ps []*pending) error {
	byProject := map[uuid.UUID][]*pending{}
	for _, p := range ps {
		byProject[p.row.ProjectID] = append(byProject[p.row.ProjectID], p)
	}
	for pid, list := range byProject {
		first, err := importdb.Allocate(b.ctx, b.q, pid, len(list))
		if err != nil {
			return err
		}
		for i, p := range list {
			p.row.TicketNumber = int32(first + i)
		}
	}
	return nil
}

func sameInstant(a, c time.Time) bool {
	d := a.Sub(c)
	return d > -time.Microsecond && d < time.Microsecond
}
