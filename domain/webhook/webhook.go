// Package webhook holds the use cases of outbound webhooks (create, list,
// delete, delivery history, redelivery) and the signing of deliveries, which
// both the delivery activity and receivers' tests use.
//
// Every webhook route requires the Admin role: a webhook's URL often embeds
// a credential of the receiving system, and its delivery records carry the
// receiver's responses.
package webhook

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/webhookdb"
)

// MinRole is the role every webhook route requires.
const MinRole = domain.RoleAdmin

// Service runs the webhook use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Webhook is the API's webhook; Secret is set only in the creation response.
type Webhook struct {
	ID         uuid.UUID `json:"id"`
	OrgID      uuid.UUID `json:"org_id"`
	URL        string    `json:"url"`
	Secret     string    `json:"secret,omitempty"`
	EventTypes []string  `json:"event_types"`
	Active     bool      `json:"active"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

func toWebhook(r webhookdb.Row) Webhook {
	types := r.EventTypes
	if types == nil {
		types = []string{}
	}
	return Webhook{ID: r.ID, OrgID: r.OrgID, URL: r.URL, EventTypes: types, Active: r.Active,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

// CreateInput is a new webhook.
type CreateInput struct {
	URL        string
	EventTypes []string
}

// MaxURLLength bounds a webhook URL.
const MaxURLLength = 2048

// Validate checks the URL (absolute http or https with a host) and the event
// types (a non-empty subset of domain.EventTypes); duplicates are dropped.
func (in *CreateInput) Validate() error {
	var p domain.Problems
	u, err := url.Parse(in.URL)
	switch {
	case strings.TrimSpace(in.URL) == "":
		p.Add("url", "required")
	case len(in.URL) > MaxURLLength:
		p.Add("url", "must be at most 2048 characters")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "":
		p.Add("url", "must be an absolute http or https URL")
	case u.User != nil && u.Scheme == "http":
		p.Add("url", "credentials in the URL require https")
	}
	if len(in.EventTypes) == 0 {
		p.Add("event_types", "must name at least one event type")
	}
	var types []string
	for _, t := range in.EventTypes {
		if !slices.Contains(domain.EventTypes, t) {
			p.Add("event_types", "unknown event type "+t+"; one of "+strings.Join(domain.EventTypes, ", "))
			continue
		}
		if !slices.Contains(types, t) {
			types = append(types, t)
		}
	}
	in.EventTypes = types
	return p.Err()
}

// Create registers a webhook in orgID and returns it with its secret, the
// only time the secret is shown.
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, in CreateInput) (Webhook, error) {
	if _, err := domain.OrgAccess(ctx, s.DB.Q(), p, orgID, MinRole, "organization"); err != nil {
		return Webhook{}, err
	}
	if err := in.Validate(); err != nil {
		return Webhook{}, err
	}
	now := s.now()
	creator := p.UserID
	row := webhookdb.Row{ID: domain.NewID(), OrgID: orgID, URL: in.URL, Secret: NewSecret(), EventTypes: in.EventTypes,
		Active: true, CreatedBy: &creator, CreatedAt: now, UpdatedAt: now}
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if err := webhookdb.Insert(ctx, q, row); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &creator, EntityType: "webhook",
			EntityID: row.ID, Action: "created", Changes: []domain.FieldChange{{Field: "url", New: row.URL}}})
	})
	if err != nil {
		return Webhook{}, err
	}
	w := toWebhook(row)
	w.Secret = row.Secret
	return w, nil
}

// List pages an org's webhooks, without secrets.
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Webhook], error) {
	if _, err := domain.OrgAccess(ctx, s.DB.Q(), p, orgID, MinRole, "organization"); err != nil {
		return domain.Paged[Webhook]{}, err
	}
	rows, err := webhookdb.List(ctx, s.DB.Q(), orgID, page)
	if err != nil {
		return domain.Paged[Webhook]{}, err
	}
	return domain.MapPage(rows, toWebhook), nil
}

// load reads a webhook with the caller's membership and authorizes it.
func (s *Service) load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID) (webhookdb.Row, error) {
	r, err := webhookdb.GetWithAccess(ctx, q, id, p.UserID)
	if err != nil {
		return webhookdb.Row{}, domain.NotFoundAs(err, "webhook")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), MinRole, "webhook"); err != nil {
		return webhookdb.Row{}, err
	}
	return r.Row, nil
}

// Get reads one webhook, without its secret.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Webhook, error) {
	r, err := s.load(ctx, s.DB.Q(), p, id)
	if err != nil {
		return Webhook{}, err
	}
	return toWebhook(r), nil
}

// Delete removes a webhook and its delivery history; deliveries in flight
// find it gone at their next attempt and stop.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		r, err := s.load(ctx, q, p, id)
		if err != nil {
			return err
		}
		n, err := webhookdb.Delete(ctx, q, r.OrgID, r.ID)
		if err != nil {
			return err
		}
		if n == 0 {
			return domain.NotFound("webhook")
		}
		actor := p.UserID
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &actor, EntityType: "webhook",
			EntityID: r.ID, Action: "deleted"})
	})
}
