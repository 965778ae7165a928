package ticket

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ticketdb"
)

// parseIDs checks a batch's ticket_ids (1..MaxBatch) and drops duplicates,
// keeping the first occurrence; ids that are not UUIDs come back in bad.
func parseIDs(ids []string) (ok []uuid.UUID, bad []string, err error) {
	if len(ids) == 0 {
		return nil, nil, domain.Invalid("ticket_ids: required, at least one id")
	}
	if len(ids) > MaxBatch {
		return nil, nil, domain.Invalid(fmt.Sprintf("ticket_ids: must have at most %d items", MaxBatch))
	}
	seen := make(map[uuid.UUID]bool, len(ids))
	for _, s := range ids {
		id, perr := uuid.Parse(s)
		if perr != nil {
			bad = append(bad, s)
			continue
		}
		if !seen[id] {
			seen[id] = true
			ok = append(ok, id)
		}
	}
	return ok, bad, nil
}

// loadAll reads every ticket of an all-or-nothing batch with the caller's
// access and authorizes min on each. Ids that name no ticket the caller can
// see make the whole call a 422 listing them; a ticket below the caller's
// rights makes it a 403. The tickets come back in request order.
func loadAll(ctx context.Context, q store.Querier, p domain.Principal, ids []string, min domain.Role, lock bool) ([]ticketdb.ForChange, error) {
	parsed, bad, err := parseIDs(ids)
	if err != nil {
		return nil, err
	}
	rows, err := ticketdb.ManyForChange(ctx, q, parsed, p.UserID, lock)
	if err != nil {
		return nil, err
	}
	byID := make(map[uuid.UUID]ticketdb.ForChange, len(rows))
	for _, r := range rows {
		byID[r.Row.ID] = r
	}
	var probs domain.Problems
	for _, s := range bad {
		probs.Add("ticket_ids", s+" not found")
	}
	out := make([]ticketdb.ForChange, 0, len(parsed))
	var denied error
	for _, id := range parsed {
		t, found := byID[id]
		if found {
			_, err := domain.Authorize(p, domain.MembershipFrom(t.AccessRow), min, "ticket")
			if err != nil && domain.AsError(err).Kind != domain.KindNotFound {
				denied = err
				continue
			}
			found = err == nil
		}
		if !found {
			probs.Add("ticket_ids", id.String()+" not found")
			continue
		}
		out = append(out, t)
	}
	if err := probs.Err(); err != nil {
		return nil, err
	}
	return out, denied
}

// BatchUpdateResult is the answer of a batch update; Warnings lists unlisted
// moves allowed under warn enforcement.
type BatchUpdateResult struct {
	Updated  int      `json:"updated"`
	Warnings []string `json:"warnings,omitempty"`
}

// BatchUpdate applies one patch to many tickets (Member on each) in one
// transaction: every ticket must be visible, every status move allowed by its
// own project's workflow, the sprint a live sprint of each ticket's project
// and the assignee a member of each ticket's org; otherwise nothing changes.
// Updated counts the tickets the patch was applied to.
func (s *Service) BatchUpdate(ctx context.Context, p domain.Principal, ids []string, pt Patch) (BatchUpdateResult, error) {
	if err := checkContent(&pt.Content); err != nil {
		return BatchUpdateResult{}, err
	}
	if pt.ParentID.Set {
		return BatchUpdateResult{}, domain.Invalid("parent_id: set a parent per ticket with PATCH /tickets/{id}")
	}
	if pt.empty() {
		return BatchUpdateResult{}, domain.Invalid("body: at least one field to update besides ticket_ids")
	}
	var out BatchUpdateResult
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		out = BatchUpdateResult{}
		ts, err := loadAll(ctx, q, p, ids, domain.RoleMember, true)
		if err != nil {
			return err
		}
		if err := checkRefs(ctx, q, ts, pt); err != nil {
			return err
		}
		plans := make([]plan, len(ts))
		var probs domain.Problems
		for i, t := range ts {
			rules, err := s.rulesOf(t.WorkflowRow)
			if err != nil {
				return err
			}
			if plans[i], err = planFor(t.Row, rules, pt); err != nil {
				probs.Add("ticket_ids", t.Row.ID.String()+": "+reason(err))
				continue
			}
			cfChanges, custom, err := setCustomFields(ctx, q, t.Row, pt.CustomFields)
			if err != nil {
				return err
			}
			plans[i].Changes = append(plans[i].Changes, cfChanges...)
			plans[i].custom = custom
		}
		if err := probs.Err(); err != nil {
			return err
		}
		for i, t := range ts {
			if _, err := s.apply(ctx, q, Person(p), t.Row, plans[i]); err != nil {
				return err
			}
			if plans[i].warning != "" {
				out.Warnings = append(out.Warnings, t.Row.ID.String()+": "+plans[i].warning)
			}
		}
		out.Updated = len(ts)
		return nil
	})
	return out, err
}

// checkRefs validates the assignee (a member of each ticket's org) and the
// sprint (a live sprint of each ticket's project) of a batch patch.
func checkRefs(ctx context.Context, q store.Querier, ts []ticketdb.ForChange, pt Patch) error {
	assignee, sprint := pt.AssigneeID.Ptr(), pt.SprintID.Ptr()
	checkedOrg := map[uuid.UUID]bool{}
	sprintProject := map[uuid.UUID]uuid.UUID{} // org → the sprint's project (uuid.Nil: none there)
	var probs domain.Problems
	for _, t := range ts {
		org := t.Row.OrgID
		if assignee != nil && !checkedOrg[org] {
			checkedOrg[org] = true
			if err := checkAssignee(ctx, q, org, *assignee); err != nil {
				return err
			}
		}
		if sprint == nil {
			continue
		}
		pid, seen := sprintProject[org]
		if !seen {
			var err error
			pid, err = ticketdb.SprintProject(ctx, q, org, *sprint)
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
			sprintProject[org] = pid
		}
		if pid != t.Row.ProjectID {
			probs.Add("sprint_id", "not a live sprint of the project of ticket "+t.Row.ID.String())
		}
	}
	return probs.Err()
}

// reason is the text of a per-ticket failure.
func reason(err error) string {
	de := domain.AsError(err)
	if de.Message == "validation failed" && len(de.Details) > 0 {
		return strings.Join(de.Details, "; ")
	}
	return de.Message
}
