package sso

import (
	"context"
	"errors"
	"net"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/ssodb"
)

// Config is the API's view of an org's SSO configuration; the client
// secret is never shown.
type Config struct {
	OrgID           uuid.UUID `json:"org_id"`
	IssuerURL       string    `json:"issuer_url"`
	ClientID        string    `json:"client_id"`
	ClientSecretSet bool      `json:"client_secret_set"` // the secret itself is write-only
	AllowedDomains  []string  `json:"allowed_domains"`
	DefaultRole     string    `json:"default_role"`
	RedirectURI     string    `json:"redirect_uri"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

func (s *Service) toConfig(c ssodb.Config) Config {
	return Config{OrgID: c.OrgID, IssuerURL: c.IssuerURL, ClientID: c.ClientID, ClientSecretSet: true,
		AllowedDomains: c.AllowedDomains, DefaultRole: domain.ParseRole(c.DefaultRole).String(),
		RedirectURI: s.RedirectURI(), CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

// ConfigInput is a PUT of the configuration. ClientSecret may be empty when
// a configuration exists: the stored secret is kept.
type ConfigInput struct {
	IssuerURL      string
	ClientID       string
	ClientSecret   string
	AllowedDomains []string
	DefaultRole    string // default member; never owner
}

func (s *Service) validate(in *ConfigInput) (domain.Role, error) {
	var p domain.Problems
	in.IssuerURL = strings.TrimRight(strings.TrimSpace(in.IssuerURL), "/")
	if u, err := url.Parse(in.IssuerURL); err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") ||
		u.RawQuery != "" || u.Fragment != "" {
		p.Add("issuer_url", "must be an absolute https URL without query or fragment")
	} else if !s.allowPrivate {
		if u.Scheme != "https" {
			p.Add("issuer_url", "must use https")
		}
		if ip := net.ParseIP(u.Hostname()); (ip != nil && (ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsUnspecified())) ||
			strings.EqualFold(u.Hostname(), "localhost") {
			p.Add("issuer_url", "must be a public address")
		}
	}
	if strings.TrimSpace(in.ClientID) == "" {
		p.Add("client_id", "required")
	}
	domains := make([]string, 0, len(in.AllowedDomains))
	for _, d := range in.AllowedDomains {
		d = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(d), "@"))
		if d == "" || !strings.Contains(d, ".") || strings.ContainsAny(d, "@/ ") {
			p.Add("allowed_domains", "each must be a domain name such as example.com")
			continue
		}
		if !slices.Contains(domains, d) {
			domains = append(domains, d)
		}
	}
	in.AllowedDomains = domains
	role := domain.RoleMember
	if in.DefaultRole != "" {
		role = domain.ParseRole(in.DefaultRole)
		switch {
		case role == domain.RoleNone:
			p.Add("default_role", "must be admin, member, reporter or viewer")
		case role == domain.RoleOwner:
			p.Add("default_role", "cannot be owner: single sign-on never grants ownership")
		}
	}
	return role, p.Err()
}

// Put saves an org's configuration (Owner) after checking the issuer by
// OIDC discovery: a provider that does not answer, or answers for another
// issuer, or lacks PKCE S256, is a 422 giving the reason.
func (s *Service) Put(ctx context.Context, p domain.Principal, orgID uuid.UUID, in ConfigInput) (Config, error) {
	// Access first: a non-member learns nothing, not even what is invalid.
	if _, err := domain.OrgAccess(ctx, s.db.Q(), p, orgID, domain.RoleOwner, "organization"); err != nil {
		return Config{}, err
	}
	role, err := s.validate(&in)
	if err != nil {
		return Config{}, err
	}
	prov, err := s.provider(ctx, in.IssuerURL, true)
	if err != nil {
		return Config{}, domain.Invalid("issuer_url: OIDC discovery failed: " + err.Error())
	}
	var claims struct {
		Methods []string `json:"code_challenge_methods_supported"`
	}
	if err := prov.Claims(&claims); err == nil && len(claims.Methods) > 0 && !slices.Contains(claims.Methods, "S256") {
		return Config{}, domain.Invalid("issuer_url: the provider does not support PKCE with S256")
	}
	var out Config
	err = s.db.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleOwner, "organization"); err != nil {
			return err
		}
		sealed := []byte(nil)
		cur, err := ssodb.GetConfig(ctx, q, orgID)
		switch {
		case in.ClientSecret != "":
			sealed = s.box.Seal([]byte(in.ClientSecret), secretAAD(orgID))
		case err == nil:
			sealed = cur.ClientSecretSealed
		case errors.Is(err, store.ErrNotFound):
			return domain.Invalid("client_secret: required")
		default:
			return err
		}
		row, err := ssodb.PutConfig(ctx, q, ssodb.Config{OrgID: orgID, IssuerURL: in.IssuerURL, ClientID: in.ClientID,
			ClientSecretSealed: sealed, AllowedDomains: in.AllowedDomains, DefaultRole: role.DB(), UpdatedAt: s.clock.Now()})
		if err != nil {
			return err
		}
		out = s.toConfig(row)
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "sso_config", EntityID: orgID,
			Action: "updated", Changes: []domain.FieldChange{{Field: "issuer_url", Old: cur.IssuerURL, New: in.IssuerURL},
				{Field: "client_id", Old: cur.ClientID, New: in.ClientID}, {Field: "default_role", New: role.String()},
				{Field: "allowed_domains", New: in.AllowedDomains}}})
	})
	return out, err
}

// Get shows an org's configuration without the secret (Owner).
func (s *Service) Get(ctx context.Context, p domain.Principal, orgID uuid.UUID) (Config, error) {
	q := s.db.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleOwner, "organization"); err != nil {
		return Config{}, err
	}
	c, err := ssodb.GetConfig(ctx, q, orgID)
	if err != nil {
		return Config{}, domain.NotFoundAs(err, "single sign-on configuration")
	}
	return s.toConfig(c), nil
}

// Delete turns SSO off (Owner): sign-ins in flight fail and the SCIM token
// is revoked. Users keep their memberships and may sign in with a password
// if they have one.
func (s *Service) Delete(ctx context.Context, p domain.Principal, orgID uuid.UUID) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleOwner, "organization"); err != nil {
			return err
		}
		n, err := ssodb.DeleteConfig(ctx, q, orgID, s.clock.Now())
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("single sign-on configuration")
		}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "sso_config", EntityID: orgID, Action: "deleted"})
	})
}
