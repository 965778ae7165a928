// Package scim holds SCIM 2.0 provisioning (RFC 7643/7644) of one org by
// its SCIM token: Users are the org's members (the global user plus what
// SCIM keeps on the membership), Groups are its teams. Deactivation (active
// false, or DELETE) suspends the membership and ends the person's access to
// the org at once; every change writes an audit row whose actor is the
// token.
package scim

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/account"
	"tracker/store"
	"tracker/store/scimdb"
)

// Schema URNs.
const (
	UserSchema     = "urn:ietf:params:scim:schemas:core:2.0:User"
	GroupSchema    = "urn:ietf:params:scim:schemas:core:2.0:Group"
	ListSchema     = "urn:ietf:params:scim:api:messages:2.0:ListResponse"
	PatchSchema    = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
	ErrorSchema    = "urn:ietf:params:scim:api:messages:2.0:Error"
	SPConfigSchema = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"
	ResTypeSchema  = "urn:ietf:params:scim:schemas:core:2.0:ResourceType"
	SchemaSchema   = "urn:ietf:params:scim:schemas:core:2.0:Schema"
	EnterpriseURN  = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"
)

// Paging bounds: count defaults to DefaultCount and is capped at MaxCount.
const (
	DefaultCount = 100
	MaxCount     = 200
)

// BasePath is where SCIM is served.
const BasePath = "/scim/v2"

// Error is a SCIM error: a domain error with RFC 7644's scimType.
type Error struct {
	Err  *domain.Error
	Type string
	// Status overrides the kind's status (412 for a failed If-Match).
	Status int
}

// HTTPStatus is the status the error is answered with (0: by its kind).
func (e *Error) HTTPStatus() int { return e.Status }

func preconditionFailed(msg string) error {
	return &Error{Err: &domain.Error{Kind: domain.KindConflict, Message: msg}, Status: 412}
}

func (e *Error) Error() string { return e.Err.Error() }

// Unwrap exposes the domain error (its kind sets the status).
func (e *Error) Unwrap() error { return e.Err }

// ScimType is RFC 7644's error detail keyword ("" when none applies).
func (e *Error) ScimType() string { return e.Type }

func scimErr(kind domain.Kind, typ, msg string) error {
	return &Error{Err: &domain.Error{Kind: kind, Message: msg}, Type: typ}
}

func invalidFilter(msg string) error { return scimErr(domain.KindBadRequest, "invalidFilter", msg) }
func invalidValue(msg string) error  { return scimErr(domain.KindBadRequest, "invalidValue", msg) }
func invalidPath(msg string) error   { return scimErr(domain.KindBadRequest, "invalidPath", msg) }
func invalidSyntax(msg string) error { return scimErr(domain.KindBadRequest, "invalidSyntax", msg) }
func mutability(msg string) error    { return scimErr(domain.KindBadRequest, "mutability", msg) }
func noTarget(msg string) error      { return scimErr(domain.KindBadRequest, "noTarget", msg) }
func uniqueness(msg string) error    { return scimErr(domain.KindConflict, "uniqueness", msg) }
func notFound(what string) error     { return scimErr(domain.KindNotFound, "", what+" not found") }

// Service runs the SCIM use cases.
type Service struct {
	db    *store.DB
	clock domain.Clock
	// base is SERVICE_PUBLIC_URL + BasePath, for meta.location.
	base string
}

// New builds the service; publicURL is SERVICE_PUBLIC_URL.
func New(db *store.DB, clock domain.Clock, publicURL string) *Service {
	return &Service{db: db, clock: clock, base: strings.TrimRight(publicURL, "/") + BasePath}
}

// BaseURL is the SCIM base URL to give an identity provider.
func (s *Service) BaseURL() string { return s.base }

// Actor is the authenticated SCIM client: the org's live token.
type Actor struct {
	TokenID     uuid.UUID
	OrgID       uuid.UUID
	Prefix      string
	DefaultRole string
}

// via is what audit rows record of the token.
func (a Actor) via() map[string]any {
	return map[string]any{"actor": "scim_token", "scim_token_id": a.TokenID, "token_prefix": a.Prefix}
}

// Authenticate finds the org of a SCIM bearer token: an unknown or revoked
// token, or an org without SSO, is 401.
func (s *Service) Authenticate(ctx context.Context, bearer string) (Actor, error) {
	if !strings.HasPrefix(bearer, "scim_") || len(bearer) > 200 {
		return Actor{}, domain.Unauthorized("invalid SCIM bearer token")
	}
	t, err := scimdb.TokenByHash(ctx, s.db.Q(), account.HashToken(bearer))
	if errors.Is(err, store.ErrNotFound) {
		return Actor{}, domain.Unauthorized("invalid SCIM bearer token")
	}
	if err != nil {
		return Actor{}, err
	}
	return Actor{TokenID: t.ID, OrgID: t.OrgID, Prefix: t.Prefix, DefaultRole: t.DefaultRole}, nil
}

// record writes the audit row of a SCIM change.
func (s *Service) record(ctx context.Context, q store.Querier, a Actor, entity string, id uuid.UUID, action string, changes []domain.FieldChange) error {
	tok := a.TokenID
	return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: a.OrgID, ActorID: &tok, EntityType: entity,
		EntityID: id, Action: action, Changes: changes, Via: a.via()})
}

// version is a weak ETag over a resource's content.
func version(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return `W/"` + hex.EncodeToString(sum[:8]) + `"`
}

// ListParams are a list request's query.
type ListParams struct {
	Filter     string
	StartIndex int // 1-based; below 1 reads as 1
	Count      int // negative reads as 0; -1 sentinel not used
	CountSet   bool
}

func (p ListParams) window() (offset, limit uint64) {
	start := p.StartIndex
	if start < 1 {
		start = 1
	}
	count := DefaultCount
	if p.CountSet {
		count = max(0, min(p.Count, MaxCount))
	}
	return uint64(start - 1), uint64(count)
}

// List is a ListResponse.
type List struct {
	Schemas      []string         `json:"schemas"`
	TotalResults int64            `json:"totalResults"`
	StartIndex   int              `json:"startIndex"`
	ItemsPerPage int              `json:"itemsPerPage"`
	Resources    []map[string]any `json:"Resources"`
}

func newList(total int64, offset uint64, items []map[string]any) List {
	return List{Schemas: []string{ListSchema}, TotalResults: total, StartIndex: int(offset) + 1,
		ItemsPerPage: len(items), Resources: items}
}
