// Package orgdb holds the SQL of organizations, memberships and invites.
package orgdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Org is an organizations row.
type Org struct {
	ID        uuid.UUID `db:"id"`
	Name      string    `db:"name"`
	Slug      string    `db:"slug"`
	CreatedAt time.Time `db:"created_at"`
	UpdatedAt time.Time `db:"updated_at"`
}

func orgColumns() []string { return []string{"id", "name", "slug", "created_at", "updated_at"} }

// InsertOrg creates an organization; a taken slug is store.ErrConflict.
func InsertOrg(ctx context.Context, q store.Querier, o Org) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("organizations").Columns(orgColumns()...).
		Values(o.ID, o.Name, o.Slug, o.CreatedAt, o.UpdatedAt))
	return err
}

// CountOrgs counts every organization (onboarding is open while it is 0).
func CountOrgs(ctx context.Context, q store.Querier) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("organizations"))
}

// OrgsOfUser lists the orgs the user is a member of, oldest membership first.
func OrgsOfUser(ctx context.Context, q store.Querier, userID uuid.UUID) ([]Org, error) {
	return store.Select[Org](ctx, q, store.SQL.Select("o.id", "o.name", "o.slug", "o.created_at", "o.updated_at").
		From("organizations o").Join("memberships m ON m.org_id = o.id").
		Where(sq.Eq{"m.user_id": userID, "m.suspended_at": nil}).OrderBy("m.joined_at", "o.id"))
}

// Membership is a memberships row.
type Membership struct {
	OrgID    uuid.UUID `db:"org_id"`
	UserID   uuid.UUID `db:"user_id"`
	Role     string    `db:"role"`
	JoinedAt time.Time `db:"joined_at"`
}

// InsertMembership adds a member; an existing membership is store.ErrConflict.
func InsertMembership(ctx context.Context, q store.Querier, m Membership) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("memberships").Columns("org_id", "user_id", "role", "joined_at").
		Values(m.OrgID, m.UserID, m.Role, m.JoinedAt))
	return err
}

// FirstMembership is the user's oldest membership that a password reaches:
// the org a login session starts in (a membership only the org's single
// sign-on reaches is skipped).
func FirstMembership(ctx context.Context, q store.Querier, userID uuid.UUID) (Membership, error) {
	return store.Get[Membership](ctx, q, store.SQL.Select("org_id", "user_id", "role", "joined_at").
		From("memberships").Where(sq.Eq{"user_id": userID, "suspended_at": nil, "sso_only": false}).
		OrderBy("joined_at", "org_id").Limit(1))
}

// Member is a member listing item.
type Member struct {
	UserID      uuid.UUID `db:"user_id"`
	DisplayName string    `db:"display_name"`
	Email       string    `db:"email"`
	Role        string    `db:"role"`
	JoinedAt    time.Time `db:"joined_at"`
}

// ListMembers lists an org's members by user id (keyset).
func ListMembers(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Member], error) {
	b := store.SQL.Select("m.user_id", "u.display_name", "u.email", "m.role", "m.joined_at").
		From("memberships m").Join("users u ON u.id = m.user_id").Where(sq.Eq{"m.org_id": orgID})
	return store.SelectPage(ctx, q, b, "m.user_id", p, func(m Member) uuid.UUID { return m.UserID })
}

// Invite is an invites row.
type Invite struct {
	ID         uuid.UUID  `db:"id"`
	OrgID      uuid.UUID  `db:"org_id"`
	Code       string     `db:"code"`
	Email      *string    `db:"email"`
	Role       string     `db:"role"`
	CreatedBy  uuid.UUID  `db:"created_by"`
	ExpiresAt  time.Time  `db:"expires_at"`
	AcceptedAt *time.Time `db:"accepted_at"`
	AcceptedBy *uuid.UUID `db:"accepted_by"`
	RevokedAt  *time.Time `db:"revoked_at"`
	CreatedAt  time.Time  `db:"created_at"`
}

func inviteColumns() []string {
	return []string{"id", "org_id", "code", "email", "role", "created_by", "expires_at", "accepted_at", "accepted_by", "revoked_at", "created_at"}
}

// InsertInvite creates an invite.
func InsertInvite(ctx context.Context, q store.Querier, i Invite) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("invites").Columns(inviteColumns()...).
		Values(i.ID, i.OrgID, i.Code, i.Email, i.Role, i.CreatedBy, i.ExpiresAt, i.AcceptedAt, i.AcceptedBy, i.RevokedAt, i.CreatedAt))
	return err
}

// PendingInvites lists an org's invites that are neither revoked, accepted
// nor expired.
func PendingInvites(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Invite, error) {
	return store.Select[Invite](ctx, q, store.SQL.Select(inviteColumns()...).From("invites").
		Where(sq.Eq{"org_id": orgID, "revoked_at": nil, "accepted_at": nil}).
		Where("expires_at > now()").OrderBy("id"))
}

// RevokeInvite revokes a pending invite of org; none is store.ErrNotFound.
func RevokeInvite(ctx context.Context, q store.Querier, orgID, id uuid.UUID, at time.Time) error {
	n, err := store.Exec(ctx, q, store.SQL.Update("invites").Set("revoked_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id, "revoked_at": nil, "accepted_at": nil}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ClaimInvite marks a usable invite accepted by userID, returning it; an
// unknown, used, revoked or expired code is store.ErrNotFound.
func ClaimInvite(ctx context.Context, q store.Querier, code string, userID uuid.UUID, at time.Time) (Invite, error) {
	return store.GetRaw[Invite](ctx, q, `UPDATE invites SET accepted_at = $3, accepted_by = $2
		WHERE code = $1 AND revoked_at IS NULL AND accepted_at IS NULL AND expires_at > $3
		RETURNING `+store.Cols(inviteColumns()), code, userID, at)
}
