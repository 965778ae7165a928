// Package search runs ticket queries (the language of domain/search/query)
// for a project or across an org, showing only what the caller may see, with
// keyset pagination for every sort and an optional capped total.
package search

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/domain/ticket"
	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/searchdb"
	"tracker/store/ticketdb"
)

// Service runs ticket searches.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time (ages such as 7d) by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// MaxTotal caps count=true: beyond it the total is reported as MaxTotal with
// total_capped.
const MaxTotal = 10000

// Request is one page of a search.
type Request struct {
	Q      string
	Cursor string
	Limit  int
	Count  bool
	// Extra is ANDed to the query (the legacy status and priority
	// parameters of the project list); AssigneeID too (assignee_id).
	Extra      []searchquery.Node
	AssigneeID uuid.UUID
	// Sort, when set (a saved view's), replaces the query's sort.
	Sort string
}

// parse parses r.Q and applies r.Sort.
func (r Request) parse() (searchquery.Query, error) {
	pq, err := Parse(r.Q)
	if err != nil {
		return pq, err
	}
	if r.Sort != "" {
		s, ok := searchquery.ParseSort(r.Sort)
		if !ok {
			return pq, domain.Invalid("sort: must be created, updated, priority, number or relevance, optionally with -asc or -desc")
		}
		pq.Sort = s
	}
	return pq, nil
}

// Result is one page of tickets, the cursor of the next one, and the total
// when asked.
type Result struct {
	Items       []ticket.Ticket
	NextCursor  *string
	Total       *int
	TotalCapped bool
}

// Parse parses q, turning a syntax error into the 422 the API answers.
func Parse(q string) (searchquery.Query, error) {
	pq, err := searchquery.Parse(q)
	if err != nil {
		return pq, QueryError(err)
	}
	return pq, nil
}

// QueryError is the 422 of a query error, naming its position.
func QueryError(err error) error {
	var qe *searchquery.Error
	if errors.As(err, &qe) {
		return &domain.Error{Kind: domain.KindValidation,
			Message: "invalid query at position " + strconv.Itoa(qe.Pos) + ": " + qe.Msg,
			Details: []string{"q: position " + strconv.Itoa(qe.Pos) + ": " + qe.Msg}}
	}
	return err
}

// Project searches a project's tickets (any role; a Reporter only in an
// assigned project; a key only in its projects).
func (s *Service) Project(ctx context.Context, p domain.Principal, projectID uuid.UUID, r Request) (Result, error) {
	pq, err := r.parse()
	if err != nil {
		return Result{}, err
	}
	q := s.DB.Q()
	row, err := store.ProjectMembership(ctx, q, projectID, p.UserID)
	if err != nil {
		return Result{}, domain.NotFoundAs(err, "project")
	}
	a, err := domain.Authorize(p, domain.MembershipFrom(row), domain.RoleViewer, "project")
	if err != nil {
		return Result{}, err
	}
	sr := s.search(p, a.OrgID, pq, r)
	sr.ProjectID = &projectID
	return s.run(ctx, q, sr, r)
}

// Org searches every ticket of an org the caller may see: a Reporter only
// those of assigned projects, a key restricted to projects only those.
func (s *Service) Org(ctx context.Context, p domain.Principal, orgID uuid.UUID, r Request) (Result, error) {
	pq, err := r.parse()
	if err != nil {
		return Result{}, err
	}
	q := s.DB.Q()
	a, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization") // filtered below
	if err != nil {
		return Result{}, err
	}
	sr := s.search(p, orgID, pq, r)
	sr.AssignedTo, sr.OnlyProjects = p.Visible(a.Member)
	return s.run(ctx, q, sr, r)
}

var defaultStatuses, _ = json.Marshal(statusflow.DefaultStatuses())

func (s *Service) search(p domain.Principal, orgID uuid.UUID, pq searchquery.Query, r Request) searchdb.Search {
	root := pq.Root
	if len(r.Extra) > 0 {
		terms := append([]searchquery.Node{}, r.Extra...)
		if root != nil {
			terms = append(terms, root)
		}
		root = searchquery.And{Terms: terms}
	}
	return searchdb.Search{
		Env:  searchdb.Env{OrgID: orgID, UserID: p.UserID, Now: s.clock.Now(), DefaultStatuses: defaultStatuses},
		Root: root, Sort: pq.Sort, RankText: pq.RankText(), Limit: r.Limit, AssigneeID: r.AssigneeID,
	}
}

func (s *Service) run(ctx context.Context, q store.Querier, sr searchdb.Search, r Request) (Result, error) {
	if err := resolveCustom(ctx, q, &sr); err != nil {
		return Result{}, QueryError(err)
	}
	if r.Cursor != "" {
		k, ok := DecodeCursor(r.Cursor, sr.Sort)
		if !ok {
			return Result{}, domain.Invalid("cursor: not a cursor returned by this list with this sort")
		}
		sr.After = &k
	}
	// Names and typo probes once for the page and the count (List and
	// Count resolve only a search not resolved yet).
	sr, err := searchdb.Resolve(ctx, q, sr)
	if err != nil {
		return Result{}, err
	}
	rows, next, err := searchdb.List(ctx, q, sr)
	if err != nil {
		return Result{}, err
	}
	out := Result{Items: make([]ticket.Ticket, 0, len(rows))}
	for _, row := range rows {
		out.Items = append(out.Items, ticket.FromRow(row))
	}
	if next != nil {
		c := EncodeCursor(*next, sr.Sort)
		out.NextCursor = &c
	}
	if r.Count {
		sr.After = nil
		n, err := searchdb.Count(ctx, q, sr, MaxTotal)
		if err != nil {
			return Result{}, err
		}
		if n > MaxTotal {
			n, out.TotalCapped = MaxTotal, true
		}
		out.Total = &n
	}
	return out, nil
}

// cursor is the content of a sorted list's cursor: the sort, its key and
// the id.
type cursor struct {
	Sort string    `json:"s"`
	Time time.Time `json:"t,omitzero"`
	Int  int64     `json:"n,omitempty"`
	Rank float32   `json:"r,omitempty"`
	Num  string    `json:"v,omitempty"`
	ID   uuid.UUID `json:"i"`
}

// EncodeCursor makes the opaque cursor of a row's position. The default
// order (creation, by id) keeps the plain id cursor of every other list.
func EncodeCursor(k searchdb.Key, s searchquery.Sort) string {
	if s.Key == searchquery.SortID && !s.Desc {
		return base64.RawURLEncoding.EncodeToString(k.ID[:])
	}
	b, _ := json.Marshal(cursor{Sort: s.String(), Time: k.Time.UTC(), Int: k.Int, Rank: k.Rank, Num: k.Num, ID: k.ID})
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeCursor reads a cursor made by EncodeCursor for the same sort. A CR
// or LF is refused: Go's base64 decoder skips them even in Strict mode, so
// they would give one cursor a second spelling; so is any other text that
// EncodeCursor would not write for the key it holds (another field order,
// a time not in UTC). A key no row can have in the sort (a number beyond
// the int4 column, a priority rank outside the list) is refused too: it
// would reach SQL as a value its column cannot take (a 500, not a 422).
func DecodeCursor(c string, s searchquery.Sort) (searchdb.Key, bool) {
	if strings.ContainsAny(c, "\r\n") {
		return searchdb.Key{}, false
	}
	b, err := base64.RawURLEncoding.Strict().DecodeString(c)
	if err != nil || len(b) > 200 {
		return searchdb.Key{}, false
	}
	if s.Key == searchquery.SortID && !s.Desc {
		id, err := uuid.FromBytes(b)
		return searchdb.Key{ID: id}, err == nil && id != uuid.Nil
	}
	var cu cursor
	if err := json.Unmarshal(b, &cu); err != nil || cu.Sort != s.String() || cu.ID == uuid.Nil {
		return searchdb.Key{}, false
	}
	k := searchdb.Key{ID: cu.ID, Time: cu.Time, Int: cu.Int, Rank: cu.Rank, Num: cu.Num}
	if !inRange(k, s) || EncodeCursor(k, s) != c {
		return searchdb.Key{}, false
	}
	return k, true
}

// inRange tells whether a key is one a row can have in sort s: the sort's
// own value fits the column or expression SQL compares it with, and the
// values of other sorts are unset (so a position has one cursor).
func inRange(k searchdb.Key, s searchquery.Sort) bool {
	// A time decodes from JSON only within years 0000-9999, which
	// timestamptz holds; a rank only as a finite float32.
	if s.Key != searchquery.SortCustom || s.CustomType != "number" {
		if k.Num != "" {
			return false
		}
	}
	switch s.Key {
	case searchquery.SortCustom:
		if s.CustomType == "number" {
			return (numberRE.MatchString(k.Num) && len(k.Num) <= 200 || k.Num == "Infinity" || k.Num == "-Infinity") &&
				k.Int == 0 && k.Time.IsZero() && k.Rank == 0
		}
		return k.Int >= math.MinInt32 && k.Int <= math.MaxInt32 && k.Time.IsZero() && k.Rank == 0
	case searchquery.SortNumber:
		return k.Int >= math.MinInt32 && k.Int <= math.MaxInt32 && k.Time.IsZero() && k.Rank == 0
	case searchquery.SortPriority:
		return k.Int >= 0 && k.Int < int64(len(searchquery.Priorities)) && k.Time.IsZero() && k.Rank == 0
	case searchquery.SortDue:
		return k.Int >= math.MinInt32 && k.Int <= math.MaxInt32 && k.Time.IsZero() && k.Rank == 0
	case searchquery.SortEstimate:
		return k.Int >= -1 && k.Time.IsZero() && k.Rank == 0
	case searchquery.SortCreated, searchquery.SortUpdated:
		return k.Int == 0 && k.Rank == 0
	case searchquery.SortRelevance:
		return k.Int == 0 && k.Time.IsZero()
	}
	return k.Int == 0 && k.Time.IsZero() && k.Rank == 0
}

// Progress is the state of a parent's children: how many, how many done,
// and the count per status category.
type Progress struct {
	Total      int            `json:"total"`
	Done       int            `json:"done"`
	ByCategory map[string]int `json:"by_category"`
}

// Children pages the children of a visible ticket (any role), narrowed by
// q, with the progress of all of them: only children the caller may see
// (a Reporter's assigned projects, a key's projects) are listed and counted.
func (s *Service) Children(ctx context.Context, p domain.Principal, id uuid.UUID, r Request) (Result, Progress, error) {
	pq, err := r.parse()
	if err != nil {
		return Result{}, Progress{}, err
	}
	q := s.DB.Q()
	t, err := ticketdb.GetWithAccess(ctx, q, id, p.UserID)
	if err != nil {
		return Result{}, Progress{}, domain.NotFoundAs(err, "ticket")
	}
	m := domain.MembershipFrom(t.AccessRow)
	if _, err := domain.Authorize(p, m, domain.RoleViewer, "ticket"); err != nil {
		return Result{}, Progress{}, err
	}
	sr := s.search(p, t.Row.OrgID, pq, r)
	sr.ParentID = &id
	sr.AssignedTo, sr.OnlyProjects = p.Visible(m.Role)
	res, err := s.run(ctx, q, sr, r)
	if err != nil {
		return Result{}, Progress{}, err
	}
	all := sr
	all.Root, all.After = nil, nil
	counts, err := searchdb.Progress(ctx, q, all)
	if err != nil {
		return Result{}, Progress{}, err
	}
	pr := Progress{ByCategory: map[string]int{}}
	for _, c := range append([]string{}, searchquery.Categories...) {
		pr.ByCategory[c] = 0
	}
	for c, n := range counts {
		pr.ByCategory[c] = n
		pr.Total += n
	}
	pr.Done = pr.ByCategory[statusflow.CategoryDone]
	return res, pr, nil
}

// SprintTickets reads the tickets of a sprint (in project projectID of
// orgID, already authorized) matching q, by number, at most max.
func (s *Service) SprintTickets(ctx context.Context, p domain.Principal, orgID, projectID, sprintID uuid.UUID, q string, max int) ([]ticketdb.Row, error) {
	pq, err := Parse(q)
	if err != nil {
		return nil, err
	}
	sr := s.search(p, orgID, pq, Request{})
	sr.ProjectID, sr.SprintID = &projectID, &sprintID
	if err := resolveCustom(ctx, s.DB.Q(), &sr); err != nil {
		return nil, QueryError(err)
	}
	return searchdb.All(ctx, s.DB.Q(), sr, max)
}

// CheckCustom checks root's cf.<key> terms against orgID's fields: an
// unknown key or a value its type cannot hold is a *searchquery.Error.
func CheckCustom(ctx context.Context, q store.Querier, orgID uuid.UUID, root searchquery.Node) error {
	sr := searchdb.Search{Env: searchdb.Env{OrgID: orgID}, Root: root}
	return resolveCustom(ctx, q, &sr)
}

// FirstMatching is, for each ticket of orgID (of its live projects) among
// the ids among selects (one column, read once) that one of roots matches,
// the index of the first root that does, in one query: the rules of a
// capitalization policy, where the first matching rule decides. A nil
// root matches nothing. An error of one root is a *searchdb.RootError
// naming it.
func FirstMatching(ctx context.Context, q store.Querier, orgID uuid.UUID, roots []searchquery.Node, among sq.Sqlizer,
	now time.Time) (map[uuid.UUID]int, error) {
	var srs []searchdb.Search
	var at []int // the root of each search
	for i, root := range roots {
		if root == nil {
			continue
		}
		sr := searchdb.Search{Env: searchdb.Env{OrgID: orgID, Now: now, DefaultStatuses: defaultStatuses}, Root: root}
		if err := resolveCustom(ctx, q, &sr); err != nil {
			return nil, &searchdb.RootError{Index: i, Err: err}
		}
		srs, at = append(srs, sr), append(at, i)
	}
	got, err := searchdb.FirstMatches(ctx, q, srs, among)
	var re *searchdb.RootError
	if errors.As(err, &re) {
		return nil, &searchdb.RootError{Index: at[re.Index], Err: re.Err}
	}
	if err != nil {
		return nil, err
	}
	for id, i := range got {
		got[id] = at[i]
	}
	return got, nil
}
