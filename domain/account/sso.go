package account

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
)

// SessionFor starts a session for a user in org with role inside the
// caller's transaction: single sign-on answers the same auth result as a
// password login.
func (s *Service) SessionFor(ctx context.Context, q store.Querier, userID, orgID uuid.UUID, role domain.Role, now time.Time) (AuthResult, error) {
	u, err := accountdb.UserByID(ctx, q, userID)
	if err != nil {
		return AuthResult{}, err
	}
	return s.startSession(ctx, q, u, orgID, role, uuid.Nil, now)
}
