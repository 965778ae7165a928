package account

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
)

// SSOSession starts a session started by the single sign-on of orgID for a
// user with role inside the caller's transaction: the same auth result as a
// password login, but its access and refresh tokens are bound to orgID
// (an org's identity provider vouches for that org only).
func (s *Service) SSOSession(ctx context.Context, q store.Querier, userID, orgID uuid.UUID, role domain.Role, now time.Time) (AuthResult, error) {
	u, err := accountdb.UserByID(ctx, q, userID)
	if err != nil {
		return AuthResult{}, err
	}
	return s.startSession(ctx, q, u, orgID, role, true, uuid.Nil, now)
}
