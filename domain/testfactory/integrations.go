package testfactory

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/store"
	"tracker/store/chatdb"
	"tracker/store/ssodb"
)

// ChatWorkspace connects the chat team teamID to orgID by team id alone
// (no install proved it, so it routes nothing), as createdBy's claim.
func ChatWorkspace(t testing.TB, db *store.DB, teamID string, orgID, createdBy uuid.UUID) chatdb.Workspace {
	t.Helper()
	w := chatdb.Workspace{TeamID: teamID, OrgID: orgID, CreatedBy: &createdBy, CreatedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := chatdb.InsertWorkspace(context.Background(), db.Q(), w); err != nil {
		t.Fatalf("testfactory.ChatWorkspace: %v", err)
	}
	return w
}

// SSOConfig configures single sign-on for orgID with a placeholder
// provider (issuer https://idp.example.test, client "client", new users
// join as members); enough for the routes that need SSO on.
func SSOConfig(t testing.TB, db *store.DB, orgID uuid.UUID) ssodb.Config {
	t.Helper()
	now := time.Now().UTC().Truncate(time.Microsecond)
	c, err := ssodb.PutConfig(context.Background(), db.Q(), ssodb.Config{OrgID: orgID, IssuerURL: "https://idp.example.test",
		ClientID: "client", ClientSecretSealed: []byte{0}, AllowedDomains: []string{}, DefaultRole: "member", CreatedAt: now, UpdatedAt: now})
	if err != nil {
		t.Fatalf("testfactory.SSOConfig: %v", err)
	}
	return c
}
