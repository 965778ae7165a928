package ticket

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Moved is a ticket a batch transition moved (or found already there).
type Moved struct {
	ID      uuid.UUID `json:"id"`
	Status  string    `json:"status"`
	Warning string    `json:"warning,omitempty"`
}

// Failed is a ticket a batch transition could not move, and why.
type Failed struct {
	ID     string `json:"id"`
	Reason string `json:"reason"`
}

// BatchTransitionResult is the answer of a batch transition.
type BatchTransitionResult struct {
	Succeeded []Moved  `json:"succeeded"`
	Failed    []Failed `json:"failed"`
}

// BatchTransition moves many tickets to one status, each validated on its
// own against its project's workflow and the caller's role there; a failure
// is reported per ticket and does not fail the call. Tickets the caller cannot
// see fail with "not found". The moves commit in one transaction.
func (s *Service) BatchTransition(ctx context.Context, p domain.Principal, ids []string, to string) (BatchTransitionResult, error) {
	if strings.TrimSpace(to) == "" {
		return BatchTransitionResult{}, domain.Invalid("to_status: required")
	}
	parsed, bad, err := parseIDs(ids)
	if err != nil {
		return BatchTransitionResult{}, err
	}
	var out BatchTransitionResult
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		out = BatchTransitionResult{Succeeded: []Moved{}, Failed: []Failed{}}
		for _, b := range bad {
			out.Failed = append(out.Failed, Failed{ID: b, Reason: "not found"})
		}
		rows, err := ticketdb.ManyForChange(ctx, q, parsed, p.UserID, true)
		if err != nil {
			return err
		}
		byID := make(map[uuid.UUID]ticketdb.ForChange, len(rows))
		for _, r := range rows {
			byID[r.Row.ID] = r
		}
		for _, id := range parsed {
			t, found := byID[id]
			if !found {
				out.Failed = append(out.Failed, Failed{ID: id.String(), Reason: "not found"})
				continue
			}
			moved, err := s.moveOne(ctx, q, p, t, to)
			if fail, ok := asFailure(err); ok {
				out.Failed = append(out.Failed, Failed{ID: id.String(), Reason: fail})
				continue
			}
			if err != nil {
				return err
			}
			out.Succeeded = append(out.Succeeded, moved)
		}
		return nil
	})
	return out, err
}

func (s *Service) moveOne(ctx context.Context, q store.Querier, p domain.Principal, t ticketdb.ForChange, to string) (Moved, error) {
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleMember, "ticket"); err != nil {
		return Moved{}, err
	}
	rules, err := s.rulesOf(t.WorkflowRow)
	if err != nil {
		return Moved{}, err
	}
	pl, err := planFor(t.Row, rules, statusPatch(to))
	if err != nil {
		return Moved{}, err
	}
	after, err := s.apply(ctx, q, Person(p), t.Row, pl)
	if err != nil {
		return Moved{}, err
	}
	return Moved{ID: after.ID, Status: after.Status, Warning: pl.warning}, nil
}

// asFailure turns a per-ticket rule error into its reason; a non-member's
// ticket is "not found" as on every other route.
func asFailure(err error) (string, bool) {
	if err == nil {
		return "", false
	}
	de := domain.AsError(err)
	switch de.Kind {
	case domain.KindNotFound:
		return "not found", true
	case domain.KindForbidden, domain.KindValidation:
		return reason(err), true
	}
	return "", false
}

// Transitions is the answer of GET /tickets/{id}/transitions.
type Transitions struct {
	CurrentStatus string              `json:"current_status"`
	Available     []statusflow.Status `json:"available"`
}

// AvailableTransitions is the answer of GET /tickets/{id}/available-transitions:
// every status a move to is allowed now (strict: listed moves only), each
// flagged as listed or not, with the governing workflow and its enforcement.
type AvailableTransitions struct {
	CurrentStatus string              `json:"current_status"`
	Workflow      string              `json:"workflow"`
	Enforcement   string              `json:"enforcement"`
	Transitions   []statusflow.Option `json:"transitions"`
}

func (s *Service) rulesFor(ctx context.Context, p domain.Principal, id uuid.UUID) (ticketdb.ForChange, statusflow.Rules, error) {
	t, err := ticketdb.GetForChange(ctx, s.DB.Q(), id, p.UserID, false)
	if err != nil {
		return t, statusflow.Rules{}, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), domain.RoleViewer, "ticket"); err != nil {
		return t, statusflow.Rules{}, err
	}
	rules, err := s.rulesOf(t.WorkflowRow)
	return t, rules, err
}

// Transitions lists the statuses reachable from the ticket's current one by
// listed transitions (under enforcement none: every other status).
func (s *Service) Transitions(ctx context.Context, p domain.Principal, id uuid.UUID) (Transitions, error) {
	t, rules, err := s.rulesFor(ctx, p, id)
	if err != nil {
		return Transitions{}, err
	}
	return Transitions{CurrentStatus: t.Row.Status, Available: rules.Reachable(t.Row.Status)}, nil
}

// Available lists the allowed moves with their listed flag.
func (s *Service) Available(ctx context.Context, p domain.Principal, id uuid.UUID) (AvailableTransitions, error) {
	t, rules, err := s.rulesFor(ctx, p, id)
	if err != nil {
		return AvailableTransitions{}, err
	}
	return AvailableTransitions{CurrentStatus: t.Row.Status, Workflow: rules.Name, Enforcement: rules.Enforcement,
		Transitions: rules.Options(t.Row.Status)}, nil
}
