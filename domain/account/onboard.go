package account

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/org"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
)

// NeedsOnboarding is true while the server has no users.
func (s *Service) NeedsOnboarding(ctx context.Context) (bool, error) {
	n, err := accountdb.CountUsers(ctx, s.DB.Q())
	return n == 0, err
}

// OnboardInput is the first-run setup request.
type OnboardInput struct {
	Email, Password, OrgName, OrgSlug string
}

// Onboarded is the first-run result: the admin user, the org and an admin
// API key (shown once).
type Onboarded struct {
	OrgID        uuid.UUID `json:"org_id"`
	UserID       uuid.UUID `json:"user_id"`
	Email        string    `json:"email"`
	APIKey       string    `json:"api_key"`
	APIKeyPrefix string    `json:"api_key_prefix"`
}

// onboardLock serializes concurrent first-run requests.
const onboardLock = 4_411_009_552

var errOnboarded = domain.Conflict("onboarding has already been done", "organizations: exist")

// Onboard sets up a fresh server; once any org exists it is a 409.
func (s *Service) Onboard(ctx context.Context, in OnboardInput) (Onboarded, error) {
	var p domain.Problems
	if !ValidEmail(in.Email) {
		p.Add("email", "must be a valid email address")
	}
	if utf8.RuneCountInString(in.Password) < 8 {
		p.Add("password", "must be at least 8 characters")
	}
	if err := p.Err(); err != nil {
		return Onboarded{}, err
	}
	if err := org.ValidateNameSlug(in.OrgName, in.OrgSlug, "org_name", "org_slug"); err != nil {
		return Onboarded{}, err
	}
	// Hashing costs 19 MiB and tens of milliseconds: refuse a request that
	// must fail anyway before paying for it (checked again under the lock).
	if n, err := orgdb.CountOrgs(ctx, s.DB.Q()); err != nil {
		return Onboarded{}, err
	} else if n > 0 {
		return Onboarded{}, errOnboarded
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return Onboarded{}, err
	}
	var out Onboarded
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := q.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", onboardLock); err != nil {
			return err
		}
		n, err := orgdb.CountOrgs(ctx, q)
		if err != nil {
			return err
		}
		if n > 0 {
			return errOnboarded
		}
		now := s.now()
		name := strings.SplitN(in.Email, "@", 2)[0]
		u := accountdb.User{ID: domain.NewID(), Email: in.Email, DisplayName: name, PasswordHash: &hash, Active: true, CreatedAt: now, UpdatedAt: now}
		if err := accountdb.InsertUser(ctx, q, u); err != nil {
			return err
		}
		o, err := org.CreateIn(ctx, q, u.ID, in.OrgName, in.OrgSlug, s.now())
		if err != nil {
			return err
		}
		key := KeyPrefix + NewSecret(32)
		row := accountdb.APIKey{ID: domain.NewID(), OrgID: o.ID, UserID: u.ID, Name: "onboarding", KeyPrefix: key[:len(KeyPrefix)+8],
			KeyHash: HashToken(key), Scopes: []string{domain.ScopeAdmin}, ProjectIDs: []uuid.UUID{}, CreatedAt: now}
		if err := accountdb.InsertAPIKey(ctx, q, row); err != nil {
			return err
		}
		out = Onboarded{OrgID: o.ID, UserID: u.ID, Email: u.Email, APIKey: key, APIKeyPrefix: row.KeyPrefix}
		return nil
	})
	return out, err
}
