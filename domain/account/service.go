package account

import (
	"context"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/org"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
)

// Registration modes (SERVICE_REGISTRATION).
const (
	RegistrationOpen       = "open"
	RegistrationInviteOnly = "invite_only"
	RegistrationDisabled   = "disabled"
)

// RefreshTTL is the refresh token lifetime.
const RefreshTTL = 30 * 24 * time.Hour

// Service runs the account use cases.
type Service struct {
	DB           *store.DB
	Tokens       Tokens
	Registration string
	// KeyTouchInterval bounds how often last_used_at is written for one key.
	KeyTouchInterval time.Duration
	clock            domain.Clock
	cache            authCache
}

// New builds the service on db: tokens signs sessions, registration is
// open, invite_only or disabled, keyTouch bounds last_used_at writes.
func New(db *store.DB, clock domain.Clock, tokens Tokens, registration string, keyTouch time.Duration) *Service {
	return &Service{DB: db, Tokens: tokens, Registration: registration, KeyTouchInterval: keyTouch, clock: clock}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// AuthResult is returned by register, login and refresh.
type AuthResult struct {
	AccessToken  string    `json:"access_token"`
	RefreshToken string    `json:"refresh_token"`
	UserID       uuid.UUID `json:"user_id"`
	Email        string    `json:"email"`
	DisplayName  string    `json:"display_name"`
}

// RegisterInput is a registration request.
type RegisterInput struct {
	Email, Password, DisplayName, InviteCode string
}

// ValidEmail reports whether e is a plain address (no display name, no
// surrounding spaces or angle brackets).
func ValidEmail(e string) bool {
	a, err := mail.ParseAddress(e)
	return err == nil && a.Address == e && a.Name == ""
}

func (in RegisterInput) validate() error {
	var p domain.Problems
	if !ValidEmail(in.Email) {
		p.Add("email", "must be a valid email address")
	}
	if utf8.RuneCountInString(in.Password) < 8 {
		p.Add("password", "must be at least 8 characters")
	}
	if n := utf8.RuneCountInString(strings.TrimSpace(in.DisplayName)); n < 1 || utf8.RuneCountInString(in.DisplayName) > 255 {
		p.Add("display_name", "must be 1-255 characters")
	}
	return p.Err()
}

// Register creates a user with a personal org (and, with an invite code, a
// membership in the invite's org) and starts a session.
func (s *Service) Register(ctx context.Context, in RegisterInput) (AuthResult, error) {
	if err := in.validate(); err != nil {
		return AuthResult{}, err
	}
	switch s.Registration {
	case RegistrationDisabled:
		return AuthResult{}, domain.Forbidden("registration is disabled on this server")
	case RegistrationInviteOnly:
		if in.InviteCode == "" {
			return AuthResult{}, domain.Invalid("invite_code: required: registration is by invite only")
		}
	}
	hash, err := HashPassword(in.Password)
	if err != nil {
		return AuthResult{}, err
	}
	var out AuthResult
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		now := s.now()
		u := accountdb.User{ID: domain.NewID(), Email: in.Email, DisplayName: in.DisplayName, PasswordHash: &hash,
			Active: true, CreatedAt: now, UpdatedAt: now}
		// The email may be a placeholder an import made: registering
		// claims it, keeping its id (and the authorship imported).
		claimed, err := accountdb.ClaimPlaceholder(ctx, q, in.Email, in.DisplayName, hash, now)
		switch {
		case err == nil:
			u = claimed
		case !errors.Is(err, store.ErrNotFound):
			return err
		default:
			if err := accountdb.InsertUser(ctx, q, u); err != nil {
				if errors.Is(err, store.ErrConflict) {
					return domain.Conflict("a user with this email already exists", "email: "+in.Email)
				}
				return err
			}
		}
		personal, err := org.CreateIn(ctx, q, u.ID, in.DisplayName, personalSlug(in.Email), now)
		if err != nil {
			return err
		}
		sessionOrg, role := personal.ID, domain.RoleOwner
		if in.InviteCode != "" {
			inv, err := orgdb.ClaimInvite(ctx, q, in.InviteCode, u.ID, now)
			if errors.Is(err, store.ErrNotFound) {
				return domain.Invalid("invite_code: unknown, used, revoked or expired invite code")
			}
			if err != nil {
				return err
			}
			if inv.Email != nil && !strings.EqualFold(*inv.Email, in.Email) {
				return domain.Invalid("invite_code: this invite is for another email address")
			}
			// Invites made before Admin and Owner invites had to name an
			// email are not bearer tokens for those roles either.
			if inv.Email == nil && org.NeedsEmail(domain.ParseRole(inv.Role)) {
				return domain.Invalid("invite_code: this invite names no email and cannot grant the " + domain.ParseRole(inv.Role).String() + " role")
			}
			if err := orgdb.InsertMembership(ctx, q, orgdb.Membership{OrgID: inv.OrgID, UserID: u.ID, Role: inv.Role, JoinedAt: now}); err != nil {
				return err
			}
			sessionOrg, role = inv.OrgID, domain.ParseRole(inv.Role)
		}
		out, err = s.startSession(ctx, q, u, sessionOrg, role, false, uuid.Nil, now)
		return err
	})
	return out, err
}

// personalSlug derives a unique slug for a personal org from the email.
func personalSlug(email string) string {
	local := strings.ToLower(strings.SplitN(email, "@", 2)[0])
	var b strings.Builder
	for _, r := range local {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		} else if b.Len() > 0 && !strings.HasSuffix(b.String(), "-") {
			b.WriteByte('-')
		}
	}
	base := strings.Trim(b.String(), "-")
	if len(base) > 60 {
		base = base[:60]
	}
	if base == "" {
		base = "user"
	}
	return fmt.Sprintf("%s-%s", base, strings.ToLower(uuid.NewString()[:8]))
}

// startSession issues an access token and a refresh token of family (a new
// family when uuid.Nil); bound confines both to orgID (a session started by
// single sign-on).
func (s *Service) startSession(ctx context.Context, q store.Querier, u accountdb.User, orgID uuid.UUID, role domain.Role, bound bool, family uuid.UUID, now time.Time) (AuthResult, error) {
	access, err := s.Tokens.Issue(u.ID, orgID, u.Email, role.String(), bound, now)
	if err != nil {
		return AuthResult{}, err
	}
	if family == uuid.Nil {
		family = domain.NewID()
	}
	refresh := "rt_" + NewSecret(32)
	if err := accountdb.InsertRefreshToken(ctx, q, accountdb.RefreshToken{ID: domain.NewID(), UserID: u.ID, OrgID: orgID,
		FamilyID: family, TokenHash: HashToken(refresh), ExpiresAt: now.Add(RefreshTTL), CreatedAt: now, BoundToOrg: bound}); err != nil {
		return AuthResult{}, err
	}
	return AuthResult{AccessToken: access, RefreshToken: refresh, UserID: u.ID, Email: u.Email, DisplayName: u.DisplayName}, nil
}

// dummyHash keeps a login for an unknown email as slow as a wrong password.
var dummyHash, _ = HashPassword("not-a-real-password")

var errBadLogin = domain.Unauthorized("invalid email or password")

// Login checks a password and starts a session in the user's first org.
func (s *Service) Login(ctx context.Context, email, password string) (AuthResult, error) {
	if email == "" || password == "" {
		var p domain.Problems
		if email == "" {
			p.Add("email", "required")
		}
		if password == "" {
			p.Add("password", "required")
		}
		return AuthResult{}, p.Err()
	}
	q := s.DB.Q()
	u, err := accountdb.UserByEmail(ctx, q, email)
	if errors.Is(err, store.ErrNotFound) {
		_, _ = VerifyPassword(dummyHash, password)
		return AuthResult{}, errBadLogin
	}
	if err != nil {
		return AuthResult{}, err
	}
	if u.PasswordHash == nil || !u.Active {
		_, _ = VerifyPassword(dummyHash, password)
		return AuthResult{}, errBadLogin
	}
	ok, err := VerifyPassword(*u.PasswordHash, password)
	if err != nil || !ok {
		return AuthResult{}, errBadLogin
	}
	m, err := orgdb.FirstMembership(ctx, q, u.ID)
	if err != nil {
		return AuthResult{}, domain.NotFoundAs(err, "membership")
	}
	var out AuthResult
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		out, err = s.startSession(ctx, q, u, m.OrgID, domain.ParseRole(m.Role), false, uuid.Nil, s.now())
		return err
	})
	return out, err
}

var errBadRefresh = domain.Unauthorized("invalid or expired refresh token")

// Refresh rotates a refresh token. Presenting a token that was already
// rotated or revoked is treated as theft: its whole family is revoked.
func (s *Service) Refresh(ctx context.Context, token string) (AuthResult, error) {
	if token == "" {
		return AuthResult{}, domain.Invalid("refresh_token: required")
	}
	var out AuthResult
	reused := false
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		now := s.now()
		rt, err := accountdb.RefreshTokenForUpdate(ctx, q, HashToken(token))
		if errors.Is(err, store.ErrNotFound) {
			return errBadRefresh
		}
		if err != nil {
			return err
		}
		if rt.RevokedAt != nil {
			reused = true
			return accountdb.RevokeFamily(ctx, q, rt.FamilyID, now) // committed; the caller gets 401
		}
		if !rt.ExpiresAt.After(now) {
			return errBadRefresh
		}
		u, err := accountdb.UserByID(ctx, q, rt.UserID)
		if err != nil {
			return err
		}
		if !u.Active {
			return errBadRefresh
		}
		if err := accountdb.RevokeRefreshToken(ctx, q, rt.ID, now); err != nil {
			return err
		}
		orgID := rt.OrgID
		role, err := accountdb.SessionRole(ctx, q, orgID, u.ID, rt.BoundToOrg)
		if err != nil {
			return err
		}
		if role == "" {
			// A session bound to its org ends with the membership; any
			// other falls back to the first org a password reaches.
			if rt.BoundToOrg {
				return errBadRefresh
			}
			m, err := orgdb.FirstMembership(ctx, q, u.ID)
			if err != nil {
				return errBadRefresh
			}
			orgID, role = m.OrgID, m.Role
		}
		out, err = s.startSession(ctx, q, u, orgID, domain.ParseRole(role), rt.BoundToOrg, rt.FamilyID, now)
		return err
	})
	if err == nil && reused {
		return AuthResult{}, domain.Unauthorized("refresh token was already used; the session has been revoked")
	}
	return out, err
}

// Logout revokes a refresh token; access tokens live until they expire.
func (s *Service) Logout(ctx context.Context, token string) error {
	if token == "" {
		return domain.Invalid("refresh_token: required")
	}
	return s.DB.InTx(ctx, func(q store.Querier) error {
		rt, err := accountdb.RefreshTokenForUpdate(ctx, q, HashToken(token))
		if errors.Is(err, store.ErrNotFound) {
			return errBadRefresh
		}
		if err != nil {
			return err
		}
		if rt.RevokedAt != nil {
			return errBadRefresh
		}
		return accountdb.RevokeRefreshToken(ctx, q, rt.ID, s.now())
	})
}

// Me is the current user.
type Me struct {
	UserID            uuid.UUID   `json:"user_id"`
	OrgID             uuid.UUID   `json:"org_id"`
	Email             string      `json:"email"`
	Role              domain.Role `json:"role"`
	Scopes            []string    `json:"scopes"`
	AllowedProjectIDs []uuid.UUID `json:"allowed_project_ids"`
}

// Me describes the caller: the role is the membership's in the session org.
func (s *Service) Me(ctx context.Context, p domain.Principal) (Me, error) {
	role, err := store.MemberRole(ctx, s.DB.Q(), p.OrgID, p.UserID)
	if err != nil {
		return Me{}, err
	}
	ids := p.ProjectIDs
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return Me{UserID: p.UserID, OrgID: p.OrgID, Email: p.Email, Role: domain.ParseRole(role), Scopes: p.Scopes, AllowedProjectIDs: ids}, nil
}
