// Package view holds saved views: a named ticket query of an org with its
// sort and visible columns, private to its owner or shared with the org,
// run through domain/search.
package view

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/search"
	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/viewdb"
)

// Service runs the saved view use cases.
type Service struct {
	DB     *store.DB
	Search *search.Service
	clock  domain.Clock
}

// New builds the service.
func New(db *store.DB, clock domain.Clock) *Service {
	return &Service{DB: db, Search: search.New(db, clock), clock: clock}
}

// Visibility values.
const (
	Private = "private"
	Shared  = "shared"
)

// Columns a view may show, in the order docs/behaviour/saved-views.md lists
// them.
var Columns = []string{"key", "title", "status", "priority", "assignee", "reporter", "sprint", "labels",
	"parent", "created_at", "updated_at", "project"}

// View is a saved view as the API renders it.
type View struct {
	ID         uuid.UUID `json:"id"`
	OrgID      uuid.UUID `json:"org_id"`
	OwnerID    uuid.UUID `json:"owner_id"`
	Name       string    `json:"name"`
	Q          string    `json:"q"`
	Sort       *string   `json:"sort"`
	Columns    []string  `json:"columns"`
	Visibility string    `json:"visibility"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

func toView(r viewdb.Row) View {
	v := View{ID: r.ID, OrgID: r.OrgID, OwnerID: r.OwnerID, Name: r.Name, Q: r.Q, Columns: r.Columns,
		Visibility: Private, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.Sort != "" {
		s := r.Sort
		v.Sort = &s
	}
	if r.Shared {
		v.Visibility = Shared
	}
	if v.Columns == nil {
		v.Columns = []string{}
	}
	return v
}

// Input is a view's fields; absent fields keep their value on update.
type Input struct {
	Name       domain.Opt[string]
	Q          domain.Opt[string]
	Sort       domain.Opt[string]
	Columns    domain.Opt[[]string]
	Visibility domain.Opt[string]
}

// apply checks in and writes it onto r.
func (in Input) apply(r *viewdb.Row) error {
	var pr domain.Problems
	if in.Name.Set {
		n := strings.TrimSpace(in.Name.Value)
		if in.Name.Null || n == "" || utf8.RuneCountInString(n) > 100 {
			pr.Add("name", "must be 1-100 characters")
		}
		r.Name = n
	}
	if in.Q.Set {
		r.Q = in.Q.Value
		if _, err := search.Parse(r.Q); err != nil {
			return err
		}
	}
	if in.Sort.Set {
		r.Sort = ""
		if !in.Sort.Null && in.Sort.Value != "" {
			s, ok := searchquery.ParseSort(in.Sort.Value)
			if !ok {
				pr.Add("sort", "must be created, updated, priority, number, due, estimate or relevance, optionally with -asc or -desc")
			}
			r.Sort = s.String()
		}
	}
	if in.Columns.Set {
		r.Columns = []string{}
		seen := map[string]bool{}
		for _, c := range in.Columns.Value {
			if !contains(Columns, c) {
				pr.Add("columns", c+" is not a column (columns: "+strings.Join(Columns, ", ")+")")
				continue
			}
			if !seen[c] {
				seen[c] = true
				r.Columns = append(r.Columns, c)
			}
		}
	}
	if in.Visibility.Set {
		switch in.Visibility.Value {
		case Private:
			r.Shared = false
		case Shared:
			r.Shared = true
		default:
			pr.Add("visibility", "must be private or shared")
		}
	}
	return pr.Err()
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

const sharedNeedsMember = "sharing a view requires the member role"

// Create saves a view in orgID (any member; a shared view needs Member).
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, in Input) (View, error) {
	q := s.DB.Q()
	a, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization")
	if err != nil {
		return View{}, err
	}
	now := s.clock.Now()
	r := viewdb.Row{ID: domain.NewID(), OrgID: orgID, OwnerID: p.UserID, Columns: []string{}, CreatedAt: now, UpdatedAt: now}
	if !in.Name.Set {
		return View{}, domain.Invalid("name: required")
	}
	if err := in.apply(&r); err != nil {
		return View{}, err
	}
	if r.Shared && !a.At(domain.RoleMember) {
		return View{}, domain.Forbidden(sharedNeedsMember)
	}
	if err := viewdb.Insert(ctx, q, r); err != nil {
		return View{}, err
	}
	return toView(r), nil
}

// List pages the views of orgID the caller may see: shared ones and their own.
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[View], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[View]{}, err
	}
	rows, err := viewdb.Page(ctx, q, orgID, p.UserID, page)
	if err != nil {
		return domain.Paged[View]{}, err
	}
	return domain.MapPage(rows, toView), nil
}

// load reads a view the caller may see: a member of its org, and its owner
// unless it is shared (else 404).
func (s *Service) load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID) (viewdb.Row, domain.Access, error) {
	r, err := viewdb.Get(ctx, q, id)
	if errors.Is(err, store.ErrNotFound) {
		return r, domain.Access{}, domain.NotFound("view")
	}
	if err != nil {
		return r, domain.Access{}, err
	}
	a, err := domain.OrgAccess(ctx, q, p, r.OrgID, domain.RoleViewer, "view")
	if err != nil {
		return r, a, err
	}
	if !r.Shared && r.OwnerID != p.UserID {
		return r, a, domain.NotFound("view")
	}
	return r, a, nil
}

// Get reads a view.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (View, error) {
	r, _, err := s.load(ctx, s.DB.Q(), p, id)
	if err != nil {
		return View{}, err
	}
	return toView(r), nil
}

// mayChange: the owner, or an Admin for a shared view (a private view of
// someone else is already a 404).
func mayChange(p domain.Principal, r viewdb.Row, a domain.Access) error {
	if r.OwnerID == p.UserID || (r.Shared && a.At(domain.RoleAdmin)) {
		return nil
	}
	return domain.Forbidden("only the view's owner or an Admin may change it")
}

// Update changes a view (its owner; an Admin for a shared one).
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in Input) (View, error) {
	var out View
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		r, a, err := s.load(ctx, q, p, id)
		if err != nil {
			return err
		}
		if err := mayChange(p, r, a); err != nil {
			return err
		}
		if err := in.apply(&r); err != nil {
			return err
		}
		if r.Shared && !a.At(domain.RoleMember) {
			return domain.Forbidden(sharedNeedsMember)
		}
		r.UpdatedAt = s.clock.Now()
		if err := viewdb.Update(ctx, q, r); err != nil {
			return err
		}
		out = toView(r)
		return nil
	})
	return out, err
}

// Delete removes a view (its owner; an Admin for a shared one).
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		r, a, err := s.load(ctx, q, p, id)
		if err != nil {
			return err
		}
		if err := mayChange(p, r, a); err != nil {
			return err
		}
		return viewdb.Delete(ctx, q, r.OrgID, r.ID)
	})
}

// Tickets runs a view: its query and sort over the org's tickets the caller
// may see (r carries paging and count).
func (s *Service) Tickets(ctx context.Context, p domain.Principal, id uuid.UUID, r search.Request) (View, search.Result, error) {
	v, _, err := s.load(ctx, s.DB.Q(), p, id)
	if err != nil {
		return View{}, search.Result{}, err
	}
	r.Q, r.Sort = v.Q, v.Sort
	res, err := s.Search.Org(ctx, p, v.OrgID, r)
	return toView(v), res, err
}
