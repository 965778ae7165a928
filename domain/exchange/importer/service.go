package importer

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/exchange/sources"
	"tracker/store"
	"tracker/store/exchangedb/importdb"
	"tracker/store/objectstore"
)

// TopicImport is the outbox topic of an import job: the worker starts the
// Import workflow for it.
const TopicImport = "job.import"

// Job is the payload of a TopicImport outbox row.
type Job struct {
	ImportID uuid.UUID `json:"import_id"`
	OrgID    uuid.UUID `json:"org_id"`
	// Source and Tickets describe the document in the workflow's summary
	// in the Temporal UI (absent from jobs queued before they existed).
	Source  string `json:"source,omitempty"`
	Tickets int    `json:"tickets,omitempty"`
}

// WorkflowID is the id of an import's workflow.
func WorkflowID(importID uuid.UUID) string { return "import:" + importID.String() }

// Service accepts imports and reports on them.
type Service struct {
	DB *store.DB
	// Wait is how long Submit's caller waits for a quick import to finish
	// (default 3 s); Poll how often it looks (default 100 ms).
	Wait, Poll time.Duration
	clock      domain.Clock
	files      objectstore.Store
}

// New builds the service on db, telling the time by clock, keeping the
// uploaded files of other trackers' exports in files.
func New(db *store.DB, clock domain.Clock, files objectstore.Store) *Service {
	return &Service{DB: db, clock: clock, files: files}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// Submit authorizes and validates an import into orgID and records it with
// its document and the outbox row that starts its workflow, in one
// transaction. The importer must be Admin of the org; an API key
// restricted to projects cannot import (the import creates projects). A
// document that would write a time entry into a closed month is a 409
// naming the month.
func (s *Service) Submit(ctx context.Context, p domain.Principal, orgID uuid.UUID, body []byte) (uuid.UUID, error) {
	access, err := domain.OrgAccess(ctx, s.DB.Q(), p, orgID, domain.RoleAdmin, "organization")
	if err != nil {
		return uuid.Nil, err
	}
	return s.submit(ctx, p, access, orgID, body, "tracker_json", nil)
}

// submit validates and records a document whose importer is authorized;
// format and report (JSON, nil for tracker_json) say what file it came
// from.
func (s *Service) submit(ctx context.Context, p domain.Principal, access domain.Access, orgID uuid.UUID, body []byte, format string, report []byte) (uuid.UUID, error) {
	d, err := decode(body)
	if err != nil {
		return uuid.Nil, err
	}
	problems, err := validate(ctx, d, known{q: s.DB.Q(), orgID: orgID})
	if err != nil {
		return uuid.Nil, err
	}
	if len(problems) > 0 {
		return uuid.Nil, domain.Invalid(problems...)
	}
	if err := periodsOpen(ctx, s.DB.Q(), orgID, d.doc); err != nil {
		return uuid.Nil, err
	}
	role := domain.RoleAdmin
	if access.Role >= domain.RoleOwner {
		role = domain.RoleOwner
	}
	id := domain.NewID()
	now := s.now()
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		row := importdb.Row{ID: id, OrgID: orgID, RequestedBy: &p.UserID, RequesterRole: role.DB(),
			Source: d.doc.Source, CreatedAt: now, Format: format, Report: report}
		if err := importdb.Insert(ctx, q, row, body); err != nil {
			return err
		}
		if err := domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "import",
			EntityID: id, Action: "requested"}); err != nil {
			return err
		}
		return domain.Enqueue(ctx, q, orgID, domain.NewID(), TopicImport, Job{ImportID: id, OrgID: orgID,
			Source: d.doc.Source, Tickets: d.tickets()}, now)
	})
	return id, err
}

// tickets counts the document's tickets.
func (d decoded) tickets() int {
	n := 0
	for _, p := range d.doc.Projects {
		n += len(p.Tickets)
	}
	return n
}

// Summary is the spec's eight counts, the teams created, the links created
// and parents set, and the custom field definitions created.
type Summary struct {
	UsersCreated       int `json:"users_created"`
	WorkflowsCreated   int `json:"workflows_created"`
	LabelsCreated      int `json:"labels_created"`
	ProjectsCreated    int `json:"projects_created"`
	SprintsCreated     int `json:"sprints_created"`
	TicketsCreated     int `json:"tickets_created"`
	CommentsCreated    int `json:"comments_created"`
	TimeEntriesCreated int `json:"time_entries_created"`
	// TeamsCreated goes with the additive teams part of the document.
	TeamsCreated int `json:"teams_created"`
	// LinksCreated and ParentsSet go with the additive ticket relations
	// (links, parent) of the document.
	LinksCreated int `json:"links_created"`
	ParentsSet   int `json:"parents_set"`
	// FieldsCreated counts the custom field definitions the import added
	// (the additive fields part; a key the org has is mapped, not counted).
	FieldsCreated int `json:"fields_created"`
	// TicketsUpdated are tickets a re-import of another tracker's file
	// changed (always 0 for a Tracker document, whose re-import skips).
	TicketsUpdated int `json:"tickets_updated"`
	// Written, for a file of another format, adds the dry run's keys.
	Written *sources.Summary `json:"-"`
}

// SummaryOf drops the bookkeeping counts.
func SummaryOf(c importdb.Counts) Summary {
	return Summary{UsersCreated: c.UsersCreated, WorkflowsCreated: c.WorkflowsCreated, LabelsCreated: c.LabelsCreated,
		ProjectsCreated: c.ProjectsCreated, SprintsCreated: c.SprintsCreated, TicketsCreated: c.TicketsCreated,
		CommentsCreated: c.CommentsCreated, TimeEntriesCreated: c.TimeEntriesCreated, TeamsCreated: c.TeamsCreated,
		LinksCreated: c.LinksCreated, ParentsSet: c.ParentsSet, TicketsUpdated: c.TicketsUpdated,
		FieldsCreated: c.FieldsCreated}
}

// MarshalJSON writes the counts and, for a file of another format, the
// dry run's keys counted as written (Written).
func (s Summary) MarshalJSON() ([]byte, error) {
	type plain Summary
	b, err := json.Marshal(plain(s))
	if err != nil || s.Written == nil {
		return b, err
	}
	w, err := json.Marshal(*s.Written)
	if err != nil {
		return nil, err
	}
	return append(append(b[:len(b)-1], ','), w[1:]...), nil
}

// written are the dry run's keys of an import of another format: the
// things the import wrote, and the people as the conversion found them.
func written(c importdb.Counts, r sources.Report) *sources.Summary {
	return &sources.Summary{Tickets: c.TicketsCreated, Comments: c.CommentsCreated, Labels: c.LabelsCreated,
		Sprints: c.SprintsCreated, Parents: c.ParentsSet, Links: c.LinksCreated, UsersMatched: r.Summary.UsersMatched,
		UsersInvited: r.Summary.UsersInvited, UsersUnresolved: r.Summary.UsersUnresolved}
}

// Progress is where a running import is.
type Progress struct {
	Stage            string `json:"stage"`
	TicketsTotal     int    `json:"tickets_total"`
	TicketsProcessed int    `json:"tickets_processed"`
	TicketsSkipped   int    `json:"tickets_skipped"`
}

// Status is an import as GET /imports/{id} renders it.
type Status struct {
	ID         uuid.UUID  `json:"id"`
	OrgID      uuid.UUID  `json:"org_id"`
	Format     string     `json:"format"`
	Status     string     `json:"status"`
	Progress   Progress   `json:"progress"`
	Summary    Summary    `json:"summary"`
	Errors     []string   `json:"errors"`
	CreatedAt  time.Time  `json:"created_at"`
	StartedAt  *time.Time `json:"started_at"`
	FinishedAt *time.Time `json:"finished_at"`
	// Problems are the conversion's problems of a file of another format.
	Problems []sources.Problem `json:"problems"`
}

// StatusOf renders an imports row.
func StatusOf(r importdb.Row) Status {
	processed := r.NextSeq - 1 // seq 0 is the catalog
	if processed < 0 {
		processed = 0
	}
	st := Status{ID: r.ID, OrgID: r.OrgID, Status: r.Status, Summary: SummaryOf(r.Counts), Errors: r.Errors,
		Progress:  Progress{Stage: r.Stage, TicketsTotal: r.TicketsTotal, TicketsProcessed: processed, TicketsSkipped: r.Counts.TicketsSkipped},
		CreatedAt: r.CreatedAt.UTC(), StartedAt: utcPtr(r.StartedAt), FinishedAt: utcPtr(r.FinishedAt)}
	if st.Errors == nil {
		st.Errors = []string{}
	}
	st.Format, st.Problems = r.Format, []sources.Problem{}
	if st.Format == "" {
		st.Format = "tracker_json"
	}
	var rep sources.Report
	if r.Report != nil && json.Unmarshal(r.Report, &rep) == nil {
		st.Summary.Written = written(r.Counts, rep)
		if rep.Problems != nil {
			st.Problems = rep.Problems
		}
	}
	return st
}

func utcPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

// Get reads an import (Admin of its org; non-members get 404).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Status, error) {
	row, err := importdb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID)
	if err != nil {
		return Status{}, domain.NotFoundAs(err, "import")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleAdmin, "import"); err != nil {
		return Status{}, err
	}
	return StatusOf(row.Row), nil
}

// List pages an org's imports, oldest first (Admin of the org; non-members
// get 404).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Status], error) {
	if _, err := domain.OrgAccess(ctx, s.DB.Q(), p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return domain.Paged[Status]{}, err
	}
	rows, err := importdb.List(ctx, s.DB.Q(), orgID, page)
	if err != nil {
		return domain.Paged[Status]{}, err
	}
	return domain.MapPage(rows, StatusOf), nil
}

// Cancel cancels a pending or running import (Admin of its org). It takes
// the import's row lock, so it waits for the batch under way to commit;
// the workflow then finds the import cancelled before its next step and
// ends. Everything imported so far stays, consistent (a batch commits its
// tickets with their comments, labels and time entries, or nothing), and
// submitting the same document again completes the import without
// duplicating anything (tickets already imported from that source are
// skipped). A finished import is a 409 naming its status.
func (s *Service) Cancel(ctx context.Context, p domain.Principal, id uuid.UUID) (Status, error) {
	row, err := importdb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID)
	if err != nil {
		return Status{}, domain.NotFoundAs(err, "import")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleAdmin, "import"); err != nil {
		return Status{}, err
	}
	var out Status
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		cur, err := importdb.Lock(ctx, q, id)
		if err != nil {
			return domain.NotFoundAs(err, "import")
		}
		if importdb.Finished(cur.Status) {
			return domain.Conflict("the import is already "+cur.Status, "status: "+cur.Status)
		}
		now := s.now()
		if err := importdb.Cancel(ctx, q, id, &p.UserID, now); err != nil {
			return err
		}
		if err := domain.Record(ctx, q, domain.Change{At: now, OrgID: cur.OrgID, ActorID: &p.UserID, EntityType: "import",
			EntityID: id, Action: "cancelled"}); err != nil {
			return err
		}
		if cur, err = importdb.Get(ctx, q, id); err != nil {
			return err
		}
		out = StatusOf(cur)
		return nil
	})
	if err == nil {
		// Its workflow drops the file too (Cancel), unless it already
		// ended; a missing object is success.
		_ = dropFile(ctx, s.files, row.Row)
	}
	return out, err
}

// Await polls an import until it finished or the wait is over (or ctx
// ends), and returns its state then.
func (s *Service) Await(ctx context.Context, id uuid.UUID) (Status, error) {
	wait, poll := s.Wait, s.Poll
	if wait <= 0 {
		wait = 3 * time.Second
	}
	if poll <= 0 {
		poll = 100 * time.Millisecond
	}
	expired := time.NewTimer(wait) // a wait, not a domain time: no clock needed
	defer expired.Stop()
	t := time.NewTicker(poll)
	defer t.Stop()
	last := false
	for {
		row, err := importdb.Get(ctx, s.DB.Q(), id)
		if err != nil {
			return Status{}, err
		}
		if importdb.Finished(row.Status) || last {
			return StatusOf(row), nil
		}
		select {
		case <-ctx.Done():
			return StatusOf(row), nil
		case <-expired.C:
			last = true // one more look, then answer
		case <-t.C:
		}
	}
}

// known answers validation's questions about the target org.
type known struct {
	q     store.Querier
	orgID uuid.UUID
}

func (k known) MemberEmails(ctx context.Context, emails []string) (map[string]bool, error) {
	return importdb.MemberEmails(ctx, k.q, k.orgID, emails)
}

func (k known) WorkflowNames(ctx context.Context, names []string) (map[string]bool, error) {
	return importdb.WorkflowNames(ctx, k.q, k.orgID, names)
}
