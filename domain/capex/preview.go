package capex

import (
	"context"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// MaxPreviewEntries caps the entries a preview lists; changed_entries
// counts them all.
const MaxPreviewEntries = 1000

// Preview is what a month's report would be under a policy, next to the
// policy in force (for a closed month: the one its snapshot recorded).
type Preview struct {
	Period         string         `json:"period"`
	Policy         PolicyRef      `json:"policy"`
	InForce        *PolicyRef     `json:"in_force"`
	Totals         Totals         `json:"totals"`
	InForceTotals  Totals         `json:"in_force_totals"`
	ChangedEntries int64          `json:"changed_entries"`
	Entries        []PreviewEntry `json:"entries"`
	Close          *CloseInfo     `json:"close,omitempty"`
}

// PreviewEntry is an entry whose classification the previewed policy
// changes, with both reasons.
type PreviewEntry struct {
	EntryID               uuid.UUID `json:"entry_id"`
	Date                  string    `json:"date"`
	UserID                uuid.UUID `json:"user_id"`
	ProjectID             uuid.UUID `json:"project_id"`
	ProjectKey            string    `json:"project_key"`
	AmountCents           int64     `json:"amount_cents"`
	Classification        string    `json:"classification"`
	Reason                string    `json:"reason"`
	InForceClassification string    `json:"in_force_classification"`
	InForceReason         string    `json:"in_force_reason"`
}

// PreviewPolicy answers the month's report under policy id next to the one
// in force (Admin): both totals and the entries whose classification
// differs (the first MaxPreviewEntries by id), read from the snapshot when
// the month is closed. Nothing is written.
func (s *Service) PreviewPolicy(ctx context.Context, p domain.Principal, orgID, id uuid.UUID, period string) (res Preview, err error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return Preview{}, err
	}
	q := s.DB.Q()
	qr := Query{OrgID: orgID, Period: per}
	f, err := s.filterFor(ctx, q, p, &qr)
	if err != nil {
		return Preview{}, err
	}
	row, err := capexdb.PolicyByID(ctx, q, orgID, id)
	if err != nil {
		return Preview{}, domain.NotFoundAs(err, "capitalization policy")
	}
	out := Preview{Period: per.String(), Entries: []PreviewEntry{}}
	cand, err := refOf(ctx, q, row, per, s.now())
	if err != nil {
		return out, err
	}
	out.Policy = *cand
	defer func() {
		res.Policy.Tickets, res.Policy.Overrides = nil, nil
		res.InForce = res.InForce.public()
	}()
	src := capexdb.EntrySource{}
	classify := func(f capexdb.Filter, g capexdb.Grouping, pol *PolicyRef) ([]capexdb.Line, error) {
		return classified(ctx, q, capexdb.Aggregate, f, g, pol)
	}
	cl, ok, err := closedOf(ctx, q, orgID, per)
	if err != nil {
		return out, err
	}
	if ok {
		src, out.InForce = capexdb.EntrySource{CloseID: cl.info.ID, Frozen: &cl.doc.Frozen}, cl.doc.Policy
		classify = func(f capexdb.Filter, g capexdb.Grouping, pol *PolicyRef) ([]capexdb.Line, error) {
			return cl.classified(ctx, q, f, g, pol)
		}
		info := toCloseInfo(cl.info)
		out.Close = &info
	} else if out.InForce, err = policyInForce(ctx, q, orgID, per, s.now()); err != nil {
		return out, err
	}
	cols := map[uuid.UUID]capexdb.Line{}
	for _, pol := range []*PolicyRef{&out.Policy, out.InForce} {
		lines, err := classify(f, capexdb.Grouping{}, pol)
		if err != nil {
			return out, err
		}
		if pol == &out.Policy {
			out.Totals = totalsOf(lines)
		} else {
			out.InForceTotals = totalsOf(lines)
		}
		for _, l := range lines {
			l.Class = ""
			cols[l.ProjectID] = l
		}
	}
	// Only projects whose classification can differ are read entry by
	// entry.
	var differ []uuid.UUID
	byTicket := len(out.Policy.Tickets) > 0 || len(out.Policy.Overrides) > 0 ||
		(out.InForce != nil && (len(out.InForce.Tickets) > 0 || len(out.InForce.Overrides) > 0))
	for id, l := range cols {
		if byTicket { // a rule may change any project's entries
			differ = append(differ, id)
			continue
		}
		a, aok := capexFrom(out.Policy.Framework, &l)
		b, bok := capexFrom(out.InForce.framework(), &l)
		if aok != bok || (aok && !a.Equal(b)) {
			differ = append(differ, id)
		}
	}
	if len(differ) == 0 {
		return out, nil
	}
	ef := f
	ef.Restricted, ef.Projects = true, intersect(f, differ)
	err = s.DB.ReadOnly(ctx, func(q store.Querier) error {
		return capexdb.EachEntry(ctx, q, src, ef, uuid.Nil, 0, func(r capexdb.EntryRow) error {
			l := cols[r.ProjectID]
			c, _, reason := out.Policy.decide(&l, r.TicketID, r.Date)
			ic, _, inReason := out.InForce.decide(&l, r.TicketID, r.Date)
			if out.InForce == nil {
				inReason = reasonOn(FrameworkASC35040, &l, r.Date)
			}
			if c == ic {
				return nil
			}
			out.ChangedEntries++
			if len(out.Entries) < MaxPreviewEntries {
				out.Entries = append(out.Entries, PreviewEntry{EntryID: r.ID, Date: r.Date.Format("2006-01-02"), UserID: r.UserID,
					ProjectID: r.ProjectID, ProjectKey: l.ProjectKey, AmountCents: r.AmountCents, Classification: c,
					Reason: reason, InForceClassification: ic, InForceReason: inReason})
			}
			return nil
		})
	})
	return out, err
}

// intersect keeps the ids f's key restriction allows.
func intersect(f capexdb.Filter, ids []uuid.UUID) []uuid.UUID {
	if !f.Restricted {
		return ids
	}
	allowed := map[uuid.UUID]bool{}
	for _, id := range f.Projects {
		allowed[id] = true
	}
	out := []uuid.UUID{}
	for _, id := range ids {
		if allowed[id] {
			out = append(out, id)
		}
	}
	return out
}
