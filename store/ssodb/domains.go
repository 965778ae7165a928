package ssodb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Domain is an sso_domains row: an email domain an org proves it controls.
type Domain struct {
	OrgID      uuid.UUID  `db:"org_id"`
	Domain     string     `db:"domain"`
	Challenge  string     `db:"challenge"`
	CreatedBy  *uuid.UUID `db:"created_by"`
	CreatedAt  time.Time  `db:"created_at"`
	VerifiedAt *time.Time `db:"verified_at"`
}

func domainColumns() []string {
	return []string{"org_id", "domain", "challenge", "created_by", "created_at", "verified_at"}
}

// InsertDomain records a domain to verify; one the org has is
// store.ErrConflict.
func InsertDomain(ctx context.Context, q store.Querier, d Domain) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("sso_domains").Columns(domainColumns()...).
		Values(d.OrgID, d.Domain, d.Challenge, d.CreatedBy, d.CreatedAt, d.VerifiedAt))
	return err
}

// GetDomain reads one of the org's domains.
func GetDomain(ctx context.Context, q store.Querier, orgID uuid.UUID, domain string) (Domain, error) {
	return store.Get[Domain](ctx, q, store.SQL.Select(domainColumns()...).From("sso_domains").
		Where(sq.Eq{"org_id": orgID, "domain": domain}))
}

// Domains lists the org's domains by name.
func Domains(ctx context.Context, q store.Querier, orgID uuid.UUID) ([]Domain, error) {
	return store.Select[Domain](ctx, q, store.SQL.Select(domainColumns()...).From("sso_domains").
		Where(sq.Eq{"org_id": orgID}).OrderBy("domain"))
}

// CountDomains counts the org's domains.
func CountDomains(ctx context.Context, q store.Querier, orgID uuid.UUID) (int64, error) {
	return store.Scalar[int64](ctx, q, store.SQL.Select("count(*)").From("sso_domains").Where(sq.Eq{"org_id": orgID}))
}

// MarkVerified records that the org proved it controls the domain; it
// returns the row.
func MarkVerified(ctx context.Context, q store.Querier, orgID uuid.UUID, domain string, at time.Time) (Domain, error) {
	return store.Get[Domain](ctx, q, store.SQL.Update("sso_domains").
		Set("verified_at", sq.Expr("COALESCE(verified_at, ?)", at)).
		Where(sq.Eq{"org_id": orgID, "domain": domain}).Suffix("RETURNING "+store.Cols(domainColumns())))
}

// DeleteDomain removes one of the org's domains.
func DeleteDomain(ctx context.Context, q store.Querier, orgID uuid.UUID, domain string) (int64, error) {
	return store.Exec(ctx, q, store.SQL.Delete("sso_domains").Where(sq.Eq{"org_id": orgID, "domain": domain}))
}

// DomainVerified reports whether the org has verified the domain.
func DomainVerified(ctx context.Context, q store.Querier, orgID uuid.UUID, domain string) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().Column(sq.Expr(`EXISTS (SELECT 1 FROM sso_domains
		WHERE org_id = ? AND domain = ? AND verified_at IS NOT NULL)`, orgID, domain)))
}
