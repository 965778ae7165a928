package exchange_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/domain/exchange/export/exportseed"
)

// isMember tells whether the user with the email is a member of the org.
func isMember(t *testing.T, f *fixture, org uuid.UUID, email string) bool {
	t.Helper()
	var n int
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id
	    WHERE m.org_id = $1 AND lower(u.email) = lower($2)`, org, email).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n > 0
}

// pendingInviteRole is the role of the org's pending invite for the email,
// "" when there is none.
func pendingInviteRole(t *testing.T, f *fixture, org uuid.UUID, email string) string {
	t.Helper()
	var role string
	err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT role FROM invites WHERE org_id = $1 AND lower(email) = lower($2)
	    AND accepted_at IS NULL AND revoked_at IS NULL AND expires_at > now()`, org, email).Scan(&role)
	if errors.Is(err, pgx.ErrNoRows) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return role
}

// TestImportNeverEnrollsAnExistingUser: an import naming a person who has
// an account (in another org) succeeds, attributes the work to them, and
// leaves them a pending invite, not a membership.
func TestImportNeverEnrollsAnExistingUser(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	victim := f.env.Register("Victim") // owner of their own personal org only
	raw, _ := json.Marshal(smallDoc(victim.Email))
	st := f.importInto(t, f.b, raw)
	if st.Status != "completed" || st.Summary.TicketsCreated != 1 || st.Summary.UsersCreated != 0 {
		t.Fatalf("import %+v", st)
	}
	if isMember(t, f, f.b, victim.Email) {
		t.Fatal("the import made another tenant's user a member of the importer's org")
	}
	if role := pendingInviteRole(t, f, f.b, victim.Email); role != "member" {
		t.Fatalf("pending invite role %q, want member", role)
	}
	f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/members", victim.Token, nil).Expect(t, 404)
	var assigned int
	_ = f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM project_members WHERE org_id = $1 AND user_id = $2`, f.b, victim.ID).Scan(&assigned)
	if assigned != 0 {
		t.Fatal("the import assigned a non-member to a project")
	}
	var reporter uuid.UUID
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT reporter_id FROM tickets WHERE org_id = $1`, f.b).Scan(&reporter); err != nil || reporter != victim.ID {
		t.Fatalf("reporter %v, want %v (err %v)", reporter, victim.ID, err)
	}
	// A second import of the same people makes no second invite.
	doc := smallDoc(victim.Email)
	doc["projects"].([]any)[0].(map[string]any)["key"] = "SN"
	raw, _ = json.Marshal(doc)
	f.importInto(t, f.b, raw)
	var n int
	_ = f.env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM invites WHERE org_id = $1 AND email = $2`, f.b, victim.Email).Scan(&n)
	if n != 1 {
		t.Fatalf("%d invites after two imports", n)
	}
}

// TestImportPlaceholderIsClaimedByRegistering: an import naming an unknown
// email makes a placeholder that cannot log in and blocks nothing:
// registering with the email answers 201 with the same user id, and the
// imported ticket, comments and time entry are that user's.
func TestImportPlaceholderIsClaimedByRegistering(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	email := "Unknown-" + uuid.NewString()[:8] + "@example.test"
	raw, _ := json.Marshal(smallDoc(email))
	st := f.importInto(t, f.b, raw)
	if st.Status != "completed" || st.Summary.UsersCreated != 1 {
		t.Fatalf("import %+v", st)
	}
	var placeholder uuid.UUID
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT id FROM users WHERE email = $1 AND placeholder`, email).Scan(&placeholder); err != nil {
		t.Fatal(err)
	}
	if isMember(t, f, f.b, email) || pendingInviteRole(t, f, f.b, email) != "member" {
		t.Fatal("a placeholder must be invited, not enrolled")
	}
	login := map[string]any{"email": email, "password": "correct-horse-1"}
	if r := f.env.Do("POST", "/api/v1/auth/login", "", login); r.Status < 400 || r.Status >= 500 {
		t.Fatalf("a placeholder logged in: %d %s", r.Status, r.Body)
	}
	r := f.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": email, "password": "correct-horse-1", "display_name": "Una"}).Expect(t, 201)
	var auth struct {
		UserID      uuid.UUID `json:"user_id"`
		DisplayName string    `json:"display_name"`
	}
	r.Decode(t, &auth)
	if auth.UserID != placeholder || auth.DisplayName != "Una" {
		t.Fatalf("registered %+v, placeholder %v", auth, placeholder)
	}
	var reporter, author, entryUser uuid.UUID
	if err := f.env.DB.Pool.QueryRow(t.Context(), `SELECT t.reporter_id, c.author_id, e.user_id FROM tickets t
	    JOIN comments c ON c.ticket_id = t.id JOIN time_entries e ON e.ticket_id = t.id WHERE t.org_id = $1 LIMIT 1`, f.b).
		Scan(&reporter, &author, &entryUser); err != nil {
		t.Fatal(err)
	}
	if reporter != placeholder || author != placeholder || entryUser != placeholder {
		t.Fatalf("authorship %v %v %v, want %v", reporter, author, entryUser, placeholder)
	}
	f.env.Do("POST", "/api/v1/auth/login", "", login).Expect(t, 200)
	// Registering claimed the account once: a second registration is 409.
	f.env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": email, "password": "other-horse-2", "display_name": "Eve"}).Expect(t, 409)
	// Registering did not join the org: the invite is still pending.
	if isMember(t, f, f.b, email) {
		t.Fatal("registering without the invite code joined the org")
	}
}
