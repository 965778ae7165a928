package capex

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Override is an Admin's classification of one ticket: under a policy it
// beats every rule, never the framework.
type Override struct {
	TicketID       uuid.UUID  `json:"ticket_id"`
	Classification string     `json:"classification"`
	Reason         string     `json:"reason"`
	SetBy          *uuid.UUID `json:"set_by"`
	SetAt          string     `json:"set_at"`
}

// OverrideInput is the body of PUT /tickets/{id}/capitalization.
type OverrideInput struct {
	Classification *string `json:"classification"`
	Reason         *string `json:"reason"`
}

// decided is what an override records in a policy's month: the class and
// the reason.
type decided struct {
	Classification string `json:"classification"`
	Reason         string `json:"reason"`
}

// overrideAccess authorizes an override's change: the ticket's org, Admin,
// no project-restricted key (as the other capitalization routes).
func overrideAccess(ctx context.Context, q store.Querier, p domain.Principal, ticketID uuid.UUID) (uuid.UUID, error) {
	orgID, err := capexdb.TicketOrg(ctx, q, ticketID)
	if err != nil {
		return uuid.Nil, domain.NotFoundAs(err, "ticket")
	}
	if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "ticket"); err != nil {
		return uuid.Nil, err
	}
	return orgID, nil
}

// SetOverride sets ticketID's capitalization override (Admin), recorded in
// the ticket's activity. It changes no closed month: a close keeps the
// overrides of its month as they were.
func (s *Service) SetOverride(ctx context.Context, p domain.Principal, ticketID uuid.UUID, in OverrideInput) (Override, error) {
	var out Override
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		orgID, err := overrideAccess(ctx, q, p, ticketID)
		if err != nil {
			return err
		}
		var pr domain.Problems
		if in.Classification == nil || (*in.Classification != "capex" && *in.Classification != "opex") {
			pr.Add("classification", "must be capex or opex")
		}
		if in.Reason == nil || strings.TrimSpace(*in.Reason) == "" {
			pr.Add("reason", "required")
		} else if utf8.RuneCountInString(*in.Reason) > MaxRuleReason || strings.ContainsRune(*in.Reason, 0) {
			pr.Add("reason", "must be at most 2000 characters, without NUL")
		}
		if err := pr.Err(); err != nil {
			return err
		}
		old, err := capexdb.OverrideOf(ctx, q, ticketID)
		had := err == nil
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return err
		}
		row := capexdb.Override{TicketID: ticketID, OrgID: orgID, Classification: *in.Classification, Reason: *in.Reason,
			SetBy: &p.UserID, SetAt: s.now()}
		if err := capexdb.PutOverride(ctx, q, row); err != nil {
			return err
		}
		out = toOverride(row)
		ch := []domain.FieldChange{{Field: "capitalization_classification", New: row.Classification},
			{Field: "capitalization_reason", New: row.Reason}}
		if had {
			ch[0].Old, ch[1].Old = old.Classification, old.Reason
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: ticketID, Action: "capitalization_override_set", Changes: ch, Data: out})
	})
	return out, err
}

// DeleteOverride removes ticketID's override (Admin); 404 when it has none.
func (s *Service) DeleteOverride(ctx context.Context, p domain.Principal, ticketID uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		orgID, err := overrideAccess(ctx, q, p, ticketID)
		if err != nil {
			return err
		}
		old, err := capexdb.OverrideOf(ctx, q, ticketID)
		if err != nil {
			return domain.NotFoundAs(err, "capitalization override")
		}
		if err := capexdb.DeleteOverride(ctx, q, ticketID); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: ticketID, Action: "capitalization_override_removed",
			Changes: []domain.FieldChange{{Field: "capitalization_classification", Old: old.Classification},
				{Field: "capitalization_reason", Old: old.Reason}}, Data: toOverride(old)})
	})
}

func toOverride(r capexdb.Override) Override {
	return Override{TicketID: r.TicketID, Classification: r.Classification, Reason: r.Reason, SetBy: r.SetBy,
		SetAt: r.SetAt.UTC().Format("2006-01-02T15:04:05.999999Z07:00")}
}
