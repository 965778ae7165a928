package scim

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
	"tracker/store/scimdb"
	"tracker/store/ssodb"
)

// ListUsers answers GET /Users.
func (s *Service) ListUsers(ctx context.Context, a Actor, p ListParams, proj Projection) (List, error) {
	cond, err := compileFilter(p.Filter, userColumns, UserSchema)
	if err != nil {
		return List{}, err
	}
	offset, limit := p.window()
	rows, total, err := scimdb.ListUsers(ctx, s.db.Q(), a.OrgID, cond, offset, limit)
	if err != nil {
		return List{}, err
	}
	items := make([]map[string]any, len(rows))
	for i, r := range rows {
		items[i] = proj.apply(s.userResource(r), UserSchema)
	}
	return newList(total, offset, items), nil
}

// GetUser answers GET /Users/{id}.
func (s *Service) GetUser(ctx context.Context, a Actor, id string, proj Projection) (map[string]any, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return nil, notFound("user")
	}
	r, err := scimdb.GetUser(ctx, s.db.Q(), a.OrgID, uid, false)
	if errors.Is(err, store.ErrNotFound) {
		return nil, notFound("user")
	}
	if err != nil {
		return nil, err
	}
	return proj.apply(s.userResource(r), UserSchema), nil
}

// CreateUser answers POST /Users: 201 with the new user. A userName that
// is already a user of the org is 409 uniqueness; a person who has an
// account already is linked (the org gains the membership) only when the
// org has verified the email's domain, else 409 uniqueness.
func (s *Service) CreateUser(ctx context.Context, a Actor, body []byte) (map[string]any, error) {
	st, err := userFromBody(userState{Active: true}, body)
	if err != nil {
		return nil, err
	}
	if err := st.validate(); err != nil {
		return nil, err
	}
	var out map[string]any
	err = s.db.InTx(ctx, func(q store.Querier) error {
		now := s.clock.Now()
		var userID uuid.UUID
		action := "scim_created"
		u, err := accountdb.UserByEmail(ctx, q, st.UserName)
		switch {
		case err == nil:
			userID, action = u.ID, "scim_linked"
			m, err := scimdb.MembershipOf(ctx, q, a.OrgID, u.ID)
			switch {
			case err == nil && m.DeletedAt == nil:
				return uniqueness("a user with this userName already exists in the organization")
			case err == nil:
				action = "scim_restored"
				if err := scimdb.Reactivate(ctx, q, a.OrgID, u.ID, now); err != nil {
					return err
				}
			case errors.Is(err, store.ErrNotFound):
				// The org's provider vouches for the org only: it enrolls
				// an account someone already has only when the org has
				// proved it controls the email's domain.
				verified, err := ssodb.DomainVerified(ctx, q, a.OrgID, strings.ToLower(st.UserName[strings.LastIndex(st.UserName, "@")+1:]))
				if err != nil {
					return err
				}
				if !verified {
					return uniqueness("a user with this userName already exists and is not a member of the organization: " +
						"an Admin can invite the person, or the organization can verify the email's domain")
				}
				if err := scimdb.InsertMembership(ctx, q, a.OrgID, u.ID, a.DefaultRole, now); err != nil {
					if errors.Is(err, store.ErrConflict) {
						return uniqueness("a user with this userName already exists in the organization")
					}
					return err
				}
			default:
				return err
			}
		case errors.Is(err, store.ErrNotFound):
			// A new account is unclaimed until the person signs in by
			// single sign-on or registers with the email (which claims it,
			// reaching none of the org: only its sign-on reaches a
			// membership its provider made).
			userID = domain.NewID()
			if err := accountdb.InsertUser(ctx, q, accountdb.User{ID: userID, Email: st.UserName, DisplayName: st.DisplayName,
				Active: true, Placeholder: true, CreatedAt: now, UpdatedAt: now}); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return uniqueness("a user with this userName already exists")
				}
				return err
			}
			if err := scimdb.InsertMembership(ctx, q, a.OrgID, userID, a.DefaultRole, now); err != nil {
				return err
			}
		default:
			return err
		}
		if err := scimdb.SetProfile(ctx, q, a.OrgID, userID, st.profile(), now); err != nil {
			return err
		}
		if err := s.record(ctx, q, a, "user", userID, action, []domain.FieldChange{{Field: "userName", New: st.UserName},
			{Field: "role", New: a.DefaultRole}}); err != nil {
			return err
		}
		if !st.Active {
			if err := s.deactivate(ctx, q, a, userID, false, now); err != nil {
				return err
			}
		}
		r, err := scimdb.GetUser(ctx, q, a.OrgID, userID, false)
		out = s.userResource(r)
		return err
	})
	return out, err
}

// ReplaceUser answers PUT /Users/{id}: the body replaces the attributes
// (active, when absent, is kept).
func (s *Service) ReplaceUser(ctx context.Context, a Actor, id string, body []byte, ifMatch string) (map[string]any, error) {
	return s.changeUser(ctx, a, id, ifMatch, func(cur userState) (userState, error) {
		return userFromBody(userState{Active: cur.Active}, body)
	})
}

// PatchUser answers PATCH /Users/{id}.
func (s *Service) PatchUser(ctx context.Context, a Actor, id string, body []byte, ifMatch string) (map[string]any, error) {
	ops, err := readPatch(body)
	if err != nil {
		return nil, err
	}
	return s.changeUser(ctx, a, id, ifMatch, func(cur userState) (userState, error) {
		st := cur
		st.Emails = append([]email(nil), cur.emails()...)
		for _, op := range ops {
			if err := patchUser(&st, op); err != nil {
				return st, err
			}
		}
		return st, nil
	})
}

// DeleteUser answers DELETE /Users/{id}: the membership is suspended like
// a deactivation (kept for history, nothing of the person's work lost) and
// the user disappears from SCIM until provisioned again.
func (s *Service) DeleteUser(ctx context.Context, a Actor, id, ifMatch string) error {
	uid, err := uuid.Parse(id)
	if err != nil {
		return notFound("user")
	}
	return s.db.InTx(ctx, func(q store.Querier) error {
		r, err := scimdb.GetUser(ctx, q, a.OrgID, uid, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("user")
		} else if err != nil {
			return err
		}
		if stale(ifMatch, s.userResource(r)) {
			return preconditionFailed("the user has changed since the version in If-Match")
		}
		return s.deactivate(ctx, q, a, uid, true, s.clock.Now())
	})
}

// changeUser runs a PUT or PATCH: it reads the user, computes the new state
// and writes what changed.
func (s *Service) changeUser(ctx context.Context, a Actor, id, ifMatch string, next func(userState) (userState, error)) (map[string]any, error) {
	uid, err := uuid.Parse(id)
	if err != nil {
		return nil, notFound("user")
	}
	var out map[string]any
	err = s.db.InTx(ctx, func(q store.Querier) error {
		r, err := scimdb.GetUser(ctx, q, a.OrgID, uid, true)
		if errors.Is(err, store.ErrNotFound) {
			return notFound("user")
		}
		if err != nil {
			return err
		}
		if stale(ifMatch, s.userResource(r)) {
			return preconditionFailed("the user has changed since the version in If-Match")
		}
		old := stateOf(r)
		st, err := next(old)
		if err != nil {
			return err
		}
		if err := st.validate(); err != nil {
			return err
		}
		if err := s.writeUser(ctx, q, a, r, old, st); err != nil {
			return err
		}
		r, err = scimdb.GetUser(ctx, q, a.OrgID, uid, false)
		out = s.userResource(r)
		return err
	})
	return out, err
}

func (s *Service) writeUser(ctx context.Context, q store.Querier, a Actor, r scimdb.User, old, st userState) error {
	now := s.clock.Now()
	var changes []domain.FieldChange
	if st.UserName != old.UserName || st.DisplayName != old.DisplayName {
		others, err := scimdb.OtherMemberships(ctx, q, a.OrgID, r.ID)
		if err != nil {
			return err
		}
		if others > 0 {
			// The person belongs to other organizations too: their
			// sign-in address is not this provider's to change, and their
			// name stays their own.
			if !strings.EqualFold(st.UserName, old.UserName) {
				return mutability("userName of a person who belongs to other organizations cannot be changed by this organization's provider")
			}
			st.UserName, st.DisplayName = old.UserName, old.DisplayName
		} else {
			if err := scimdb.SetUser(ctx, q, r.ID, st.UserName, st.DisplayName, now); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return uniqueness("another user has this userName")
				}
				return err
			}
			if st.UserName != old.UserName {
				changes = append(changes, domain.FieldChange{Field: "userName", Old: old.UserName, New: st.UserName})
			}
			if st.DisplayName != old.DisplayName {
				changes = append(changes, domain.FieldChange{Field: "displayName", Old: old.DisplayName, New: st.DisplayName})
			}
		}
	}
	op, np := old.profile(), st.profile()
	if len(st.Emails) == 1 && len(old.Emails) == 0 && st.Emails[0] == (email{Value: st.UserName, Type: "work", Primary: true}) {
		np.Emails = nil // the derived email, unchanged
	}
	for _, f := range []struct {
		name     string
		old, new *string
	}{{"externalId", op.ExternalID, np.ExternalID}, {"name.givenName", op.GivenName, np.GivenName}, {"name.familyName", op.FamilyName, np.FamilyName}} {
		if deref(f.old) != deref(f.new) || (f.old == nil) != (f.new == nil) {
			changes = append(changes, domain.FieldChange{Field: f.name, Old: f.old, New: f.new})
		}
	}
	if string(op.Emails) != string(np.Emails) {
		changes = append(changes, domain.FieldChange{Field: "emails", Old: json.RawMessage(orNull(op.Emails)), New: json.RawMessage(orNull(np.Emails))})
	}
	if len(changes) > 0 {
		if err := scimdb.SetProfile(ctx, q, a.OrgID, r.ID, np, now); err != nil {
			return err
		}
		if err := s.record(ctx, q, a, "user", r.ID, "scim_updated", changes); err != nil {
			return err
		}
	}
	switch {
	case old.Active && !st.Active:
		return s.deactivate(ctx, q, a, r.ID, false, now)
	case !old.Active && st.Active:
		if err := scimdb.Reactivate(ctx, q, a.OrgID, r.ID, now); err != nil {
			return err
		}
		return s.record(ctx, q, a, "membership", r.ID, "scim_reactivated", []domain.FieldChange{{Field: "active", Old: false, New: true}})
	}
	return nil
}

// stale reports whether an If-Match header names another version than the
// resource's (absent or "*" never does).
func stale(ifMatch string, res map[string]any) bool {
	return ifMatch != "" && ifMatch != "*" && ifMatch != res["meta"].(map[string]any)["version"]
}

func orNull(b []byte) []byte {
	if len(b) == 0 {
		return []byte("null")
	}
	return b
}

// deactivate suspends the membership and ends the person's access to the
// org at once (API keys made in it deleted, refresh tokens revoked); the
// org keeps at least one active Owner.
func (s *Service) deactivate(ctx context.Context, q store.Querier, a Actor, userID uuid.UUID, deleted bool, now time.Time) error {
	// The org's Owners are locked first, as the REST member routes lock
	// them: two concurrent deactivations of its two Owners cannot both see
	// the other one still active.
	owners, err := orgdb.LockOwners(ctx, q, a.OrgID)
	if err != nil {
		return err
	}
	m, err := scimdb.MembershipOf(ctx, q, a.OrgID, userID)
	if err != nil {
		return err
	}
	if m.Role == "owner" && m.SuspendedAt == nil && !slices.ContainsFunc(owners, func(id uuid.UUID) bool { return id != userID }) {
		return mutability("the organization's last active Owner cannot be deactivated")
	}
	keys, tokens, err := scimdb.Suspend(ctx, q, a.OrgID, userID, deleted, now)
	if err != nil {
		return err
	}
	action := "scim_deactivated"
	if deleted {
		action = "scim_deleted"
	}
	return s.record(ctx, q, a, "membership", userID, action, []domain.FieldChange{{Field: "active", Old: m.SuspendedAt == nil, New: false},
		{Field: "api_keys_revoked", New: keys}, {Field: "refresh_tokens_revoked", New: tokens}})
}
