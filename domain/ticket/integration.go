package ticket

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/ticketdb"
)

// Actor is who a change is recorded as: a person, or an integration acting
// on its own authority with what it acted through (Via, on the audit row).
type Actor struct {
	ID  uuid.UUID
	Via any
}

// Person is the actor of a request made by p.
func Person(p domain.Principal) Actor { return Actor{ID: p.UserID} }

// RulesFor is the workflow governing a ticket read for a change.
func (s *Service) RulesFor(t ticketdb.ForChange) (statusflow.Rules, error) {
	return s.rulesOf(t.WorkflowRow)
}

// MoveAs is the transition use case for an integration that has already
// authenticated its caller (a verified signature) and chosen the org: no
// membership check, but the workflow's enforcement applies exactly as for
// a person (strict + unlisted → the 422 error; warn → Moved.Warning), and the
// move is recorded as usual (audit row by the actor with its Via, a
// ticket.status_changed event). Moving to the current status changes
// nothing. t must have been read with its row locked in q's transaction.
func (s *Service) MoveAs(ctx context.Context, q store.Querier, by Actor, t ticketdb.ForChange, to string) (Moved, error) {
	rules, err := s.rulesOf(t.WorkflowRow)
	if err != nil {
		return Moved{}, err
	}
	pl, err := planFor(t.Row, rules, statusPatch(to))
	if err != nil {
		return Moved{}, err
	}
	after, err := s.apply(ctx, q, by, t.Row, pl)
	if err != nil {
		return Moved{}, err
	}
	return Moved{ID: after.ID, Status: after.Status, Warning: pl.warning}, nil
}

// RuleFailure is the reason a rule refused a move (strict enforcement, an
// unknown status), or false for any other error.
func RuleFailure(err error) (string, bool) {
	if err == nil || domain.AsError(err).Kind != domain.KindValidation {
		return "", false
	}
	return reason(err), true
}
