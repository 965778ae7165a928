package scim

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/scimdb"
	"tracker/store/teamdb"
)

// groupState is what SCIM reads and writes of a Group (a team).
type groupState struct {
	Name       string
	ExternalID *string
	Members    []uuid.UUID
}

func (s *Service) groupLocation(id uuid.UUID) string { return s.base + "/Groups/" + id.String() }

func (s *Service) groupResource(g scimdb.Group, members []scimdb.Member, withMembers bool) map[string]any {
	res := map[string]any{"schemas": []string{GroupSchema}, "id": g.ID.String(), "displayName": g.Name}
	if g.ExternalID != nil {
		res["externalId"] = *g.ExternalID
	}
	if withMembers {
		ms := make([]map[string]any, 0, len(members))
		for _, m := range members {
			ms = append(ms, map[string]any{"value": m.UserID.String(), "display": m.DisplayName,
				"$ref": s.userLocation(m.UserID), "type": "User"})
		}
		res["members"] = ms
	}
	res["meta"] = map[string]any{"resourceType": "Group", "created": g.CreatedAt.UTC().Format(time.RFC3339Nano),
		"lastModified": g.UpdatedAt.UTC().Format(time.RFC3339Nano), "location": s.groupLocation(g.ID), "version": version(res)}
	return res
}

// renderGroups renders teams, loading members only when they are returned.
func (s *Service) renderGroups(ctx context.Context, q store.Querier, orgID uuid.UUID, rows []scimdb.Group, proj Projection) ([]map[string]any, error) {
	with := proj.wants("members", GroupSchema)
	byTeam := map[uuid.UUID][]scimdb.Member{}
	if with && len(rows) > 0 {
		ids := make([]uuid.UUID, len(rows))
		for i, r := range rows {
			ids[i] = r.ID
		}
		ms, err := scimdb.Members(ctx, q, orgID, ids)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			byTeam[m.TeamID] = append(byTeam[m.TeamID], m)
		}
	}
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = proj.apply(s.groupResource(r, byTeam[r.ID], with), GroupSchema)
	}
	return out, nil
}

// ListGroups answers GET /Groups.
func (s *Service) ListGroups(ctx context.Context, a Actor, p ListParams, proj Projection) (List, error) {
	cond, err := compileFilter(p.Filter, groupColumns, GroupSchema)
	if err != nil {
		return List{}, err
	}
	offset, limit := p.window()
	q := s.db.Q()
	rows, total, err := scimdb.ListGroups(ctx, q, a.OrgID, cond, offset, limit)
	if err != nil {
		return List{}, err
	}
	items, err := s.renderGroups(ctx, q, a.OrgID, rows, proj)
	if err != nil {
		return List{}, err
	}
	return newList(total, offset, items), nil
}

// GetGroup answers GET /Groups/{id}.
func (s *Service) GetGroup(ctx context.Context, a Actor, id string, proj Projection) (map[string]any, error) {
	gid, err := uuid.Parse(id)
	if err != nil {
		return nil, notFound("group")
	}
	q := s.db.Q()
	g, err := scimdb.GetGroup(ctx, q, a.OrgID, gid, false)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("group")
	}
	if err != nil {
		return nil, err
	}
	items, err := s.renderGroups(ctx, q, a.OrgID, []scimdb.Group{g}, proj)
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// CreateGroup answers POST /Groups: a team with its members, 201.
func (s *Service) CreateGroup(ctx context.Context, a Actor, body []byte) (map[string]any, error) {
	st, err := groupFromBody(groupState{}, body)
	if err != nil {
		return nil, err
	}
	if err := st.validate(); err != nil {
		return nil, err
	}
	var out map[string]any
	err = s.db.InTx(ctx, func(q store.Querier) error {
		now := s.clock.Now()
		g := scimdb.Group{ID: domain.NewID(), Name: st.Name, ExternalID: st.ExternalID, CreatedAt: now, UpdatedAt: now}
		if err := scimdb.InsertGroup(ctx, q, a.OrgID, g); err != nil {
			return nameTaken(err)
		}
		if err := s.record(ctx, q, a, "team", g.ID, "scim_created", []domain.FieldChange{{Field: "name", New: st.Name}}); err != nil {
			return err
		}
		if err := s.writeMembers(ctx, q, a, g.ID, nil, st.Members, now); err != nil {
			return err
		}
		var err error
		out, err = s.readGroup(ctx, q, a.OrgID, g.ID)
		return err
	})
	return out, err
}

func (s *Service) readGroup(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (map[string]any, error) {
	g, err := scimdb.GetGroup(ctx, q, orgID, id, false)
	if err != nil {
		return nil, err
	}
	items, err := s.renderGroups(ctx, q, orgID, []scimdb.Group{g}, Projection{})
	if err != nil {
		return nil, err
	}
	return items[0], nil
}

// writeMembers moves a team from old to new members; new ones must be users
// of the org.
func (s *Service) writeMembers(ctx context.Context, q store.Querier, a Actor, teamID uuid.UUID, old, next []uuid.UUID, now time.Time) error {
	var add, remove []uuid.UUID
	for _, id := range next {
		if !slices.Contains(old, id) {
			add = append(add, id)
		}
	}
	for _, id := range old {
		if !slices.Contains(next, id) {
			remove = append(remove, id)
		}
	}
	if len(add) > 0 {
		known, err := scimdb.KnownMembers(ctx, q, a.OrgID, add)
		if err != nil {
			return err
		}
		for _, id := range add {
			if !slices.Contains(known, id) {
				return invalidValue("members: " + id.String() + " is not a user of this organization")
			}
		}
		added, err := teamdb.AddMembers(ctx, q, a.OrgID, teamID, add, now)
		if err != nil {
			return err
		}
		if err := s.record(ctx, q, a, "team", teamID, "scim_members_added", []domain.FieldChange{{Field: "members", New: added}}); err != nil {
			return err
		}
	}
	if len(remove) > 0 {
		removed, err := teamdb.RemoveMembers(ctx, q, a.OrgID, teamID, remove)
		if err != nil {
			return err
		}
		if err := s.record(ctx, q, a, "team", teamID, "scim_members_removed", []domain.FieldChange{{Field: "members", Old: removed}}); err != nil {
			return err
		}
	}
	return nil
}

// ReplaceGroup answers PUT /Groups/{id}.
func (s *Service) ReplaceGroup(ctx context.Context, a Actor, id string, body []byte, ifMatch string) (map[string]any, error) {
	return s.changeGroup(ctx, a, id, ifMatch, func(groupState) (groupState, error) {
		return groupFromBody(groupState{}, body)
	})
}

// PatchGroup answers PATCH /Groups/{id}: displayName and externalId, and
// members added and removed in one request (members[value eq "…"] paths).
func (s *Service) PatchGroup(ctx context.Context, a Actor, id string, body []byte, ifMatch string) (map[string]any, error) {
	ops, err := readPatch(body)
	if err != nil {
		return nil, err
	}
	return s.changeGroup(ctx, a, id, ifMatch, func(cur groupState) (groupState, error) {
		st := cur
		st.Members = slices.Clone(cur.Members)
		for _, op := range ops {
			if err := patchGroup(&st, op); err != nil {
				return st, err
			}
		}
		return st, nil
	})
}

func (s *Service) changeGroup(ctx context.Context, a Actor, id, ifMatch string, next func(groupState) (groupState, error)) (map[string]any, error) {
	gid, err := uuid.Parse(id)
	if err != nil {
		return nil, notFound("group")
	}
	var out map[string]any
	err = s.db.InTx(ctx, func(q store.Querier) error {
		g, err := scimdb.GetGroup(ctx, q, a.OrgID, gid, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("group")
		}
		if err != nil {
			return err
		}
		ms, err := scimdb.Members(ctx, q, a.OrgID, []uuid.UUID{gid})
		if err != nil {
			return err
		}
		if stale(ifMatch, s.groupResource(g, ms, true)) {
			return preconditionFailed("the group has changed since the version in If-Match")
		}
		old := groupState{Name: g.Name, ExternalID: g.ExternalID}
		for _, m := range ms {
			old.Members = append(old.Members, m.UserID)
		}
		st, err := next(old)
		if err != nil {
			return err
		}
		if err := st.validate(); err != nil {
			return err
		}
		now := s.clock.Now()
		var changes []domain.FieldChange
		if st.Name != old.Name {
			changes = append(changes, domain.FieldChange{Field: "name", Old: old.Name, New: st.Name})
		}
		if deref(st.ExternalID) != deref(old.ExternalID) || (st.ExternalID == nil) != (old.ExternalID == nil) {
			changes = append(changes, domain.FieldChange{Field: "externalId", Old: old.ExternalID, New: st.ExternalID})
		}
		membersChanged := len(st.Members) != len(old.Members)
		for _, m := range st.Members {
			membersChanged = membersChanged || !slices.Contains(old.Members, m)
		}
		if len(changes) > 0 || membersChanged {
			g.Name, g.ExternalID, g.UpdatedAt = st.Name, st.ExternalID, now
			if err := scimdb.UpdateGroup(ctx, q, a.OrgID, g); err != nil {
				return nameTaken(err)
			}
		}
		if len(changes) > 0 {
			if err := s.record(ctx, q, a, "team", gid, "scim_updated", changes); err != nil {
				return err
			}
		}
		if err := s.writeMembers(ctx, q, a, gid, old.Members, st.Members, now); err != nil {
			return err
		}
		out, err = s.readGroup(ctx, q, a.OrgID, gid)
		return err
	})
	return out, err
}

// DeleteGroup answers DELETE /Groups/{id}: the team goes, its projects keep
// working without a team.
func (s *Service) DeleteGroup(ctx context.Context, a Actor, id, ifMatch string) error {
	gid, err := uuid.Parse(id)
	if err != nil {
		return notFound("group")
	}
	return s.db.InTx(ctx, func(q store.Querier) error {
		g, err := scimdb.GetGroup(ctx, q, a.OrgID, gid, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("group")
		}
		if err != nil {
			return err
		}
		if ifMatch != "" {
			ms, err := scimdb.Members(ctx, q, a.OrgID, []uuid.UUID{gid})
			if err != nil {
				return err
			}
			if stale(ifMatch, s.groupResource(g, ms, true)) {
				return preconditionFailed("the group has changed since the version in If-Match")
			}
		}
		if err := teamdb.Delete(ctx, q, a.OrgID, gid, s.clock.Now()); err != nil {
			return err
		}
		return s.record(ctx, q, a, "team", gid, "scim_deleted", []domain.FieldChange{{Field: "name", Old: g.Name}})
	})
}
