package export

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/labeldb"
)

// Formats of GET /export.
const (
	FormatJSON   = "json"
	FormatSQLite = "sqlite"
)

// Service exports organizations.
type Service struct {
	DB *store.DB
	// BatchSize is the tickets read per query (default 1000): memory stays
	// bounded by one batch whatever the size of the organization.
	BatchSize int
	clock     domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Scope is an authorized export: the org and, optionally, one project.
type Scope struct {
	Org       exportdb.Org
	ProjectID uuid.UUID // uuid.Nil: every live project
	At        time.Time
}

// Prepare authorizes an export (Admin of the org: the document holds every
// member's email and all financial entries; so an API key restricted to
// projects gets 403 even for one project) and resolves the project key.
// A non-member gets 404; an unknown project key 404 as well.
func (s *Service) Prepare(ctx context.Context, p domain.Principal, orgID uuid.UUID, projectKey string) (Scope, error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return Scope{}, err
	}
	org, err := exportdb.GetOrg(ctx, q, orgID)
	if err != nil {
		return Scope{}, domain.NotFoundAs(err, "organization")
	}
	sc := Scope{Org: org, At: s.now()}
	if projectKey != "" {
		id, err := exportdb.ProjectID(ctx, q, orgID, projectKey)
		if err != nil {
			return Scope{}, domain.NotFoundAs(err, "project")
		}
		sc.ProjectID = id
	}
	return sc, nil
}

func (s *Service) now() time.Time { return s.clock.Now() }

func (s *Service) batch() int {
	if s.BatchSize > 0 {
		return s.BatchSize
	}
	return 1000
}

// Header is the document's top level before its arrays.
type Header struct {
	Version    int
	Source     string
	ExportedAt time.Time
}

// sink receives the document piece by piece, in document order; Project
// carries members and sprints, its tickets follow one by one.
type sink interface {
	header(Header) error
	users([]User) error
	workflows([]Workflow) error
	labels([]Label) error
	teams([]Team) error
	fields([]CustomField) error
	project(Project) error
	ticket(projectKey string, t Ticket) error
	endProject() error
	end() error
}

// errMissingUser is a reference to a user the snapshot did not list: it
// cannot happen in a consistent snapshot.
var errMissingUser = errors.New("export: referenced user missing from the snapshot")

// walk reads the scope in one snapshot and feeds the sink, which runs in
// a goroutine of its own.
func (s *Service) walk(ctx context.Context, sc Scope, out sink) error {
	p := startPipe(out)
	err := s.read(ctx, sc, p)
	if cerr := p.close(); err == nil {
		err = cerr
	}
	return err
}

func (s *Service) read(ctx context.Context, sc Scope, out sink) error {
	return exportdb.Snapshot(ctx, s.DB, func(q store.Querier) error {
		if err := out.header(Header{Version: Version, Source: Source(sc.Org.Slug), ExportedAt: sc.At}); err != nil {
			return err
		}
		rows, err := exportdb.Users(ctx, q, sc.Org.ID, sc.ProjectID)
		if err != nil {
			return err
		}
		emails := make(map[uuid.UUID]string, len(rows))
		users := make([]User, len(rows))
		for i, r := range rows {
			emails[r.ID] = r.Email
			users[i] = User{Email: r.Email, DisplayName: r.DisplayName}
			if r.Role != "" {
				role := domain.ParseRole(r.Role).String()
				users[i].Role = &role
			}
		}
		if err := out.users(users); err != nil {
			return err
		}
		if err := s.catalog(ctx, q, sc, out); err != nil {
			return err
		}
		projects, err := exportdb.Projects(ctx, q, sc.Org.ID, sc.ProjectID)
		if err != nil {
			return err
		}
		fields, err := s.customFields(ctx, q, sc, projects, out)
		if err != nil {
			return err
		}
		pw := projectWalker{ctx: ctx, q: q, emails: emails, batch: s.batch(), out: out, fields: fields}
		for _, p := range projects {
			if err := pw.walk(p); err != nil {
				return err
			}
		}
		return out.end()
	})
}

// catalog feeds the org's workflows and labels.
func (s *Service) catalog(ctx context.Context, q store.Querier, sc Scope, out sink) error {
	wrows, err := exportdb.Workflows(ctx, q, sc.Org.ID)
	if err != nil {
		return err
	}
	wfs := make([]Workflow, len(wrows))
	for i, w := range wrows {
		if wfs[i], err = workflowOf(w); err != nil {
			return err
		}
	}
	if err := out.workflows(wfs); err != nil {
		return err
	}
	lrows, err := labeldb.Export(ctx, q, sc.Org.ID)
	if err != nil {
		return err
	}
	labels := make([]Label, len(lrows))
	for i, l := range lrows {
		labels[i] = Label{l.Content}
	}
	if err := out.labels(labels); err != nil {
		return err
	}
	return s.teams(ctx, q, sc, out)
}

// teams feeds the org's teams (a project's export: the project's team) with
// the members the document lists.
func (s *Service) teams(ctx context.Context, q store.Querier, sc Scope, out sink) error {
	rows, err := exportdb.Teams(ctx, q, sc.Org.ID, sc.ProjectID)
	if err != nil {
		return err
	}
	teams := make([]Team, len(rows))
	for i, r := range rows {
		teams[i] = Team{Name: r.Name, Members: r.Members}
		if teams[i].Members == nil {
			teams[i].Members = []string{}
		}
	}
	return out.teams(teams)
}
