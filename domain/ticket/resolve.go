package ticket

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/searchdb"
	"tracker/store/ticketdb"
)

// MaxSuggestions caps the suggestions of a resolve that found nothing.
const MaxSuggestions = 5

// Ref is the subset of a ticket that resolve returns, with its human key
// (PROJECTKEY-NUMBER).
type Ref struct {
	ID           uuid.UUID `json:"id"`
	ProjectID    uuid.UUID `json:"project_id"`
	TicketNumber int32     `json:"ticket_number"`
	Title        string    `json:"title"`
	Status       string    `json:"status"`
	Priority     string    `json:"priority"`
	Key          string    `json:"key"`
}

func toRef(k ticketdb.Keyed) Ref {
	return Ref{ID: k.Row.ID, ProjectID: k.Row.ProjectID, TicketNumber: k.Row.TicketNumber, Title: k.Row.Title,
		Status: k.Row.Status, Priority: k.Row.Priority, Key: fmt.Sprintf("%s-%d", k.ProjectKey, k.Row.TicketNumber)}
}

// Resolution is the answer of resolve: the ticket, or null with suggestions
// when the reference matches nothing the caller can see.
type Resolution struct {
	Ticket      *Ref  `json:"ticket"`
	Suggestions []Ref `json:"suggestions"`
}

// Resolve finds a ticket by reference: a UUID, KEY-NUMBER (key in any case,
// in orgID, default the caller's session org) or a bare number (in
// projectID, required then). Not finding it is not an error: the answer has
// ticket null and up to MaxSuggestions tickets with the same number in other
// projects of the org or a title containing the reference. A ticket the
// caller may not see is not found either, with the same answer. A
// reference no ticket here has is looked up among the keys imported
// tickets had in their tracker (external_key: PROJ-123, owner/repo#45).
// Any other text is searched in titles only.
func (s *Service) Resolve(ctx context.Context, p domain.Principal, ref string, projectID, orgID uuid.UUID) (Resolution, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return Resolution{}, domain.Invalid("ref: required")
	}
	explicitOrg := orgID != uuid.Nil
	if !explicitOrg {
		orgID = p.OrgID
	}
	q := s.DB.Q()
	if id, err := uuid.Parse(ref); err == nil {
		k, err := ticketdb.KeyedByID(ctx, q, id, p.UserID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return Resolution{}, err
		}
		// A ticket of another org (named, or one the caller is not in) is a
		// miss like a missing one: its existence is not revealed.
		if err == nil && (!explicitOrg || k.Row.OrgID == orgID) && visible(p, k) {
			return found(k), nil
		}
		return s.miss(ctx, q, p, orgID, "", 0, uuid.Nil)
	}
	key, n, isRef := ParseRef(ref)
	if isRef && key == "" {
		if projectID == uuid.Nil {
			return Resolution{}, domain.Invalid("project_id: required to resolve a bare ticket number")
		}
		a, err := domain.ProjectAccess(ctx, q, p, projectID, domain.RoleViewer, "project")
		if err != nil {
			return Resolution{}, err
		}
		k, err := ticketdb.KeyedByNumber(ctx, q, projectID, p.UserID, n)
		if err == nil && visible(p, k) {
			return found(k), nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return Resolution{}, err
		}
		return s.suggest(ctx, q, p, a, ref, n, projectID)
	}
	if isRef {
		a, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization")
		if err != nil {
			return Resolution{}, err
		}
		k, err := ticketdb.KeyedByKey(ctx, q, orgID, p.UserID, key, n)
		if err == nil && visible(p, k) {
			return found(k), nil
		}
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return Resolution{}, err
		}
		if r, ok, err := external(ctx, q, p, orgID, ref); err != nil || ok {
			return r, err
		}
		return s.suggest(ctx, q, p, a, ref, n, uuid.Nil)
	}
	if r, ok, err := external(ctx, q, p, orgID, ref); err != nil || ok {
		return r, err
	}
	return s.miss(ctx, q, p, orgID, ref, 0, uuid.Nil)
}

// external finds a visible ticket of the org imported under the key ref
// had in another tracker (PROJ-123 from Jira, owner/repo#45 from GitHub).
func external(ctx context.Context, q store.Querier, p domain.Principal, orgID uuid.UUID, ref string) (Resolution, bool, error) {
	k, err := ticketdb.KeyedByExternal(ctx, q, orgID, p.UserID, ref)
	if errors.Is(err, store.ErrNotFound) {
		return Resolution{}, false, nil
	}
	if err != nil {
		return Resolution{}, false, err
	}
	if !visible(p, k) {
		return Resolution{}, false, nil
	}
	return found(k), true, nil
}

// visible tells whether the caller may read a ticket a reference found. One
// it may not (another org's, a project outside an API key's projects, a
// Reporter's unassigned project) is answered as a miss, with the
// suggestions of a ticket that does not exist: a 403 would tell a hidden
// ticket from a missing one.
func visible(p domain.Principal, k ticketdb.Keyed) bool {
	_, err := domain.Authorize(p, domain.MembershipFrom(k.AccessRow), domain.RoleViewer, "ticket")
	return err == nil
}

func found(k ticketdb.Keyed) Resolution {
	r := toRef(k)
	return Resolution{Ticket: &r, Suggestions: []Ref{}}
}

// miss is the answer for a reference that matched nothing, once the caller
// is known to be a member of the org (else 404).
func (s *Service) miss(ctx context.Context, q store.Querier, p domain.Principal, orgID uuid.UUID, text string, number int64, exclude uuid.UUID) (Resolution, error) {
	a, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization")
	if err != nil {
		return Resolution{}, err
	}
	return s.suggest(ctx, q, p, a, text, number, exclude)
}

// suggest lists visible tickets numbered number in projects other than
// exclude, then tickets whose title contains text, then tickets whose title
// has words similar to text's (typos), each group newest first (numbered:
// newest project first), at most MaxSuggestions in all. What the caller may
// see is part of the SQL (a Reporter's assigned projects, a key's projects:
// searchdb.Search, from the access a the caller was authorized with), so
// tickets hidden from the caller never take the place of visible ones; each
// suggestion is still authorized on its access row.
func (s *Service) suggest(ctx context.Context, q store.Querier, p domain.Principal, a domain.Access, text string, number int64, exclude uuid.UUID) (Resolution, error) {
	out := Resolution{Suggestions: []Ref{}}
	sr := searchdb.Search{Env: searchdb.Env{OrgID: a.OrgID, UserID: p.UserID}}
	sr.AssignedTo, sr.OnlyProjects = p.Visible(a.Member)
	seen := map[uuid.UUID]bool{}
	add := func(ids []uuid.UUID, exclude uuid.UUID) error {
		ks, err := ticketdb.KeyedByIDs(ctx, q, ids, p.UserID)
		if err != nil {
			return err
		}
		for _, k := range ks {
			if len(out.Suggestions) == MaxSuggestions || seen[k.Row.ID] || k.Row.ProjectID == exclude {
				continue
			}
			if _, err := domain.Authorize(p, domain.MembershipFrom(k.AccessRow), domain.RoleViewer, "ticket"); err != nil {
				continue
			}
			seen[k.Row.ID] = true
			out.Suggestions = append(out.Suggestions, toRef(k))
		}
		return nil
	}
	// Each group reads enough for the rest after those already suggested
	// (a later group finds earlier ones again) and, for numbers, one in the
	// excluded project.
	var groups []func(limit int) error
	if number > 0 {
		groups = append(groups, func(limit int) error {
			ids, err := searchdb.NumberedIDs(ctx, q, sr, number, limit+1)
			if err != nil {
				return err
			}
			return add(ids, exclude)
		})
	}
	if text != "" {
		groups = append(groups, func(limit int) error {
			ids, err := searchdb.TitleContainsIDs(ctx, q, sr, text, limit)
			if err != nil {
				return err
			}
			return add(ids, uuid.Nil)
		}, func(limit int) error {
			ids, err := searchdb.TitleSimilarIDs(ctx, q, sr, text, limit)
			if err != nil {
				return err
			}
			return add(ids, uuid.Nil)
		})
	}
	for _, g := range groups {
		if len(out.Suggestions) == MaxSuggestions {
			break
		}
		if err := g(MaxSuggestions + len(out.Suggestions)); err != nil {
			return Resolution{}, err
		}
	}
	return out, nil
}
