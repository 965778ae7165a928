// Package ssodb holds the SQL of per-org single sign-on: the provider
// configuration, sign-ins in flight (state), and the provider subjects of
// users.
package ssodb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Config is an sso_configs row.
type Config struct {
	OrgID              uuid.UUID `db:"org_id"`
	IssuerURL          string    `db:"issuer_url"`
	ClientID           string    `db:"client_id"`
	ClientSecretSealed []byte    `db:"client_secret_sealed"`
	AllowedDomains     []string  `db:"allowed_domains"`
	DefaultRole        string    `db:"default_role"`
	CreatedAt          time.Time `db:"created_at"`
	UpdatedAt          time.Time `db:"updated_at"`
}

func configColumns() []string {
	return []string{"org_id", "issuer_url", "client_id", "client_secret_sealed", "allowed_domains", "default_role", "created_at", "updated_at"}
}

// GetConfig reads an org's SSO configuration.
func GetConfig(ctx context.Context, q store.Querier, orgID uuid.UUID) (Config, error) {
	return store.Get[Config](ctx, q, store.SQL.Select(configColumns()...).From("sso_configs").Where(sq.Eq{"org_id": orgID}))
}

// PutConfig creates or replaces an org's configuration (created_at kept).
func PutConfig(ctx context.Context, q store.Querier, c Config) (Config, error) {
	return store.GetRaw[Config](ctx, q, `INSERT INTO sso_configs (`+store.Cols(configColumns())+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
		ON CONFLICT (org_id) DO UPDATE SET issuer_url = EXCLUDED.issuer_url, client_id = EXCLUDED.client_id,
		  client_secret_sealed = EXCLUDED.client_secret_sealed, allowed_domains = EXCLUDED.allowed_domains,
		  default_role = EXCLUDED.default_role, updated_at = EXCLUDED.updated_at
		RETURNING `+store.Cols(configColumns()),
		c.OrgID, c.IssuerURL, c.ClientID, c.ClientSecretSealed, c.AllowedDomains, c.DefaultRole, c.UpdatedAt)
}

// DeleteConfig turns SSO off for an org: the configuration, sign-ins in
// flight and the SCIM token go.
func DeleteConfig(ctx context.Context, q store.Querier, orgID uuid.UUID, at time.Time) (int64, error) {
	n, err := store.Exec(ctx, q, store.SQL.Delete("sso_configs").Where(sq.Eq{"org_id": orgID}))
	if err != nil || n == 0 {
		return n, err
	}
	if _, err := store.Exec(ctx, q, store.SQL.Delete("sso_states").Where(sq.Eq{"org_id": orgID})); err != nil {
		return n, err
	}
	_, err = store.Exec(ctx, q, store.SQL.Update("scim_tokens").Set("revoked_at", at).
		Where(sq.Eq{"org_id": orgID, "revoked_at": nil}))
	return n, err
}

// State is a sign-in in flight.
type State struct {
	StateHash    []byte    `db:"state_hash"`
	OrgID        uuid.UUID `db:"org_id"`
	CodeVerifier string    `db:"code_verifier"`
	Nonce        string    `db:"nonce"`
	ExpiresAt    time.Time `db:"expires_at"`
	CreatedAt    time.Time `db:"created_at"`
}

// InsertState records a sign-in in flight and prunes expired ones.
func InsertState(ctx context.Context, q store.Querier, s State) error {
	if _, err := store.Exec(ctx, q, store.SQL.Delete("sso_states").Where(sq.Lt{"expires_at": s.CreatedAt})); err != nil {
		return err
	}
	_, err := store.Exec(ctx, q, store.SQL.Insert("sso_states").
		Columns("state_hash", "org_id", "code_verifier", "nonce", "expires_at", "created_at").
		Values(s.StateHash, s.OrgID, s.CodeVerifier, s.Nonce, s.ExpiresAt, s.CreatedAt))
	return err
}

// ClaimState deletes and returns the sign-in of a state hash: a state is
// used at most once, whether the sign-in then succeeds or not.
func ClaimState(ctx context.Context, q store.Querier, hash []byte) (State, error) {
	return store.GetRaw[State](ctx, q, `DELETE FROM sso_states WHERE state_hash = $1
		RETURNING state_hash, org_id, code_verifier, nonce, expires_at, created_at`, hash)
}

// UserBySubject finds the user linked to a provider subject in an org.
func UserBySubject(ctx context.Context, q store.Querier, orgID uuid.UUID, issuer, subject string) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("user_id").From("sso_identities").
		Where(sq.Eq{"org_id": orgID, "issuer_url": issuer, "subject": subject}))
}

// LinkedElsewhere reports whether the user is linked in the org to a
// subject of issuer other than subject.
func LinkedElsewhere(ctx context.Context, q store.Querier, orgID uuid.UUID, issuer, subject string, userID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr(`EXISTS (SELECT 1 FROM sso_identities
		WHERE org_id = ? AND issuer_url = ? AND user_id = ? AND subject <> ?)`, orgID, issuer, userID, subject)))
}

// LinkSubject records a provider subject for a user in an org.
func LinkSubject(ctx context.Context, q store.Querier, orgID uuid.UUID, issuer, subject string, userID uuid.UUID, at time.Time) error {
	_, err := store.Exec(ctx, q, sq.Expr(`INSERT INTO sso_identities (org_id, issuer_url, subject, user_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, orgID, issuer, subject, userID, at))
	return err
}

// Membership is a user's membership row in an org, suspended or not.
type Membership struct {
	Role        string     `db:"role"`
	SuspendedAt *time.Time `db:"suspended_at"`
}

// InsertMembership adds a membership that the org's single sign-on made:
// only sessions that sign-on starts reach it (memberships.sso_only).
func InsertMembership(ctx context.Context, q store.Querier, orgID, userID uuid.UUID, role string, at time.Time) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("memberships").Columns("org_id", "user_id", "role", "joined_at", "sso_only").
		Values(orgID, userID, role, at, true))
	return err
}

// MembershipOf reads a user's membership in org (suspended ones too).
func MembershipOf(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (Membership, error) {
	return store.Get[Membership](ctx, q, store.SQL.Select("role", "suspended_at").From("memberships").
		Where(sq.Eq{"org_id": orgID, "user_id": userID}))
}

// ScimToken is a scim_tokens row.
type ScimToken struct {
	ID        uuid.UUID  `db:"id"`
	OrgID     uuid.UUID  `db:"org_id"`
	TokenHash []byte     `db:"token_hash"`
	Prefix    string     `db:"prefix"`
	CreatedBy *uuid.UUID `db:"created_by"`
	CreatedAt time.Time  `db:"created_at"`
}

// RotateScimToken revokes the org's live SCIM token, if any, and stores t.
func RotateScimToken(ctx context.Context, q store.Querier, t ScimToken) error {
	if _, err := store.Exec(ctx, q, store.SQL.Update("scim_tokens").Set("revoked_at", t.CreatedAt).
		Where(sq.Eq{"org_id": t.OrgID, "revoked_at": nil})); err != nil {
		return err
	}
	_, err := store.Exec(ctx, q, store.SQL.Insert("scim_tokens").
		Columns("id", "org_id", "token_hash", "prefix", "created_by", "created_at").
		Values(t.ID, t.OrgID, t.TokenHash, t.Prefix, t.CreatedBy, t.CreatedAt))
	return err
}
