package codehost

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/codehostdb"
)

// Connection is an org's own webhook endpoint, as the API renders it; the
// secret is shown only in the answer to its creation.
type Connection struct {
	ID           uuid.UUID `json:"id"`
	OrgID        uuid.UUID `json:"org_id"`
	WebhookURL   string    `json:"webhook_url"`
	Repositories []string  `json:"repositories"`
	Secret       string    `json:"secret,omitempty"`
	CreatedAt    time.Time `json:"created_at"`
}

func (s *Service) toConnection(r codehostdb.Connection) Connection {
	return Connection{ID: r.ID, OrgID: r.OrgID, Repositories: r.Repositories, CreatedAt: r.CreatedAt.UTC(),
		WebhookURL: strings.TrimRight(s.PublicURL, "/") + "/api/v1/integrations/codehost/webhook/" + r.ID.String()}
}

var repoPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}$`)

// MaxRepositories bounds a connection's allowlist.
const MaxRepositories = 100

// Create connects the code host to an org (Admin): a new endpoint with its
// own secret, optionally limited to the listed repositories (owner/name,
// any case).
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, repositories []string) (Connection, error) {
	var probs domain.Problems
	repos := []string{}
	seen := map[string]bool{}
	if len(repositories) > MaxRepositories {
		probs.Add("repositories", "at most 100")
	}
	for _, r := range repositories {
		if !repoPattern.MatchString(r) {
			probs.Add("repositories", quoteEvent(r)+" is not owner/name")
			continue
		}
		if l := strings.ToLower(r); !seen[l] {
			seen[l] = true
			repos = append(repos, l)
		}
	}
	if err := probs.Err(); err != nil {
		return Connection{}, err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return Connection{}, err
	}
	secret := "whcs_" + base64.RawURLEncoding.EncodeToString(raw)
	// The org id is the associated data: a sealed secret copied to another
	// org's row does not open.
	sealed := s.Box.Seal([]byte(secret), orgID[:])
	var out Connection
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		row := codehostdb.Connection{ID: domain.NewID(), OrgID: orgID, SecretEnc: sealed, Repositories: repos,
			CreatedBy: &p.UserID, CreatedAt: s.Clock.Now()}
		if err := codehostdb.Insert(ctx, q, row); err != nil {
			return err
		}
		out = s.toConnection(row)
		out.Secret = secret
		return domain.Record(ctx, q, domain.Change{At: s.Clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "codehost_connection",
			EntityID: row.ID, Action: "created", Changes: []domain.FieldChange{{Field: "repositories", New: repos}}})
	})
	return out, err
}

// List pages an org's connections (Admin), without secrets.
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Connection], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return domain.Paged[Connection]{}, err
	}
	rows, err := codehostdb.Page(ctx, q, orgID, page)
	if err != nil {
		return domain.Paged[Connection]{}, err
	}
	return domain.MapPage(rows, s.toConnection), nil
}

// Delete removes a connection (Admin); its URL stops verifying at once.
func (s *Service) Delete(ctx context.Context, p domain.Principal, orgID, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		n, err := codehostdb.Delete(ctx, q, orgID, id)
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("code-host connection")
		}
		return domain.Record(ctx, q, domain.Change{At: s.Clock.Now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "codehost_connection",
			EntityID: id, Action: "deleted"})
	})
}

// authenticate checks the signature with the secret of the URL the delivery
// came to, before the body is parsed. Every failure is the same 401, so an
// unknown connection id is indistinguishable from a wrong signature.
func (s *Service) authenticate(ctx context.Context, d Delivery) (string, *codehostdb.Connection, error) {
	fail := domain.Unauthorized("invalid or missing X-Codehost-Signature-256")
	if d.ConnectionID == nil {
		if !Verify(s.Secret, d.Body, d.Signature) {
			return "", nil, fail
		}
		return "global", nil, nil
	}
	if d.Signature == "" {
		return "", nil, fail
	}
	c, err := codehostdb.Get(ctx, s.DB.Q(), *d.ConnectionID)
	if errors.Is(err, store.ErrNotFound) {
		return "", nil, fail
	}
	if err != nil {
		return "", nil, err
	}
	secret, err := s.Box.Open(c.SecretEnc, c.OrgID[:])
	if err != nil || !Verify(string(secret), d.Body, d.Signature) {
		return "", nil, fail
	}
	return c.ID.String(), &c, nil
}
