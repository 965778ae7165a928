// Package org holds the use cases of organizations, members and invites.
package org

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/statusflow"
	"tracker/store"
	"tracker/store/orgdb"
)

// InviteTTL is how long an invite code can be used.
const InviteTTL = 7 * 24 * time.Hour

// Service runs the org use cases.
type Service struct {
	DB        *store.DB
	PublicURL string
	clock     domain.Clock
}

// New builds the service on db; publicURL prefixes invite links.
func New(db *store.DB, clock domain.Clock, publicURL string) *Service {
	return &Service{DB: db, PublicURL: publicURL, clock: clock}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// Org is an organization.
type Org struct {
	ID        uuid.UUID `json:"id"`
	Name      string    `json:"name"`
	Slug      string    `json:"slug"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

func toOrg(o orgdb.Org) Org {
	return Org{ID: o.ID, Name: o.Name, Slug: o.Slug, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// slugPattern is what a slug may hold: it names files (the export's
// download) and may appear in paths, so no quotes, separators, dots or
// control characters; the database holds the same check.
var slugPattern = regexp.MustCompile(`^[a-z0-9-]{1,100}$`)

// ValidateNameSlug checks the spec's limits on an org's name and slug.
func ValidateNameSlug(name, slug, nameField, slugField string) error {
	var p domain.Problems
	if n := utf8.RuneCountInString(strings.TrimSpace(name)); n < 1 || utf8.RuneCountInString(name) > 255 {
		p.Add(nameField, "must be 1-255 characters")
	}
	if !slugPattern.MatchString(slug) {
		p.Add(slugField, "must be 1-100 characters, each a lower-case letter a-z, a digit or '-'")
	}
	return p.Err()
}

// CreateIn creates an org owned by ownerID with its Default workflow, inside
// the caller's transaction at time now. A taken slug is a 409.
func CreateIn(ctx context.Context, q store.Querier, ownerID uuid.UUID, name, slug string, now time.Time) (Org, error) {
	o := orgdb.Org{ID: domain.NewID(), Name: name, Slug: slug, CreatedAt: now, UpdatedAt: now}
	if err := orgdb.InsertOrg(ctx, q, o); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return Org{}, domain.Conflict("an organization with this slug already exists", "slug: "+slug)
		}
		return Org{}, err
	}
	if err := orgdb.InsertMembership(ctx, q, orgdb.Membership{OrgID: o.ID, UserID: ownerID, Role: domain.RoleOwner.DB(), JoinedAt: now}); err != nil {
		return Org{}, err
	}
	if err := statusflow.CreateDefault(ctx, q, o.ID, now); err != nil {
		return Org{}, err
	}
	return toOrg(o), nil
}

// Create makes a new org whose creator becomes its Owner. An API key
// restricted to projects cannot: a new org is no project of its own.
func (s *Service) Create(ctx context.Context, p domain.Principal, name, slug string) (Org, error) {
	if err := ValidateNameSlug(name, slug, "name", "slug"); err != nil {
		return Org{}, err
	}
	if p.IsKey() && len(p.ProjectIDs) > 0 {
		return Org{}, domain.Forbidden("this API key is restricted to projects and cannot create an organization")
	}
	// An org's identity provider vouches for that org only: it does not
	// make orgs in the person's name.
	if p.SSO {
		return Org{}, domain.Forbidden("a session started by single sign-on reaches only its organization and cannot create one")
	}
	var out Org
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		var err error
		out, err = CreateIn(ctx, q, p.UserID, name, slug, s.now())
		return err
	})
	return out, err
}

// List returns the orgs the caller is a member of and reaches: for an API
// key or a single sign-on session only its org; for a password session not
// the orgs only their single sign-on reaches (Principal.Reaches).
func (s *Service) List(ctx context.Context, p domain.Principal) ([]Org, error) {
	rows, err := orgdb.OrgsOfUser(ctx, s.DB.Q(), p.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]Org, 0, len(rows))
	for _, r := range rows {
		if !p.Reaches(r.ID) {
			continue
		}
		out = append(out, toOrg(r))
	}
	return out, nil
}

// RandomCode is a URL-safe random string of n bytes of entropy.
func RandomCode(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
