package account_test

import (
	"context"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/domain/testfactory"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
	"tracker/store/storetest"
)

var secret = []byte("0123456789abcdef0123456789abcdef")

// env is a service on its own database whose clock a test moves.
type env struct {
	t   *testing.T
	db  *store.DB
	svc *account.Service
	now time.Time
}

func newEnv(t *testing.T, registration string) *env {
	t.Helper()
	// Access tokens are verified against the wall clock: the service's
	// clock starts at it.
	e := &env{t: t, db: storetest.New(t), now: time.Now().UTC().Truncate(time.Second)}
	e.svc = account.New(e.db, domain.ClockFunc(func() time.Time { return e.now }),
		account.Tokens{Secret: secret, AccessTTL: time.Hour}, registration, time.Minute)
	return e
}

func (e *env) exec(sql string, args ...any) {
	e.t.Helper()
	if _, err := e.db.Q().Exec(context.Background(), sql, args...); err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) register(in account.RegisterInput) account.AuthResult {
	e.t.Helper()
	r, err := e.svc.Register(context.Background(), in)
	if err != nil {
		e.t.Fatalf("Register %s: %v", in.Email, err)
	}
	return r
}

func (e *env) claims(access string) account.Claims {
	e.t.Helper()
	c, err := e.svc.Tokens.Verify(access)
	if err != nil {
		e.t.Fatalf("Verify: %v", err)
	}
	return c
}

func TestRegisterValidation(t *testing.T) {
	t.Parallel()
	e := newEnv(t, account.RegistrationOpen)
	ok := account.RegisterInput{Email: "ada@example.com", Password: "éééééééé", DisplayName: strings.Repeat("名", 255)}
	for _, tc := range []struct {
		name string
		edit func(*account.RegisterInput)
		want []string
	}{
		{"a display name", func(in *account.RegisterInput) { in.Email = "Ada <ada@example.com>" }, []string{"email: must be a valid email address"}},
		{"spaces", func(in *account.RegisterInput) { in.Email = " ada@example.com" }, []string{"email: must be a valid email address"}},
		{"no address", func(in *account.RegisterInput) { in.Email = "ada" }, []string{"email: must be a valid email address"}},
		{"7 characters", func(in *account.RegisterInput) { in.Password = "ééééééé" }, []string{"password: must be at least 8 characters"}},
		{"blank name", func(in *account.RegisterInput) { in.DisplayName = "   " }, []string{"display_name: must be 1-255 characters"}},
		{"256 characters", func(in *account.RegisterInput) { in.DisplayName = strings.Repeat("名", 256) }, []string{"display_name: must be 1-255 characters"}},
		{"everything", func(in *account.RegisterInput) { *in = account.RegisterInput{} },
			[]string{"email: must be a valid email address", "password: must be at least 8 characters", "display_name: must be 1-255 characters"}},
	} {
		in := ok
		tc.edit(&in)
		err := testfactory.Err(e.svc.Register(context.Background(), in))
		if err == nil || !reflect.DeepEqual(domain.AsError(err).Details, tc.want) {
			t.Fatalf("%s: Register = %v, want %q", tc.name, err, tc.want)
		}
	}
	r := e.register(ok)
	if r.Email != ok.Email || r.DisplayName != ok.DisplayName || !strings.HasPrefix(r.RefreshToken, "rt_") {
		t.Fatalf("Register = %+v", r)
	}
	c := e.claims(r.AccessToken)
	if c.Subject != r.UserID.String() || c.Role != "Owner" || c.Email != ok.Email || c.BoundOrg != "" {
		t.Fatalf("claims %+v", c)
	}
	// The session is in the new personal org, owned by the user.
	role, err := store.MemberRole(context.Background(), e.db.Q(), uuid.MustParse(c.OrgID), r.UserID)
	if err != nil || role != "owner" {
		t.Fatalf("personal org role %q, %v", role, err)
	}
	if one := e.register(account.RegisterInput{Email: "x@example.com", Password: "12345678", DisplayName: " X "}); one.DisplayName != " X " {
		t.Fatalf("a one-character name = %+v", one)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(context.Background(), account.RegisterInput{Email: "ADA@example.com", Password: "password1",
		DisplayName: "Other"})), domain.KindConflict, "a user with this email already exists", "email: ADA@example.com")
}

func TestRegisterModesAndInvites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	in := account.RegisterInput{Email: "bo@example.com", Password: "password1", DisplayName: "Bo"}
	testfactory.WantKind(t, testfactory.Err(newEnv(t, account.RegistrationDisabled).svc.Register(ctx, in)), domain.KindForbidden, "registration is disabled")

	e := newEnv(t, account.RegistrationInviteOnly)
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, in)), domain.KindValidation, "invite_code: required: registration is by invite only")
	owner := testfactory.User(t, e.db, testfactory.UserOpts{}).ID
	org := testfactory.Org(t, e.db, owner, testfactory.OrgOpts{}).ID
	invite := func(email *string, role string, expires time.Time) string {
		code := account.NewSecret(16)
		if err := orgdb.InsertInvite(ctx, e.db.Q(), orgdb.Invite{ID: domain.NewID(), OrgID: org, Code: code, Email: email, Role: role,
			CreatedBy: owner, ExpiresAt: expires, CreatedAt: e.now}); err != nil {
			t.Fatal(err)
		}
		return code
	}
	with := func(email, code string) account.RegisterInput {
		return account.RegisterInput{Email: email, Password: "password1", DisplayName: "Invited", InviteCode: code}
	}
	later := e.now.Add(time.Hour)
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, with("x@example.com", "nope"))), domain.KindValidation, "invite_code: unknown, used, revoked or expired")
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, with("x@example.com", invite(nil, "member", e.now)))), domain.KindValidation, "invite_code: unknown")
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, with("x@example.com", invite(testfactory.Ptr("y@example.com"), "member", later)))),
		domain.KindValidation, "invite_code: this invite is for another email address")
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, with("x@example.com", invite(nil, "admin", later)))),
		domain.KindValidation, "invite_code: this invite names no email and cannot grant the Admin role")

	code := invite(testfactory.Ptr("X@Example.com"), "admin", later)
	r := e.register(with("x@example.com", code))
	if c := e.claims(r.AccessToken); c.OrgID != org.String() || c.Role != "Admin" {
		t.Fatalf("invited session %+v", c)
	}
	if role, _ := store.MemberRole(ctx, e.db.Q(), org, r.UserID); role != "admin" {
		t.Fatalf("invited role %q", role)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Register(ctx, with("z@example.com", code))), domain.KindValidation, "invite_code: unknown, used")
	r = e.register(with("m@example.com", invite(nil, "member", later)))
	if c := e.claims(r.AccessToken); c.OrgID != org.String() || c.Role != "Member" {
		t.Fatalf("member session %+v", c)
	}
}

func TestRegisterClaimsPlaceholder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationOpen)
	id := domain.NewID()
	if err := accountdb.InsertUser(ctx, e.db.Q(), accountdb.User{ID: id, Email: "imp@example.com", DisplayName: "Imported",
		Placeholder: true, Active: true, CreatedAt: e.now, UpdatedAt: e.now}); err != nil {
		t.Fatal(err)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "imp@example.com", "password1")), domain.KindUnauthorized, "invalid email or password")
	r := e.register(account.RegisterInput{Email: "IMP@example.com", Password: "password1", DisplayName: "Claimed"})
	if r.UserID != id || r.DisplayName != "Claimed" || r.Email != "imp@example.com" {
		t.Fatalf("claimed %+v, want the placeholder's id %s", r, id)
	}
	if l, err := e.svc.Login(ctx, "imp@example.com", "password1"); err != nil || l.UserID != id {
		t.Fatalf("Login after claim = %+v, %v", l, err)
	}
}

func TestLoginRefreshLogout(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationOpen)
	reg := e.register(account.RegisterInput{Email: "cy@example.com", Password: "password1", DisplayName: "Cy"})
	personal := e.claims(reg.AccessToken).OrgID

	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "", "")), domain.KindValidation, "email: required", "password: required")
	if err := testfactory.Err(e.svc.Login(ctx, "", "x")); !reflect.DeepEqual(domain.AsError(err).Details, []string{"email: required"}) {
		t.Fatalf("Login without email = %v", err)
	}
	if err := testfactory.Err(e.svc.Login(ctx, "cy@example.com", "")); !reflect.DeepEqual(domain.AsError(err).Details, []string{"password: required"}) {
		t.Fatalf("Login without password = %v", err)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "nobody@example.com", "password1")), domain.KindUnauthorized, "invalid email or password")
	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "cy@example.com", "password2")), domain.KindUnauthorized, "invalid email or password")
	l, err := e.svc.Login(ctx, "cy@example.com", "password1")
	if err != nil || l.UserID != reg.UserID || l.Email != "cy@example.com" || l.DisplayName != "Cy" {
		t.Fatalf("Login = %+v, %v", l, err)
	}
	if c := e.claims(l.AccessToken); c.OrgID != personal || c.Role != "Owner" {
		t.Fatalf("login claims %+v", c)
	}

	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, "")), domain.KindValidation, "refresh_token: required")
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, "rt_unknown")), domain.KindUnauthorized, "invalid or expired refresh token")
	r1, err := e.svc.Refresh(ctx, l.RefreshToken)
	if err != nil || r1.RefreshToken == l.RefreshToken || r1.UserID != reg.UserID || e.claims(r1.AccessToken).OrgID != personal {
		t.Fatalf("Refresh = %+v, %v", r1, err)
	}
	// The rotated token presented again: theft; the family is revoked.
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, l.RefreshToken)), domain.KindUnauthorized, "refresh token was already used")
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, r1.RefreshToken)), domain.KindUnauthorized)
	// Another family (the registration's) lives on.
	r2, err := e.svc.Refresh(ctx, reg.RefreshToken)
	if err != nil {
		t.Fatalf("the other family: %v", err)
	}

	// Expiry: valid until the instant it expires.
	e.now = e.now.Add(account.RefreshTTL - time.Second)
	r3, err := e.svc.Refresh(ctx, r2.RefreshToken)
	if err != nil {
		t.Fatalf("a second before expiry: %v", err)
	}
	e.now = e.now.Add(account.RefreshTTL)
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, r3.RefreshToken)), domain.KindUnauthorized, "invalid or expired refresh token")

	// Logout.
	l, _ = e.svc.Login(ctx, "cy@example.com", "password1")
	testfactory.WantKind(t, e.svc.Logout(ctx, ""), domain.KindValidation, "refresh_token: required")
	testfactory.WantKind(t, e.svc.Logout(ctx, "rt_unknown"), domain.KindUnauthorized)
	if err := e.svc.Logout(ctx, l.RefreshToken); err != nil {
		t.Fatal(err)
	}
	testfactory.WantKind(t, e.svc.Logout(ctx, l.RefreshToken), domain.KindUnauthorized, "invalid or expired refresh token")
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, l.RefreshToken)), domain.KindUnauthorized, "already used")

	// A membership gone: a password session falls back to the first org.
	owner := testfactory.User(t, e.db, testfactory.UserOpts{}).ID
	team := testfactory.Org(t, e.db, owner, testfactory.OrgOpts{}).ID
	testfactory.Member(t, e.db, team, reg.UserID, testfactory.MemberOpts{Role: "member"})
	var s account.AuthResult
	if err := e.db.InTx(ctx, func(q store.Querier) error {
		var err error
		s, err = e.svc.SSOSession(ctx, q, reg.UserID, team, domain.RoleMember, e.now)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if c := e.claims(s.AccessToken); c.OrgID != team.String() || c.BoundOrg != team.String() || c.Role != "Member" {
		t.Fatalf("SSO claims %+v", c)
	}
	sso2, err := e.svc.Refresh(ctx, s.RefreshToken)
	if err != nil || e.claims(sso2.AccessToken).BoundOrg != team.String() {
		t.Fatalf("SSO refresh = %+v, %v", sso2, err)
	}
	pw := e.register(account.RegisterInput{Email: "dee@example.com", Password: "password1", DisplayName: "Dee"})
	testfactory.Member(t, e.db, team, pw.UserID, testfactory.MemberOpts{Role: "viewer"})
	e.exec(`UPDATE memberships SET suspended_at = now() WHERE org_id = $1`, team)
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, sso2.RefreshToken)), domain.KindUnauthorized, "invalid or expired refresh token")
	// A deactivated user cannot refresh.
	x, _ := e.svc.Login(ctx, "dee@example.com", "password1")
	e.exec(`UPDATE users SET active = false WHERE id = $1`, pw.UserID)
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, x.RefreshToken)), domain.KindUnauthorized, "invalid or expired refresh token")
	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "dee@example.com", "password1")), domain.KindUnauthorized, "invalid email or password")
}

func TestRefreshFallsBackToTheFirstOrg(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationInviteOnly)
	owner := testfactory.User(t, e.db, testfactory.UserOpts{}).ID
	team := testfactory.Org(t, e.db, owner, testfactory.OrgOpts{}).ID
	code := account.NewSecret(16)
	if err := orgdb.InsertInvite(ctx, e.db.Q(), orgdb.Invite{ID: domain.NewID(), OrgID: team, Code: code, Role: "member",
		CreatedBy: owner, ExpiresAt: e.now.Add(time.Hour), CreatedAt: e.now}); err != nil {
		t.Fatal(err)
	}
	r := e.register(account.RegisterInput{Email: "fay@example.com", Password: "password1", DisplayName: "Fay", InviteCode: code})
	if e.claims(r.AccessToken).OrgID != team.String() {
		t.Fatal("the session is not in the invite's org")
	}
	e.exec(`DELETE FROM memberships WHERE org_id = $1 AND user_id = $2`, team, r.UserID)
	back, err := e.svc.Refresh(ctx, r.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if c := e.claims(back.AccessToken); c.OrgID == team.String() || c.Role != "Owner" {
		t.Fatalf("fallback claims %+v, want the personal org as Owner", c)
	}
	// No org left at all: the refresh is refused.
	e.exec(`DELETE FROM memberships WHERE user_id = $1`, r.UserID)
	testfactory.WantKind(t, testfactory.Err(e.svc.Refresh(ctx, back.RefreshToken)), domain.KindUnauthorized, "invalid or expired refresh token")
	testfactory.WantKind(t, testfactory.Err(e.svc.Login(ctx, "fay@example.com", "password1")), domain.KindNotFound, "membership not found")
}

func TestTokens(t *testing.T) {
	t.Parallel()
	tk := account.Tokens{Secret: secret, AccessTTL: time.Hour}
	u, o := domain.NewID(), domain.NewID()
	now := time.Now().UTC()
	s, err := tk.Issue(u, o, "a@example.com", "Admin", false, now)
	if err != nil {
		t.Fatal(err)
	}
	c, err := tk.Verify(s)
	if err != nil || c.Subject != u.String() || c.OrgID != o.String() || c.Email != "a@example.com" || c.Role != "Admin" ||
		c.BoundOrg != "" || c.Issuer != "tracker" || !c.ExpiresAt.Equal(now.Add(time.Hour).Truncate(time.Second)) {
		t.Fatalf("Verify = %+v, %v", c, err)
	}
	b, _ := tk.Issue(u, o, "a@example.com", "Admin", true, now)
	if c, err := tk.Verify(b); err != nil || c.BoundOrg != o.String() {
		t.Fatalf("bound = %+v, %v", c, err)
	}
	expired, _ := tk.Issue(u, o, "a@example.com", "Admin", false, now.Add(-2*time.Hour))
	other, _ := account.Tokens{Secret: []byte("another secret of 32 bytes......"), AccessTTL: time.Hour}.Issue(u, o, "", "", false, now)
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"sub": u.String(), "iss": "tracker",
		"exp": now.Add(time.Hour).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	foreign, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": u.String(), "iss": "elsewhere",
		"exp": now.Add(time.Hour).Unix()}).SignedString(secret)
	noExp, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"sub": u.String(), "iss": "tracker"}).SignedString(secret)
	for name, s := range map[string]string{"expired": expired, "other secret": other, "alg none": none, "other issuer": foreign,
		"no expiry": noExp, "garbage": "a.b.c"} {
		if _, err := tk.Verify(s); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if a, b := account.NewSecret(32), account.NewSecret(32); a == b || len(a) != 43 {
		t.Fatalf("NewSecret = %q, %q", a, b)
	}
	if h := account.HashToken("abc"); len(h) != 32 || h[0] != 0xba || h[31] != 0xad {
		t.Fatalf("HashToken(abc) = %x", h)
	}
}

func TestAuthenticateToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationOpen)
	r := e.register(account.RegisterInput{Email: "gil@example.com", Password: "password1", DisplayName: "Gil"})
	org := uuid.MustParse(e.claims(r.AccessToken).OrgID)
	p, err := e.svc.Authenticate(ctx, r.AccessToken)
	if err != nil || p.UserID != r.UserID || p.OrgID != org || p.Email != "gil@example.com" || p.SSO || p.IsKey() ||
		!reflect.DeepEqual(p.Scopes, []string{domain.ScopeAll}) {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	// Orgs only single sign-on reaches follow a password session, not an SSO one.
	owner := testfactory.User(t, e.db, testfactory.UserOpts{}).ID
	sso := testfactory.Org(t, e.db, owner, testfactory.OrgOpts{}).ID
	testfactory.Member(t, e.db, sso, r.UserID, testfactory.MemberOpts{})
	e.exec(`UPDATE memberships SET sso_only = true WHERE org_id = $1 AND user_id = $2`, sso, r.UserID)
	if p, err := e.svc.Authenticate(ctx, r.AccessToken); err != nil || !reflect.DeepEqual(p.SSOOnlyOrgs, []uuid.UUID{sso}) {
		t.Fatalf("password session = %+v, %v", p, err)
	}
	bound, _ := e.svc.Tokens.Issue(r.UserID, sso, "gil@example.com", "Member", true, e.now)
	if p, err := e.svc.Authenticate(ctx, bound); err != nil || !p.SSO || p.OrgID != sso || p.SSOOnlyOrgs != nil {
		t.Fatalf("SSO session = %+v, %v", p, err)
	}

	sign := func(c jwt.MapClaims) string {
		c["iss"], c["exp"] = "tracker", e.now.Add(time.Hour).Unix()
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(secret)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for name, s := range map[string]string{
		"forged":              r.AccessToken + "x",
		"subject not an id":   sign(jwt.MapClaims{"sub": "gil", "org_id": org.String()}),
		"org not an id":       sign(jwt.MapClaims{"sub": r.UserID.String(), "org_id": "acme"}),
		"bound to another":    sign(jwt.MapClaims{"sub": r.UserID.String(), "org_id": org.String(), "bound_org": sso.String()}),
		"an unknown user":     sign(jwt.MapClaims{"sub": domain.NewID().String(), "org_id": org.String()}),
		"an API key unknown":  account.KeyPrefix + "nope",
		"empty":               "",
		"a bare refresh code": r.RefreshToken,
	} {
		testfactory.WantKind(t, testfactory.Err(e.svc.Authenticate(ctx, s)), domain.KindUnauthorized, "missing or invalid credentials")
		_ = name
	}
	e.exec(`UPDATE users SET active = false WHERE id = $1`, r.UserID)
	testfactory.WantKind(t, testfactory.Err(e.svc.Authenticate(ctx, r.AccessToken)), domain.KindUnauthorized, "missing or invalid credentials")
}

func TestMe(t *testing.T) {
	t.Parallel()
	e := newEnv(t, account.RegistrationOpen)
	owner := testfactory.User(t, e.db, testfactory.UserOpts{}).ID
	org := testfactory.Org(t, e.db, owner, testfactory.OrgOpts{}).ID
	me, err := e.svc.Me(context.Background(), domain.Principal{UserID: owner, OrgID: org, Email: "o@example.com", Scopes: []string{"read"}})
	if err != nil || me.Role != domain.RoleOwner || me.UserID != owner || me.OrgID != org || me.Email != "o@example.com" ||
		me.AllowedProjectIDs == nil || len(me.AllowedProjectIDs) != 0 || !reflect.DeepEqual(me.Scopes, []string{"read"}) {
		t.Fatalf("Me = %+v, %v", me, err)
	}
	ids := []uuid.UUID{domain.NewID()}
	if me, _ := e.svc.Me(context.Background(), domain.Principal{UserID: owner, OrgID: org, ProjectIDs: ids}); !reflect.DeepEqual(me.AllowedProjectIDs, ids) {
		t.Fatalf("Me of a restricted key = %+v", me)
	}
}

var prefixPattern = regexp.MustCompile(`^svc_live_[A-Za-z0-9_-]{8}$`)

func TestAPIKeys(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationOpen)
	user := testfactory.User(t, e.db, testfactory.UserOpts{Email: "key@example.com"}).ID
	org := testfactory.Org(t, e.db, user, testfactory.OrgOpts{}).ID
	other := testfactory.Org(t, e.db, user, testfactory.OrgOpts{}).ID
	strangers := testfactory.Org(t, e.db, testfactory.User(t, e.db, testfactory.UserOpts{}).ID, testfactory.OrgOpts{}).ID
	p1 := testfactory.Project(t, e.db, org, testfactory.ProjectOpts{}).ID
	p2 := testfactory.Project(t, e.db, org, testfactory.ProjectOpts{}).ID
	foreign := testfactory.Project(t, e.db, other, testfactory.ProjectOpts{}).ID
	sess := domain.Principal{UserID: user, OrgID: org, Email: "key@example.com", Scopes: []string{domain.ScopeAll}}
	create := func(p domain.Principal, in account.CreateKeyInput) (account.APIKey, error) {
		return e.svc.CreateKey(ctx, p, in)
	}

	at := func(d time.Duration) *time.Time { v := e.now.Add(d); return &v }
	for _, tc := range []struct {
		in   account.CreateKeyInput
		want []string
	}{
		{account.CreateKeyInput{Name: " "}, []string{"name: must be 1-255 characters"}},
		{account.CreateKeyInput{Name: strings.Repeat("k", 256)}, []string{"name: must be 1-255 characters"}},
		{account.CreateKeyInput{Name: "k", Scopes: []string{}}, []string{"scopes: must not be empty"}},
		{account.CreateKeyInput{Name: "k", Scopes: []string{"read", "root", "*"}}, []string{"scopes: unknown scope root (read, write, admin)",
			"scopes: unknown scope * (read, write, admin)"}},
		{account.CreateKeyInput{Name: "k", ExpiresAt: at(0)}, []string{"expires_at: must be in the future"}},
		{account.CreateKeyInput{Name: "k", ExpiresAt: at(-time.Second)}, []string{"expires_at: must be in the future"}},
	} {
		err := testfactory.Err(create(sess, tc.in))
		if err == nil || !reflect.DeepEqual(domain.AsError(err).Details, tc.want) {
			t.Fatalf("CreateKey %+v = %v, want %q", tc.in, err, tc.want)
		}
	}
	testfactory.WantKind(t, testfactory.Err(create(sess, account.CreateKeyInput{Name: "k", ProjectIDs: []uuid.UUID{p1, foreign}})), domain.KindValidation,
		"project_ids: every id must be a project of your organization")
	testfactory.WantKind(t, testfactory.Err(create(sess, account.CreateKeyInput{Name: "k", OrgID: &strangers})), domain.KindNotFound)

	def, err := create(sess, account.CreateKeyInput{Name: strings.Repeat("k", 255)})
	if err != nil || !reflect.DeepEqual(def.Scopes, []string{"read", "write"}) || def.ProjectIDs == nil || len(def.ProjectIDs) != 0 ||
		!strings.HasPrefix(def.Key, def.KeyPrefix) || !prefixPattern.MatchString(def.KeyPrefix) || def.ExpiresAt != nil ||
		!def.CreatedAt.Equal(e.now) {
		t.Fatalf("default key = %+v, %v", def, err)
	}
	admin, err := create(sess, account.CreateKeyInput{Name: "admin", Scopes: []string{"write", "admin", "write"},
		ProjectIDs: []uuid.UUID{p2, p1, p2}, ExpiresAt: at(time.Second)})
	wantIDs := []uuid.UUID{p1, p2}
	if strings.Compare(p1.String(), p2.String()) > 0 {
		wantIDs = []uuid.UUID{p2, p1}
	}
	if err != nil || !reflect.DeepEqual(admin.Scopes, []string{"admin", "write"}) || !reflect.DeepEqual(admin.ProjectIDs, wantIDs) ||
		admin.ExpiresAt == nil || !admin.ExpiresAt.Equal(*at(time.Second)) {
		t.Fatalf("admin key = %+v, %v", admin, err)
	}
	inOther, err := create(sess, account.CreateKeyInput{Name: "other", Scopes: []string{"admin"}, OrgID: &other})
	if err != nil {
		t.Fatal(err)
	}

	// Authenticate with a key: its principal, and last_used_at touched at most once a minute.
	auth := func(key string) domain.Principal {
		t.Helper()
		p, err := e.svc.Authenticate(ctx, key)
		if err != nil {
			t.Fatalf("Authenticate key: %v", err)
		}
		return p
	}
	lastUsed := func(id uuid.UUID) *time.Time {
		t.Helper()
		keys, err := e.svc.ListKeys(ctx, sess)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.ID == id {
				if k.Key != "" {
					t.Fatal("ListKeys shows the secret")
				}
				return k.LastUsedAt
			}
		}
		t.Fatalf("key %s not listed", id)
		return nil
	}
	kp := auth(def.Key)
	if kp.UserID != user || kp.OrgID != org || kp.Email != "key@example.com" || kp.KeyID == nil || *kp.KeyID != def.ID ||
		!reflect.DeepEqual(kp.Scopes, []string{"read", "write"}) || kp.KeyExpires != nil || len(kp.ProjectIDs) != 0 {
		t.Fatalf("key principal %+v", kp)
	}
	first := e.now
	if u := lastUsed(def.ID); u == nil || !u.Equal(first) {
		t.Fatalf("last used %v, want %v", u, first)
	}
	e.now = first.Add(time.Minute - time.Second)
	auth(def.Key)
	if u := lastUsed(def.ID); !u.Equal(first) {
		t.Fatalf("touched again within the interval: %v", u)
	}
	e.now = first.Add(time.Minute + time.Second)
	auth(def.Key)
	if u := lastUsed(def.ID); !u.Equal(e.now) {
		t.Fatalf("not touched after the interval: %v, want %v", u, e.now)
	}
	// An expiring key works until the instant it expires.
	e.now = first
	ap := auth(admin.Key)
	if ap.KeyExpires == nil || !ap.KeyExpires.Equal(*admin.ExpiresAt) || !reflect.DeepEqual(ap.ProjectIDs, wantIDs) {
		t.Fatalf("admin key principal %+v", ap)
	}
	e.now = *admin.ExpiresAt
	testfactory.WantKind(t, testfactory.Err(e.svc.Authenticate(ctx, admin.Key)), domain.KindUnauthorized, "missing or invalid credentials")
	e.now = first

	// Keys made by keys: no wider, no further, no longer.
	rw := auth(def.Key)
	testfactory.WantKind(t, testfactory.Err(create(rw, account.CreateKeyInput{Name: "wider", Scopes: []string{"admin"}})), domain.KindForbidden,
		"wider scopes than its own")
	if k, err := create(rw, account.CreateKeyInput{Name: "same", Scopes: []string{"write"}}); err != nil || k.ExpiresAt != nil {
		t.Fatalf("a key by a key = %+v, %v", k, err)
	}
	restricted := ap
	testfactory.WantKind(t, testfactory.Err(create(restricted, account.CreateKeyInput{Name: "far", Scopes: []string{"read"},
		ProjectIDs: []uuid.UUID{foreign}})), domain.KindForbidden, "projects it cannot reach")
	child, err := create(restricted, account.CreateKeyInput{Name: "child", Scopes: []string{"read"}})
	if err != nil || !reflect.DeepEqual(child.ProjectIDs, wantIDs) || child.ExpiresAt == nil || !child.ExpiresAt.Equal(*admin.ExpiresAt) {
		t.Fatalf("child of a restricted, expiring key = %+v, %v", child, err)
	}
	narrow, err := create(restricted, account.CreateKeyInput{Name: "narrow", Scopes: []string{"read"}, ProjectIDs: []uuid.UUID{p1},
		ExpiresAt: at(500 * time.Millisecond)})
	if err != nil || !reflect.DeepEqual(narrow.ProjectIDs, []uuid.UUID{p1}) || !narrow.ExpiresAt.Equal(*at(500 * time.Millisecond)) {
		t.Fatalf("narrower child = %+v, %v", narrow, err)
	}
	if late, err := create(restricted, account.CreateKeyInput{Name: "late", Scopes: []string{"read"}, ExpiresAt: at(time.Hour)}); err != nil ||
		!late.ExpiresAt.Equal(*admin.ExpiresAt) {
		t.Fatalf("a child asking to outlive its parent = %+v, %v", late, err)
	}
	testfactory.WantKind(t, testfactory.Err(create(rw, account.CreateKeyInput{Name: "elsewhere", Scopes: []string{"read"}, OrgID: &other})), domain.KindNotFound)

	// Who sees which keys, and who may revoke them.
	names := func(p domain.Principal) []string {
		t.Helper()
		keys, err := e.svc.ListKeys(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range keys {
			out = append(out, k.Name)
		}
		return out
	}
	if got := names(sess); len(got) != 7 {
		t.Fatalf("the session sees %q", got)
	}
	if got := names(rw); !reflect.DeepEqual(got, []string{def.Name}) {
		t.Fatalf("a write key sees %q", got)
	}
	otherKey := auth(inOther.Key)
	if got := names(otherKey); !reflect.DeepEqual(got, []string{"other"}) {
		t.Fatalf("the other org's admin key sees %q", got)
	}
	testfactory.WantKind(t, e.svc.DeleteKey(ctx, rw, child.ID), domain.KindForbidden, "revoking another API key requires")
	testfactory.WantKind(t, e.svc.DeleteKey(ctx, otherKey, child.ID), domain.KindNotFound, "API key not found")
	testfactory.WantKind(t, e.svc.DeleteKey(ctx, domain.Principal{UserID: domain.NewID(), Scopes: []string{domain.ScopeAll}}, child.ID),
		domain.KindNotFound, "API key not found")
	if err := e.svc.DeleteKey(ctx, rw, def.ID); err != nil {
		t.Fatalf("a key revoking itself: %v", err)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Authenticate(ctx, def.Key)), domain.KindUnauthorized)
	if err := e.svc.DeleteKey(ctx, sess, child.ID); err != nil {
		t.Fatalf("the session revoking a key: %v", err)
	}
	testfactory.WantKind(t, e.svc.DeleteKey(ctx, sess, child.ID), domain.KindNotFound, "API key not found")

	// A deactivated user's keys stop at once.
	e.exec(`UPDATE users SET active = false WHERE id = $1`, user)
	testfactory.WantKind(t, testfactory.Err(e.svc.Authenticate(ctx, inOther.Key)), domain.KindUnauthorized, "missing or invalid credentials")
}

func TestOnboard(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	e := newEnv(t, account.RegistrationOpen)
	if need, err := e.svc.NeedsOnboarding(ctx); err != nil || !need {
		t.Fatalf("NeedsOnboarding on an empty server = %v, %v", need, err)
	}
	ok := account.OnboardInput{Email: "root@example.com", Password: "pass wrd", OrgName: "A", OrgSlug: "acme"}
	for _, tc := range []struct {
		edit func(*account.OnboardInput)
		want []string
	}{
		{func(in *account.OnboardInput) { in.Email, in.Password = "root", "1234567" },
			[]string{"email: must be a valid email address", "password: must be at least 8 characters"}},
		{func(in *account.OnboardInput) { in.OrgName, in.OrgSlug = "", "Not A Slug" },
			[]string{"org_name: must be 1-255 characters", "org_slug: must be 1-100 characters, each a lower-case letter a-z, a digit or '-'"}},
	} {
		in := ok
		tc.edit(&in)
		err := testfactory.Err(e.svc.Onboard(ctx, in))
		if err == nil || !reflect.DeepEqual(domain.AsError(err).Details, tc.want) {
			t.Fatalf("Onboard %+v = %v, want %q", in, err, tc.want)
		}
	}
	out, err := e.svc.Onboard(ctx, ok)
	if err != nil || out.Email != "root@example.com" || !strings.HasPrefix(out.APIKey, out.APIKeyPrefix) || !prefixPattern.MatchString(out.APIKeyPrefix) {
		t.Fatalf("Onboard = %+v, %v", out, err)
	}
	p, err := e.svc.Authenticate(ctx, out.APIKey)
	if err != nil || p.UserID != out.UserID || p.OrgID != out.OrgID || !reflect.DeepEqual(p.Scopes, []string{"admin"}) {
		t.Fatalf("the onboarding key = %+v, %v", p, err)
	}
	if role, _ := store.MemberRole(ctx, e.db.Q(), out.OrgID, out.UserID); role != "owner" {
		t.Fatalf("onboarded role %q", role)
	}
	if l, err := e.svc.Login(ctx, "root@example.com", "pass wrd"); err != nil || l.DisplayName != "root" {
		t.Fatalf("Login as the onboarded admin = %+v, %v", l, err)
	}
	if need, err := e.svc.NeedsOnboarding(ctx); err != nil || need {
		t.Fatalf("NeedsOnboarding after onboarding = %v, %v", need, err)
	}
	testfactory.WantKind(t, testfactory.Err(e.svc.Onboard(ctx, account.OnboardInput{Email: "two@example.com", Password: "password2", OrgName: "B", OrgSlug: "b"})),
		domain.KindConflict, "onboarding has already been done")
}
