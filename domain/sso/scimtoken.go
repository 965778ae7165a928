package sso

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/store"
	"tracker/store/ssodb"
)

// ScimToken is the answer of issuing a SCIM token: Token is shown once.
type ScimToken struct {
	ID        uuid.UUID `json:"id"`
	Token     string    `json:"token"`
	Prefix    string    `json:"token_prefix"`
	CreatedAt time.Time `json:"created_at"`
}

// IssueScimToken issues the org's SCIM bearer token (Owner): `scim_`
// prefixed, stored only as a SHA-256 hash; issuing revokes the previous
// one. SSO must be configured first (422).
func (s *Service) IssueScimToken(ctx context.Context, p domain.Principal, orgID uuid.UUID) (ScimToken, error) {
	var out ScimToken
	err := s.db.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleOwner, "organization"); err != nil {
			return err
		}
		if _, err := ssodb.GetConfig(ctx, q, orgID); errors.Is(err, store.ErrNotFound) {
			return domain.Invalidf("configure single sign-on (PUT /api/v1/orgs/%s/sso) before issuing a SCIM token", orgID)
		} else if err != nil {
			return err
		}
		token := "scim_" + account.NewSecret(32)
		row := ssodb.ScimToken{ID: domain.NewID(), OrgID: orgID, TokenHash: account.HashToken(token), Prefix: token[:12],
			CreatedBy: &p.UserID, CreatedAt: s.clock.Now()}
		if err := ssodb.RotateScimToken(ctx, q, row); err != nil {
			return err
		}
		out = ScimToken{ID: row.ID, Token: token, Prefix: row.Prefix, CreatedAt: row.CreatedAt.UTC()}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "scim_token", EntityID: row.ID, Action: "issued"})
	})
	return out, err
}
