package project

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/projectdb"
)

// Dependents are the counts a project delete reports and is blocked by.
type Dependents = projectdb.Dependents

// DryRun is the answer of a delete with dry_run=true: nothing changed.
type DryRun struct {
	ProjectID  uuid.UUID  `json:"project_id"`
	Dependents Dependents `json:"dependents"`
}

// Delete removes a project (Admin). With dryRun it only counts the live
// dependents. Without cascade, live tickets, sprints or comments make it a
// 409 listing their counts. With cascade the project is hidden at once and
// a durable job purges it and its dependents. A project without dependents
// is deleted for real, unless rows that are not counted (soft-deleted
// tickets awaiting their purge, kept time entries) still reference it: then
// it takes the cascade path too.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID, cascade, dryRun bool) (*DryRun, error) {
	var out *DryRun
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		row, err := projectdb.GetWithAccess(ctx, q, id, p.UserID, !dryRun)
		if err != nil {
			return domain.NotFoundAs(err, "project")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(row.AccessRow), domain.RoleAdmin, "project"); err != nil {
			return err
		}
		deps, err := projectdb.CountDependents(ctx, q, id)
		if err != nil {
			return err
		}
		if dryRun {
			out = &DryRun{ProjectID: id, Dependents: deps}
			return nil
		}
		orgID := row.Row.OrgID
		has := deps.Tickets > 0 || deps.Sprints > 0 || deps.Comments > 0
		if has && !cascade {
			return domain.Conflict(fmt.Sprintf("project %s has dependents; delete with cascade=true to remove them", row.Key),
				dependentDetails(deps)...)
		}
		soft := has
		if !has {
			// If-Match is checked in the DELETE's (or the soft delete's)
			// WHERE; a stale version deletes nothing (412).
			err := projectdb.HardDelete(ctx, q, orgID, id, domain.Versions(ctx))
			switch {
			case errors.Is(err, projectdb.ErrStillReferenced):
				soft = true
			case err != nil:
				return domain.StaleAs(ctx, err, "project")
			}
		}
		if soft {
			if err := projectdb.SoftDelete(ctx, q, orgID, id, domain.Versions(ctx), s.now()); err != nil {
				return domain.StaleAs(ctx, err, "project")
			}
			if err := domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: orgID, EntityType: "project", EntityID: id}, s.now()); err != nil {
				return err
			}
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "project",
			EntityID: id, Action: "deleted", Changes: []domain.FieldChange{
				{Field: "key", Old: row.Key}, {Field: "name", Old: row.Name},
			}})
	})
	return out, err
}

// dependentDetails lists each dependent type with a non-zero count, in the
// form of the spec's sample ("tickets: 3").
func dependentDetails(d Dependents) []string {
	var out []string
	for _, c := range []struct {
		name string
		n    int64
	}{{"tickets", d.Tickets}, {"sprints", d.Sprints}, {"comments", d.Comments}} {
		if c.n > 0 {
			out = append(out, fmt.Sprintf("%s: %d", c.name, c.n))
		}
	}
	return out
}
