package account

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
)

// KeyPrefix starts every API key.
const KeyPrefix = "svc_live_"

// APIKey is an API key as shown to its owner; Key only in the create response.
type APIKey struct {
	ID         uuid.UUID   `json:"id"`
	Name       string      `json:"name"`
	Key        string      `json:"key,omitempty"`
	KeyPrefix  string      `json:"key_prefix"`
	Scopes     []string    `json:"scopes"`
	ProjectIDs []uuid.UUID `json:"project_ids"`
	CreatedAt  time.Time   `json:"created_at"`
	LastUsedAt *time.Time  `json:"last_used_at"`
	ExpiresAt  *time.Time  `json:"expires_at"`
}

func toKey(k accountdb.APIKey) APIKey {
	ids := k.ProjectIDs
	if ids == nil {
		ids = []uuid.UUID{}
	}
	return APIKey{ID: k.ID, Name: k.Name, KeyPrefix: k.KeyPrefix, Scopes: k.Scopes, ProjectIDs: ids,
		CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, ExpiresAt: k.ExpiresAt}
}

// CreateKeyInput is an API key request.
type CreateKeyInput struct {
	Name       string
	Scopes     []string
	ProjectIDs []uuid.UUID
	ExpiresAt  *time.Time
	OrgID      *uuid.UUID // the org the key belongs to; default the session's
}

var scopeRank = map[string]int{domain.ScopeRead: 1, domain.ScopeWrite: 2, domain.ScopeAdmin: 3}

func maxScope(scopes []string) int {
	m := 0
	for _, s := range scopes {
		if s == domain.ScopeAll {
			return 99
		}
		m = max(m, scopeRank[s])
	}
	return m
}

// CreateKey makes an API key bound to one org: org_id if given (any org the
// caller is a member of), else the session's org. A key made with an API key
// belongs to that key's org and reaches no further, nor lives longer, than it.
func (s *Service) CreateKey(ctx context.Context, p domain.Principal, in CreateKeyInput) (APIKey, error) {
	var probs domain.Problems
	if n := utf8.RuneCountInString(strings.TrimSpace(in.Name)); n < 1 || utf8.RuneCountInString(in.Name) > 255 {
		probs.Add("name", "must be 1-255 characters")
	}
	if in.Scopes == nil {
		in.Scopes = []string{domain.ScopeRead, domain.ScopeWrite}
	}
	if len(in.Scopes) == 0 {
		probs.Add("scopes", "must not be empty")
	}
	for _, sc := range in.Scopes {
		if scopeRank[sc] == 0 {
			probs.Add("scopes", "unknown scope "+sc+" (read, write, admin)")
		}
	}
	slices.Sort(in.Scopes)
	in.Scopes = slices.Compact(in.Scopes)
	now := s.now()
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		probs.Add("expires_at", "must be in the future")
	}
	if in.ProjectIDs == nil {
		in.ProjectIDs = []uuid.UUID{}
	}
	slices.SortFunc(in.ProjectIDs, func(a, b uuid.UUID) int { return strings.Compare(a.String(), b.String()) })
	in.ProjectIDs = slices.Compact(in.ProjectIDs)
	if err := probs.Err(); err != nil {
		return APIKey{}, err
	}
	if p.IsKey() {
		if maxScope(in.Scopes) > maxScope(p.Scopes) {
			return APIKey{}, domain.Forbidden("an API key cannot create a key with wider scopes than its own")
		}
		for _, id := range in.ProjectIDs {
			if !p.AllowsProject(id) {
				return APIKey{}, domain.Forbidden("an API key cannot create a key for projects it cannot reach")
			}
		}
		if len(p.ProjectIDs) > 0 && len(in.ProjectIDs) == 0 {
			in.ProjectIDs = p.ProjectIDs
		}
		// A key never outlives the key that made it.
		if p.KeyExpires != nil && (in.ExpiresAt == nil || in.ExpiresAt.After(*p.KeyExpires)) {
			in.ExpiresAt = p.KeyExpires
		}
	}
	orgID := p.OrgID
	if in.OrgID != nil {
		orgID = *in.OrgID
	}
	var out APIKey
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		// A key reaches no other org (404). A restricted key may mint keys:
		// they stay within its projects (checked above), so the org-level
		// access is the filtered kind.
		if _, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
			return err
		}
		if len(in.ProjectIDs) > 0 {
			n, err := accountdb.LiveProjectsIn(ctx, q, orgID, in.ProjectIDs)
			if err != nil {
				return err
			}
			if int(n) != len(in.ProjectIDs) {
				return domain.Invalid("project_ids: every id must be a project of your organization")
			}
		}
		key := KeyPrefix + NewSecret(32)
		row := accountdb.APIKey{ID: domain.NewID(), OrgID: orgID, UserID: p.UserID, Name: in.Name,
			KeyPrefix: key[:len(KeyPrefix)+8], KeyHash: HashToken(key), Scopes: in.Scopes, ProjectIDs: in.ProjectIDs,
			ExpiresAt: in.ExpiresAt, CreatedAt: now}
		if err := accountdb.InsertAPIKey(ctx, q, row); err != nil {
			return err
		}
		out = toKey(row)
		out.Key = key
		return nil
	})
	return out, err
}

// keyVisible reports whether the caller sees key k of its user: only keys
// of orgs it reaches (a bound caller: its own org); an API key only itself
// unless it manages keys (admin scope, no project restriction).
func keyVisible(p domain.Principal, k accountdb.APIKey) bool {
	if !p.Reaches(k.OrgID) {
		return false
	}
	return !p.IsKey() || p.ManagesKeys() || k.ID == *p.KeyID
}

// ListKeys lists the caller's keys, without the secret (see keyVisible).
func (s *Service) ListKeys(ctx context.Context, p domain.Principal) ([]APIKey, error) {
	rows, err := accountdb.KeysOfUser(ctx, s.DB.Q(), p.UserID)
	if err != nil {
		return nil, err
	}
	out := make([]APIKey, 0, len(rows))
	for _, r := range rows {
		if keyVisible(p, r) {
			out = append(out, toKey(r))
		}
	}
	return out, nil
}

// DeleteKey revokes one of the caller's keys at once. An API key may revoke
// itself; another key of the user only if it manages keys (else 403), and
// never one of an org it does not reach (404).
func (s *Service) DeleteKey(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		k, err := accountdb.KeyOfUser(ctx, q, p.UserID, id)
		if err != nil {
			return domain.NotFoundAs(err, "API key")
		}
		if !p.Reaches(k.OrgID) {
			return domain.NotFound("API key")
		}
		if !keyVisible(p, k) {
			return domain.Forbidden("revoking another API key requires a session or an API key with the admin scope and no project restriction")
		}
		return domain.NotFoundAs(accountdb.DeleteAPIKey(ctx, q, p.UserID, id), "API key")
	})
}

var errBadCredentials = domain.Unauthorized("missing or invalid credentials")

// Authenticate turns a bearer credential into the request's principal:
// an API key (looked up by hash; expired, deleted or of a deactivated user is
// 401) or an access token.
func (s *Service) Authenticate(ctx context.Context, bearer string) (domain.Principal, error) {
	if strings.HasPrefix(bearer, KeyPrefix) {
		return s.authenticateKey(ctx, bearer)
	}
	t, ok := s.verifiedToken(bearer)
	if !ok {
		return domain.Principal{}, errBadCredentials
	}
	// A deactivated (or deleted) user's tokens stop working at once, not
	// when they expire.
	st, err := s.standingOf(ctx, t.uid)
	if err != nil {
		return domain.Principal{}, err
	}
	if !st.Active {
		return domain.Principal{}, errBadCredentials
	}
	p := domain.Principal{UserID: t.uid, OrgID: t.oid, Email: t.email, Scopes: []string{domain.ScopeAll}, SSO: t.sso}
	if !p.SSO {
		p.SSOOnlyOrgs = st.SSOOnlyOrgs
	}
	return p, nil
}

func (s *Service) authenticateKey(ctx context.Context, key string) (domain.Principal, error) {
	q := s.DB.Q()
	k, err := accountdb.KeyByHash(ctx, q, HashToken(key))
	if errors.Is(err, store.ErrNotFound) {
		return domain.Principal{}, errBadCredentials
	}
	if err != nil {
		return domain.Principal{}, err
	}
	now := s.now()
	if !k.UserActive || (k.ExpiresAt != nil && !k.ExpiresAt.After(now)) {
		return domain.Principal{}, errBadCredentials
	}
	if k.LastUsedAt == nil || now.Sub(*k.LastUsedAt) >= s.KeyTouchInterval {
		if err := accountdb.TouchAPIKey(ctx, q, k.ID, now, s.KeyTouchInterval); err != nil {
			return domain.Principal{}, err
		}
	}
	id := k.ID
	return domain.Principal{UserID: k.UserID, OrgID: k.OrgID, Email: k.Email, KeyID: &id, Scopes: k.Scopes,
		ProjectIDs: k.ProjectIDs, KeyExpires: k.ExpiresAt}, nil
}
