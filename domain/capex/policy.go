package capex

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Capitalization frameworks a policy names.
const (
	// FrameworkASC35040 is ASC 350-40's project stages: the project's
	// development_phase decides (the classification of an org without a
	// policy).
	FrameworkASC35040 = "asc_350_40_stages"
	// FrameworkASU202506 capitalizes from the later of the project's
	// funding authorization and the resolution of its significant
	// development uncertainty, while completion is probable.
	FrameworkASU202506 = "asu_2025_06"
	// FrameworkIAS38 capitalizes development: from the later of the day
	// after research ends and the day the criteria are met.
	FrameworkIAS38 = "ias_38"
)

// Frameworks lists the frameworks in the order the API documents them.
var Frameworks = []string{FrameworkASC35040, FrameworkASU202506, FrameworkIAS38}

// Policy limits.
const (
	DefaultStandardHours = 160
	MaxStandardHours     = 744 // every hour of a 31-day month
	MaxPolicyNote        = 2000
)

// Policy is one version of an org's capitalization policy as the API
// renders it.
type Policy struct {
	ID                    uuid.UUID       `json:"id"`
	OrgID                 uuid.UUID       `json:"org_id"`
	Version               int64           `json:"version"`
	Framework             string          `json:"framework"`
	EffectiveFrom         string          `json:"effective_from"`
	StandardHoursPerMonth int64           `json:"standard_hours_per_month"`
	Rules                 json.RawMessage `json:"rules"`
	Note                  *string         `json:"note"`
	CreatedBy             *uuid.UUID      `json:"created_by"`
	CreatedAt             time.Time       `json:"created_at"`
}

func toPolicy(p capexdb.Policy) Policy {
	rules := p.Rules
	if len(rules) == 0 {
		rules = json.RawMessage("[]")
	}
	return Policy{ID: p.ID, OrgID: p.OrgID, Version: p.Version, Framework: p.Framework,
		EffectiveFrom: PeriodOf(p.EffectiveFrom).String(), StandardHoursPerMonth: p.StandardHoursPerMonth, Rules: rules,
		Note: p.Note, CreatedBy: p.CreatedBy, CreatedAt: p.CreatedAt.UTC()}
}

// PolicyRef names the policy a report (or a close's snapshot) was
// classified under.
type PolicyRef struct {
	ID                    uuid.UUID `json:"id"`
	Version               int64     `json:"version"`
	Framework             string    `json:"framework"`
	StandardHoursPerMonth int64     `json:"standard_hours_per_month"`
	Rules                 []Rule    `json:"rules,omitempty"`
	// Tickets is, per ticket with approved time in the month that a rule
	// matches, the id of the first rule that does. Kept in a close's
	// snapshot, so a closed month keeps the classification its rules
	// gave; reports render the policy without it (public).
	Tickets map[uuid.UUID]string `json:"rule_tickets,omitempty"`
	// Overrides are the month's tickets' overrides, kept like Tickets.
	Overrides map[uuid.UUID]decided `json:"overrides,omitempty"`
}

// PolicyInput is the body of a policy's creation.
type PolicyInput struct {
	Framework             string          `json:"framework"`
	EffectiveFrom         string          `json:"effective_from"`
	StandardHoursPerMonth *int64          `json:"standard_hours_per_month"`
	Rules                 json.RawMessage `json:"rules"`
	Note                  *string         `json:"note"`
}

// CreatePolicy stores a new version of orgID's policy (Owner or Admin). It
// may not take effect in a closed month (409: reopen it first); a month
// closed before it keeps the classification of its snapshot.
func (s *Service) CreatePolicy(ctx context.Context, p domain.Principal, orgID uuid.UUID, in PolicyInput) (Policy, error) {
	var out Policy
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		row, err := checkPolicy(in)
		if err != nil {
			return err
		}
		var rules []Rule
		if err := json.Unmarshal(row.Rules, &rules); err != nil {
			return err
		}
		if err := checkRuleFields(ctx, q, orgID, rules); err != nil {
			return err
		}
		per := PeriodOf(row.EffectiveFrom)
		// The month's lock orders the policy against a close of it.
		if err := capexdb.Lock(ctx, q, orgID, per.String(), false); err != nil {
			return err
		}
		if c, err := capexdb.InForce(ctx, q, orgID, per.String()); err == nil && c.Status == capexdb.StatusPending {
			return domain.Conflict("effective_from: period "+per.String()+" has a close pending approval; reject it first",
				"period: "+per.String(), "status: "+c.Status)
		} else if err == nil {
			return domain.Conflict("effective_from: period "+per.String()+" is closed; reopen it first",
				"period: "+per.String(), "closed_at: "+c.ClosedAt.UTC().Format(time.RFC3339))
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := capexdb.LockPolicies(ctx, q, orgID); err != nil {
			return err
		}
		row.ID, row.OrgID, row.CreatedBy, row.CreatedAt = domain.NewID(), orgID, &p.UserID, s.now()
		if row.Version, err = capexdb.InsertPolicy(ctx, q, row); err != nil {
			return err
		}
		out = toPolicy(row)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID,
			EntityType: "capitalization_policy", EntityID: out.ID, Action: "created", Data: out})
	})
	return out, err
}

// checkPolicy applies the rules of a policy's body.
func checkPolicy(in PolicyInput) (capexdb.Policy, error) {
	var pr domain.Problems
	row := capexdb.Policy{Framework: in.Framework, StandardHoursPerMonth: DefaultStandardHours, Rules: json.RawMessage("[]")}
	known := false
	for _, f := range Frameworks {
		known = known || in.Framework == f
	}
	if !known {
		pr.Add("framework", "must be one of "+strings.Join(Frameworks, ", "))
	}
	if per, err := ParsePeriod("effective_from", in.EffectiveFrom); err != nil {
		pr = append(pr, domain.AsError(err).Details...)
	} else {
		row.EffectiveFrom = per.Start()
	}
	if h := in.StandardHoursPerMonth; h != nil {
		if *h < 1 || *h > MaxStandardHours {
			pr.Add("standard_hours_per_month", "must be 1-744")
		}
		row.StandardHoursPerMonth = *h
	}
	if rules := checkRules(in.Rules, &pr); rules != nil {
		row.Rules, _ = json.Marshal(rules)
	}
	if n := in.Note; n != nil {
		if utf8.RuneCountInString(*n) > MaxPolicyNote {
			pr.Add("note", "must be at most 2000 characters")
		}
		row.Note = n
	}
	return row, pr.Err()
}

// ListPolicies lists orgID's policies, newest version first (Admin).
func (s *Service) ListPolicies(ctx context.Context, p domain.Principal, orgID uuid.UUID) ([]Policy, error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
		return nil, err
	}
	rows, err := capexdb.Policies(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	out := make([]Policy, 0, len(rows))
	for _, r := range rows {
		out = append(out, toPolicy(r))
	}
	return out, nil
}

// policyInForce is the reference of orgID's policy in force in per; nil
// when none is (the project-phase classification).
func policyInForce(ctx context.Context, q store.Querier, orgID uuid.UUID, per Period, now time.Time) (*PolicyRef, error) {
	p, err := capexdb.PolicyInForce(ctx, q, orgID, per.Start())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return refOf(ctx, q, p, per, now)
}

// refOf is the reference of policy p for month per, with the ticket each
// of its rules decides.
func refOf(ctx context.Context, q store.Querier, p capexdb.Policy, per Period, now time.Time) (*PolicyRef, error) {
	ref := &PolicyRef{ID: p.ID, Version: p.Version, Framework: p.Framework, StandardHoursPerMonth: p.StandardHoursPerMonth}
	if len(p.Rules) > 0 {
		if err := json.Unmarshal(p.Rules, &ref.Rules); err != nil {
			return nil, err
		}
	}
	os, err := capexdb.MonthOverrides(ctx, q, p.OrgID, per.Start(), per.End())
	if err != nil {
		return nil, err
	}
	for _, o := range os {
		if ref.Overrides == nil {
			ref.Overrides = map[uuid.UUID]decided{}
		}
		ref.Overrides[o.TicketID] = decided{Classification: o.Classification, Reason: o.Reason}
	}
	if len(ref.Rules) == 0 {
		ref.Rules = nil
		return ref, nil
	}
	ref.Tickets, err = decideTickets(ctx, q, p.OrgID, per, ref.Rules, now)
	return ref, err
}
