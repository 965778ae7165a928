package sso

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/google/uuid"
	"golang.org/x/oauth2"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/ssodb"
)

// Discovered is the answer of discover: where to send the browser.
type Discovered struct {
	AuthorizationURL string `json:"authorization_url"`
	State            string `json:"state"`
}

var errNotConfigured = domain.NotFound("single sign-on configuration")

func random() string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func (s *Service) oauth(p *oidc.Provider, c ssodb.Config, secret string) *oauth2.Config {
	return &oauth2.Config{ClientID: c.ClientID, ClientSecret: secret, Endpoint: p.Endpoint(), RedirectURL: s.RedirectURI(),
		Scopes: []string{oidc.ScopeOpenID, "email", "profile"}}
}

// Discover starts a sign-in to an org (public): a PKCE S256 verifier, a
// state and a nonce are stored server-side for StateTTL, single use.
func (s *Service) Discover(ctx context.Context, orgID uuid.UUID) (Discovered, error) {
	c, err := ssodb.GetConfig(ctx, s.db.Q(), orgID)
	if err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return Discovered{}, errNotConfigured
		}
		return Discovered{}, err
	}
	prov, err := s.provider(ctx, c.IssuerURL, false)
	if err != nil {
		return Discovered{}, domain.Unavailable("the identity provider does not answer: " + err.Error())
	}
	state, nonce, verifier := random(), random(), oauth2.GenerateVerifier()
	now := s.clock.Now()
	err = s.db.InTx(ctx, func(q store.Querier) error {
		return ssodb.InsertState(ctx, q, ssodb.State{StateHash: account.HashToken(state), OrgID: orgID, CodeVerifier: verifier,
			Nonce: nonce, ExpiresAt: now.Add(StateTTL), CreatedAt: now})
	})
	if err != nil {
		return Discovered{}, err
	}
	u := s.oauth(prov, c, "").AuthCodeURL(state, oidc.Nonce(nonce), oauth2.S256ChallengeOption(verifier))
	return Discovered{AuthorizationURL: u, State: state}, nil
}

// claims are the ID token claims a sign-in reads.
type claims struct {
	Email         string `json:"email"`
	EmailVerified *bool  `json:"email_verified"`
	Name          string `json:"name"`
}

var errSignIn = "single sign-on failed"

func signInFailed(reason string) error { return domain.Unauthorized(errSignIn + ": " + reason) }

// Callback finishes a sign-in (public): it claims the state (unknown,
// expired or already used → 401), exchanges the code with the PKCE
// verifier, verifies the ID token (signature by the provider's key set,
// issuer, audience, expiry, nonce), checks the email, then finds the user
// (signIn) and starts a session bound to the org. Nothing is created when
// any check fails.
func (s *Service) Callback(ctx context.Context, code, state string) (account.AuthResult, error) {
	var probs domain.Problems
	if code == "" {
		probs.Add("code", "required")
	}
	if state == "" {
		probs.Add("state", "required")
	}
	if err := probs.Err(); err != nil {
		return account.AuthResult{}, err
	}
	// Claimed in its own transaction: a state is spent even when the
	// sign-in then fails, so it can never be replayed.
	st, err := ssodb.ClaimState(ctx, s.db.Q(), account.HashToken(state))
	if errors.Is(err, store.ErrNotFound) {
		return account.AuthResult{}, signInFailed("unknown or already used state")
	}
	if err != nil {
		return account.AuthResult{}, err
	}
	if !s.clock.Now().Before(st.ExpiresAt) {
		return account.AuthResult{}, signInFailed("the sign-in expired; start again")
	}
	c, err := ssodb.GetConfig(ctx, s.db.Q(), st.OrgID)
	if err != nil {
		return account.AuthResult{}, domain.NotFoundAs(err, "single sign-on configuration")
	}
	secret, err := s.box.Open(c.ClientSecretSealed, secretAAD(c.OrgID))
	if err != nil {
		return account.AuthResult{}, errors.New("sso: the stored client secret does not open under SERVICE_SECRETS_KEY")
	}
	prov, err := s.provider(ctx, c.IssuerURL, false)
	if err != nil {
		return account.AuthResult{}, domain.Unavailable("the identity provider does not answer: " + err.Error())
	}
	tok, err := s.oauth(prov, c, string(secret)).Exchange(oidc.ClientContext(ctx, s.client), code, oauth2.VerifierOption(st.CodeVerifier))
	if err != nil {
		return account.AuthResult{}, signInFailed("the identity provider refused the code")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return account.AuthResult{}, signInFailed("the identity provider sent no ID token")
	}
	idt, err := prov.VerifierContext(oidc.ClientContext(ctx, s.client), &oidc.Config{ClientID: c.ClientID, Now: s.clock.Now}).Verify(ctx, raw)
	if err != nil {
		return account.AuthResult{}, signInFailed("the ID token is not valid: " + err.Error())
	}
	if idt.Nonce != st.Nonce {
		return account.AuthResult{}, signInFailed("the ID token's nonce does not match this sign-in")
	}
	var cl claims
	if err := idt.Claims(&cl); err != nil {
		return account.AuthResult{}, signInFailed("the ID token's claims do not read")
	}
	if err := checkEmail(cl, c.AllowedDomains); err != nil {
		return account.AuthResult{}, err
	}
	return s.signIn(ctx, c, idt.Subject, cl)
}

// checkEmail refuses an email the provider should not have sent: not a
// plain address (surrounding spaces, a display name, no domain with a dot),
// unverified, or of a domain the org does not allow.
func checkEmail(cl claims, allowed []string) error {
	if cl.Email == "" {
		return domain.Forbidden("the identity provider sent no email address")
	}
	if !account.ValidEmail(cl.Email) || !hasDomain(cl.Email) {
		return domain.Forbidden("the identity provider sent an email address that is not valid (a plain address such as name@example.com)")
	}
	if cl.EmailVerified != nil && !*cl.EmailVerified {
		return domain.Forbidden("the identity provider has not verified this email address")
	}
	if len(allowed) > 0 && !slices.Contains(allowed, emailDomain(cl.Email)) {
		return domain.Forbidden("this email domain may not sign in to the organization")
	}
	return nil
}

// emailDomain is the lower-case domain of a valid address.
func emailDomain(email string) string {
	return strings.ToLower(email[strings.LastIndex(email, "@")+1:])
}

// hasDomain reports whether the address's domain is a DNS name of at least
// two labels (letters, digits, hyphens; no leading or trailing hyphen).
func hasDomain(email string) bool {
	at := strings.LastIndex(email, "@")
	return at > 0 && ValidDomain(strings.ToLower(email[at+1:]))
}

// errTaken refuses to sign in as an account the org's identity provider
// does not vouch for.
func errTaken(email string) error {
	return domain.Conflict("an account with this email already exists and is not a member of this organization: "+
		"an Admin of the organization can invite it, or the organization can verify the email's domain", "email: "+email)
}

var errLinkedElsewhere = domain.Conflict("this account is already linked to another identity of this organization's identity provider",
	"subject: does not match")

// signIn finds the user the sign-in is for, or creates one, and starts a
// session bound to the org. An org's identity provider vouches for that org
// only, so it reaches an existing account only when the account belongs to
// the org, or the org has verified the email's domain, and then only
// through the identity linked first; it never creates a second account for
// a taken email. Whatever is refused, nothing is created.
func (s *Service) signIn(ctx context.Context, c ssodb.Config, subject string, cl claims) (account.AuthResult, error) {
	var out account.AuthResult
	err := s.db.InTx(ctx, func(q store.Querier) error {
		now := s.clock.Now()
		created := false
		userID, err := ssodb.UserBySubject(ctx, q, c.OrgID, c.IssuerURL, subject)
		if errors.Is(err, store.ErrNotFound) {
			userID, created, err = s.link(ctx, q, c, subject, cl, now)
		}
		if err != nil {
			return err
		}
		u, err := accountdb.UserByID(ctx, q, userID)
		if err != nil {
			return err
		}
		if !u.Active {
			return domain.Unauthorized("this account is deactivated")
		}
		role, err := s.membership(ctx, q, c, u, created, now)
		if err != nil {
			return err
		}
		out, err = s.accounts.SSOSession(ctx, q, userID, c.OrgID, role, now)
		return err
	})
	return out, err
}

// link finds the account of a subject signing in for the first time (by
// email) or creates it (created), and links the subject to it. Whether the
// provider may sign in as an existing account is membership's call.
func (s *Service) link(ctx context.Context, q store.Querier, c ssodb.Config, subject string, cl claims, now time.Time) (uuid.UUID, bool, error) {
	u, err := accountdb.UserByEmail(ctx, q, cl.Email)
	switch {
	case errors.Is(err, store.ErrNotFound):
		// Just in time: a person no account has; a member of this org
		// only (no personal org: the provider vouches for this org).
		userID := domain.NewID()
		name := strings.TrimSpace(cl.Name)
		if name == "" {
			name = cl.Email[:strings.LastIndex(cl.Email, "@")]
		}
		if err := accountdb.InsertUser(ctx, q, accountdb.User{ID: userID, Email: cl.Email, DisplayName: name,
			Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return uuid.Nil, false, errTaken(cl.Email)
			}
			return uuid.Nil, false, err
		}
		if err := domain.Record(ctx, q, domain.Change{At: now, OrgID: c.OrgID, EntityType: "user", EntityID: userID,
			Action: "created_by_sso", Changes: []domain.FieldChange{{Field: "email", New: cl.Email}}}); err != nil {
			return uuid.Nil, false, err
		}
		return userID, true, ssodb.LinkSubject(ctx, q, c.OrgID, c.IssuerURL, subject, userID, now)
	case err != nil:
		return uuid.Nil, false, err
	}
	// After the first link, the account is reached through that identity
	// only: another subject asserting the same email is someone else.
	other, err := ssodb.LinkedElsewhere(ctx, q, c.OrgID, c.IssuerURL, subject, u.ID)
	if err != nil {
		return uuid.Nil, false, err
	}
	if other {
		return uuid.Nil, false, errLinkedElsewhere
	}
	// An unclaimed account (an import's placeholder, a SCIM-provisioned
	// person) is now used: registering can no longer claim it.
	if err := accountdb.ClearPlaceholder(ctx, q, u.ID, now); err != nil {
		return uuid.Nil, false, err
	}
	return u.ID, false, ssodb.LinkSubject(ctx, q, c.OrgID, c.IssuerURL, subject, u.ID, now)
}

// membership returns the user's role in the org. A missing membership is
// added with the default role (reached only by the org's sign-on) for an
// account the sign-in just created, or one of a domain the org has
// verified; for any other account the provider does not vouch (409), also
// when a linked person has left or been removed. A suspended membership
// may not sign in.
func (s *Service) membership(ctx context.Context, q store.Querier, c ssodb.Config, u accountdb.User, created bool, now time.Time) (domain.Role, error) {
	m, err := ssodb.MembershipOf(ctx, q, c.OrgID, u.ID)
	if err == nil {
		if m.SuspendedAt != nil {
			return domain.RoleNone, domain.Unauthorized("this account is deactivated in the organization")
		}
		return domain.ParseRole(m.Role), nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return domain.RoleNone, err
	}
	if !created {
		verified, err := ssodb.DomainVerified(ctx, q, c.OrgID, emailDomain(u.Email))
		if err != nil {
			return domain.RoleNone, err
		}
		if !verified {
			return domain.RoleNone, errTaken(u.Email)
		}
	}
	if err := ssodb.InsertMembership(ctx, q, c.OrgID, u.ID, c.DefaultRole, now); err != nil {
		return domain.RoleNone, err
	}
	return domain.ParseRole(c.DefaultRole), domain.Record(ctx, q, domain.Change{At: now, OrgID: c.OrgID, ActorID: &u.ID, EntityType: "membership",
		EntityID: u.ID, Action: "joined_by_sso", Changes: []domain.FieldChange{{Field: "role", New: domain.ParseRole(c.DefaultRole).String()}}})
}
