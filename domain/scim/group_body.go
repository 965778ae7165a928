package scim

import (
	"errors"
	"slices"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/team"
	"tracker/store"
	"tracker/store/teamdb"
)

func setGroupAttr(st *groupState, attr string, v any) error {
	switch attr {
	case "displayname":
		n, err := str(v, "displayName")
		if err != nil || n == nil {
			return invalidValue("displayName must be a string")
		}
		st.Name = strings.TrimSpace(*n)
	case "externalid":
		e, err := str(v, "externalId")
		if err != nil {
			return err
		}
		st.ExternalID = e
	case "members":
		ids, err := memberIDs(v)
		if err != nil {
			return err
		}
		st.Members = nil
		return addMembers(st, ids)
	}
	return nil
}

func addMembers(st *groupState, ids []string) error {
	for _, s := range ids {
		id, err := uuid.Parse(s)
		if err != nil {
			return invalidValue("members: " + s + " is not a user of this organization")
		}
		if !slices.Contains(st.Members, id) {
			st.Members = append(st.Members, id)
		}
	}
	return nil
}

func groupFromBody(st groupState, body []byte) (groupState, error) {
	m, err := decodeObject(body)
	if err != nil {
		return st, err
	}
	for k, v := range m {
		name, ok := stripURN(k, GroupSchema)
		if !ok {
			continue
		}
		if err := setGroupAttr(&st, strings.ToLower(name), v); err != nil {
			return st, err
		}
	}
	return st, nil
}

func (st groupState) validate() error {
	var p domain.Problems
	team.CheckName(&p, "displayName", st.Name)
	if len(p) > 0 {
		return invalidValue("displayName must be 1-255 characters, not blank")
	}
	if len(deref(st.ExternalID)) > 255 || !domain.ValidText(st.Name+deref(st.ExternalID)) {
		return invalidValue("externalId must be at most 255 characters of valid text")
	}
	if len(st.Members) > 10000 {
		return invalidValue("at most 10000 members per request")
	}
	return nil
}

func nameTaken(err error) error {
	var ce *store.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, store.ErrConflict) && ce.Constraint == teamdb.NameConstraint {
		return uniqueness("a group with this displayName already exists")
	}
	return err
}

func patchGroup(st *groupState, op operation) error {
	for _, pv := range pathOps(op) {
		attr, vf, sub, ok, err := parsePath(pv[0].(string), GroupSchema)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		v := pv[1]
		if attr != "members" && attr != "displayname" && attr != "externalid" {
			continue // not kept
		}
		if attr != "members" {
			if vf != nil || sub != "" {
				return invalidPath("value filters apply to members only")
			}
			if op.Op == "remove" {
				if attr == "displayname" {
					return mutability("displayName is required and cannot be removed")
				}
				v = nil
			}
			if err := setGroupAttr(st, attr, v); err != nil {
				return err
			}
			continue
		}
		if sub != "" && sub != "value" {
			return invalidPath("members has no sub-attribute " + sub + " to change")
		}
		switch {
		case vf != nil:
			if op.Op != "remove" {
				return invalidPath("a members value filter is for remove")
			}
			var kept []uuid.UUID
			for _, m := range st.Members {
				hit, err := match(vf, func(a string) any {
					if a == "value" {
						return m.String()
					}
					return nil
				})
				if err != nil {
					return err
				}
				if !hit {
					kept = append(kept, m)
				}
			}
			st.Members = kept
		case op.Op == "add":
			ids, err := memberIDs(v)
			if err != nil {
				return err
			}
			if err := addMembers(st, ids); err != nil {
				return err
			}
		case op.Op == "replace":
			if err := setGroupAttr(st, "members", v); err != nil {
				return err
			}
		case op.Op == "remove":
			ids, err := memberIDs(v)
			if err != nil {
				return err
			}
			if v == nil {
				st.Members = nil
				continue
			}
			st.Members = slices.DeleteFunc(st.Members, func(m uuid.UUID) bool {
				for _, id := range ids {
					if strings.EqualFold(id, m.String()) {
						return true
					}
				}
				return false
			})
		}
	}
	return nil
}
