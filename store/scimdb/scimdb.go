// Package scimdb holds the SQL of SCIM 2.0 provisioning: the token lookup,
// an org's members as SCIM Users (users joined with memberships) and its
// teams as SCIM Groups. Filters arrive as parameterized squirrel
// expressions built by domain/scim over the column names of this package.
package scimdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Token is the live SCIM token of an org whose SSO is configured.
type Token struct {
	ID          uuid.UUID `db:"id"`
	OrgID       uuid.UUID `db:"org_id"`
	Prefix      string    `db:"prefix"`
	DefaultRole string    `db:"default_role"`
}

// TokenByHash finds a live token by its SHA-256; an org without SSO has no
// usable token (store.ErrNotFound).
func TokenByHash(ctx context.Context, q store.Querier, hash []byte) (Token, error) {
	return store.Get[Token](ctx, q, store.SQL.Select("t.id", "t.org_id", "t.prefix", "c.default_role").
		From("scim_tokens t").Join("sso_configs c ON c.org_id = t.org_id").
		Where(sq.Eq{"t.token_hash": hash, "t.revoked_at": nil}))
}

// User is an org member as SCIM sees it.
type User struct {
	ID          uuid.UUID  `db:"id"`
	Email       string     `db:"email"`
	DisplayName string     `db:"display_name"`
	Role        string     `db:"role"`
	SuspendedAt *time.Time `db:"suspended_at"`
	ExternalID  *string    `db:"scim_external_id"`
	GivenName   *string    `db:"scim_given_name"`
	FamilyName  *string    `db:"scim_family_name"`
	Emails      []byte     `db:"scim_emails"`
	Created     time.Time  `db:"joined_at"`
	UserUpdated time.Time  `db:"updated_at"`
	Modified    *time.Time `db:"scim_modified_at"`
}

// User filter columns: the SQL expressions domain/scim compares.
const (
	UserIDCol         = "u.id::text"
	UserNameCol       = "u.email"
	UserDisplayCol    = "u.display_name"
	UserExternalCol   = "m.scim_external_id"
	UserGivenCol      = "m.scim_given_name"
	UserFamilyCol     = "m.scim_family_name"
	UserActiveCol     = "(m.suspended_at IS NULL)"
	UserEmailValueSQL = "(SELECT e->>'value' FROM jsonb_array_elements(COALESCE(m.scim_emails, '[]'::jsonb)) e)"
)

func userCols() []string {
	return []string{"u.id", "u.email", "u.display_name", "m.role", "m.suspended_at", "m.scim_external_id",
		"m.scim_given_name", "m.scim_family_name", "m.scim_emails", "m.joined_at", "u.updated_at", "m.scim_modified_at"}
}

func usersFrom(orgID uuid.UUID) sq.SelectBuilder {
	return store.SQL.Select(userCols()...).From("memberships m").Join("users u ON u.id = m.user_id").
		Where(sq.Eq{"m.org_id": orgID, "m.scim_deleted_at": nil})
}

// ListUsers pages an org's SCIM users matching cond (nil: all) by id, from
// offset, and counts them all.
func ListUsers(ctx context.Context, q store.Querier, orgID uuid.UUID, cond sq.Sqlizer, offset, limit uint64) ([]User, int64, error) {
	b := usersFrom(orgID)
	c := store.SQL.Select("count(*)").From("memberships m").Join("users u ON u.id = m.user_id").
		Where(sq.Eq{"m.org_id": orgID, "m.scim_deleted_at": nil})
	if cond != nil {
		b, c = b.Where(cond), c.Where(cond)
	}
	total, err := store.Scalar[int64](ctx, q, c)
	if err != nil || limit == 0 {
		return []User{}, total, err
	}
	rows, err := store.Select[User](ctx, q, b.OrderBy("u.id").Offset(offset).Limit(limit))
	return rows, total, err
}

// GetUser reads a SCIM user of the org (not SCIM-deleted).
func GetUser(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, forUpdate bool) (User, error) {
	b := usersFrom(orgID).Where(sq.Eq{"u.id": userID})
	if forUpdate {
		b = b.Suffix("FOR UPDATE OF m")
	}
	return store.Get[User](ctx, q, b)
}

// Membership is the SCIM side of a membership row, SCIM-deleted or not.
type Membership struct {
	UserID      uuid.UUID  `db:"user_id"`
	Role        string     `db:"role"`
	SuspendedAt *time.Time `db:"suspended_at"`
	DeletedAt   *time.Time `db:"scim_deleted_at"`
}

// MembershipOf reads a user's membership row in the org, locked.
func MembershipOf(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (Membership, error) {
	return store.Get[Membership](ctx, q, store.SQL.Select("user_id", "role", "suspended_at", "scim_deleted_at").
		From("memberships").Where(sq.Eq{"org_id": orgID, "user_id": userID}).Suffix("FOR UPDATE"))
}

// InsertMembership adds a membership made by SCIM: only the org's single
// sign-on reaches it (memberships.sso_only).
func InsertMembership(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, role string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("memberships").
		Columns("org_id", "user_id", "role", "joined_at", "scim_modified_at", "sso_only").Values(orgID, userID, role, at, at, true))
	return err
}

// Profile is what SCIM keeps on the membership.
type Profile struct {
	ExternalID *string
	GivenName  *string
	FamilyName *string
	Emails     []byte // JSON array, nil: none
}

// SetProfile writes the membership's SCIM attributes and marks it modified;
// it also clears a SCIM deletion (a re-provisioned user).
func SetProfile(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, p Profile, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("memberships").
		Set("scim_external_id", p.ExternalID).Set("scim_given_name", p.GivenName).Set("scim_family_name", p.FamilyName).
		Set("scim_emails", p.Emails).Set("scim_modified_at", at).Set("scim_deleted_at", nil).
		Where(sq.Eq{"org_id": orgID, "user_id": userID}))
	return err
}

// SetUser writes the global user's email and display name.
func SetUser(ctx context.Context, q store.Querier, userID uuid.UUID, email, displayName string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("users").Set("email", email).Set("display_name", displayName).
		Set("updated_at", at).Where(sq.Eq{"id": userID}))
	return err
}

// OtherMemberships counts the user's memberships outside orgID (any state).
func OtherMemberships(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("memberships").
		Where(sq.Eq{"user_id": userID}).Where(sq.NotEq{"org_id": orgID}))
}

// Suspend suspends the membership (kept for history) and, with deleted,
// hides it from SCIM; access ends at once: the user's API keys made in the
// org are deleted, their refresh tokens of sessions in the org revoked, and
// every refresh token when no other active membership is left. It returns
// how many keys and refresh tokens it revoked.
func Suspend(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, deleted bool, at time.Time) (keys, tokens int64, err error) {
	u := store.SQL.Update("memberships").Set("suspended_at", sq.Expr("COALESCE(suspended_at, ?)", at)).
		Set("scim_modified_at", at).Where(sq.Eq{"org_id": orgID, "user_id": userID})
	if deleted {
		u = u.Set("scim_deleted_at", at)
	}
	if _, err = store.Exec(ctx, q, u); err != nil {
		return 0, 0, err
	}
	if keys, err = store.Exec(ctx, q, store.SQL.Delete("api_keys").Where(sq.Eq{"org_id": orgID, "user_id": userID})); err != nil {
		return 0, 0, err
	}
	tokens, err = store.Exec(ctx, q, store.SQL.Update("refresh_tokens").Set("revoked_at", at).
		Where(sq.Eq{"user_id": userID, "revoked_at": nil}).
		Where(sq.Or{sq.Eq{"org_id": orgID}, sq.Expr(`NOT EXISTS (SELECT 1 FROM memberships o
			WHERE o.user_id = ? AND o.org_id <> ? AND o.suspended_at IS NULL)`, userID, orgID)}))
	return keys, tokens, err
}

// Reactivate lifts a suspension (and a SCIM deletion).
func Reactivate(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("memberships").Set("suspended_at", nil).Set("scim_deleted_at", nil).
		Set("scim_modified_at", at).Where(sq.Eq{"org_id": orgID, "user_id": userID}))
	return err
}

// Group is a team as SCIM sees it.
type Group struct {
	ID         uuid.UUID `db:"id"`
	Name       string    `db:"name"`
	ExternalID *string   `db:"scim_external_id"`
	CreatedAt  time.Time `db:"created_at"`
	UpdatedAt  time.Time `db:"updated_at"`
}

// Group filter columns.
const (
	GroupIDCol       = "t.id::text"
	GroupNameCol     = "t.name"
	GroupExternalCol = "t.scim_external_id"
	GroupMemberSQL   = "(SELECT tm.user_id::text FROM team_members tm WHERE tm.team_id = t.id)"
)

func groupCols() []string {
	return []string{"t.id", "t.name", "t.scim_external_id", "t.created_at", "t.updated_at"}
}

// ListGroups pages an org's teams matching cond by id and counts them all.
func ListGroups(ctx context.Context, q store.Querier, orgID uuid.UUID, cond sq.Sqlizer, offset, limit uint64) ([]Group, int64, error) {
	b := store.SQL.Select(groupCols()...).From("teams t").Where(sq.Eq{"t.org_id": orgID})
	c := store.SQL.Select("count(*)").From("teams t").Where(sq.Eq{"t.org_id": orgID})
	if cond != nil {
		b, c = b.Where(cond), c.Where(cond)
	}
	total, err := store.Scalar[int64](ctx, q, c)
	if err != nil || limit == 0 {
		return []Group{}, total, err
	}
	rows, err := store.Select[Group](ctx, q, b.OrderBy("t.id").Offset(offset).Limit(limit))
	return rows, total, err
}

// GetGroup reads a team of the org.
func GetGroup(ctx context.Context, q store.Querier, orgID, id uuid.UUID, forUpdate bool) (Group, error) {
	b := store.SQL.Select(groupCols()...).From("teams t").Where(sq.Eq{"t.org_id": orgID, "t.id": id})
	if forUpdate {
		b = b.Suffix("FOR UPDATE")
	}
	return store.Get[Group](ctx, q, b)
}

// InsertGroup creates a team; a taken name is store.ErrConflict.
func InsertGroup(ctx context.Context, q store.Querier, orgID uuid.UUID, g Group) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("teams").Columns("id", "org_id", "name", "scim_external_id", "created_at", "updated_at").
		Values(g.ID, orgID, g.Name, g.ExternalID, g.CreatedAt, g.UpdatedAt))
	return err
}

// UpdateGroup writes a team's name and external id.
func UpdateGroup(ctx context.Context, q store.Querier, orgID uuid.UUID, g Group) error {
	_, err := store.Exec(ctx, q, store.SQL.Update("teams").Set("name", g.Name).Set("scim_external_id", g.ExternalID).
		Set("updated_at", g.UpdatedAt).Where(sq.Eq{"org_id": orgID, "id": g.ID}))
	return err
}

// Member is a team member with the name SCIM shows as display.
type Member struct {
	TeamID      uuid.UUID `db:"team_id"`
	UserID      uuid.UUID `db:"user_id"`
	DisplayName string    `db:"display_name"`
}

// Members lists the members of the given teams, by team then user.
func Members(ctx context.Context, q store.Querier, orgID uuid.UUID, teamIDs []uuid.UUID) ([]Member, error) {
	return store.Select[Member](ctx, q, store.SQL.Select("tm.team_id", "tm.user_id", "u.display_name").
		From("team_members tm").Join("users u ON u.id = tm.user_id").
		Where(sq.Eq{"tm.org_id": orgID}).Where("tm.team_id = ANY(?)", teamIDs).OrderBy("tm.team_id", "tm.user_id"))
}

// KnownMembers returns those of ids who have a (not SCIM-deleted)
// membership in the org, suspended or not.
func KnownMembers(ctx context.Context, q store.Querier, orgID uuid.UUID, ids []uuid.UUID) ([]uuid.UUID, error) {
	type row struct {
		UserID uuid.UUID `db:"user_id"`
	}
	rows, err := store.Select[row](ctx, q, store.SQL.Select("user_id").From("memberships").
		Where(sq.Eq{"org_id": orgID, "scim_deleted_at": nil}).Where("user_id = ANY(?)", ids).OrderBy("user_id"))
	out := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		out[i] = r.UserID
	}
	return out, err
}
