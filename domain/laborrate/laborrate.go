// Package laborrate holds the use cases of labor rates: a user's loaded cost
// per hour in one org from an effective date on. Every operation requires
// the Admin role (Admin or Owner) in the rate's org. Rates are never edited:
// a change of rate is a new rate with a later effective date, so the
// capitalization of past periods never changes.
package laborrate

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/capex/period"
	"tracker/domain/timeentry"
	"tracker/store"
	"tracker/store/laborratedb"
)

// MaxRateCents bounds a rate so that every sum of the report stays far
// inside int64 (10,000,000.00 per hour).
const MaxRateCents = 1_000_000_000

// Service runs the labor rate use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Rate is a labor rate as the API renders it.
type Rate struct {
	ID              uuid.UUID `json:"id"`
	UserID          uuid.UUID `json:"user_id"`
	OrgID           uuid.UUID `json:"org_id"`
	LoadedRateCents int64     `json:"loaded_rate_cents"`
	EffectiveDate   string    `json:"effective_date"`
	CreatedAt       time.Time `json:"created_at"`
	UpdatedAt       time.Time `json:"updated_at"`
}

func toRate(r laborratedb.Row) Rate {
	return Rate{ID: r.ID, UserID: r.UserID, OrgID: r.OrgID, LoadedRateCents: r.LoadedRateCents,
		EffectiveDate: r.EffectiveDate.Format(timeentry.DateLayout), CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
}

func (s *Service) today() time.Time { return s.now().UTC().Truncate(24 * time.Hour) }

// CreateInput is a new rate.
type CreateInput struct {
	UserID          uuid.UUID
	OrgID           uuid.UUID
	LoadedRateCents int64
	EffectiveDate   string
}

// Create records a rate for a member of the org. A second rate for the same
// user and effective date is a 409.
func (s *Service) Create(ctx context.Context, p domain.Principal, in CreateInput) (Rate, error) {
	var probs domain.Problems
	day, ok := timeentry.ParseDate(in.EffectiveDate)
	if !ok {
		probs.Add("effective_date", "must be a date in the form YYYY-MM-DD")
	}
	if in.LoadedRateCents < 0 || in.LoadedRateCents > MaxRateCents {
		probs.Add("loaded_rate_cents", "must be between 0 and 1000000000")
	}
	if err := probs.Err(); err != nil {
		return Rate{}, err
	}
	var out Rate
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, in.OrgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		role, err := store.MemberRole(ctx, q, in.OrgID, in.UserID)
		if err != nil {
			return err
		}
		if role == "" {
			return domain.Invalid("user_id: not a member of the organization")
		}
		if err := period.EnsureOpen(ctx, q, in.OrgID, "labor rate", day); err != nil {
			return err
		}
		now := s.now() // as PostgreSQL stores it
		r := laborratedb.Row{ID: domain.NewID(), OrgID: in.OrgID, UserID: in.UserID, LoadedRateCents: in.LoadedRateCents,
			EffectiveDate: day, CreatedAt: now, UpdatedAt: now}
		if err := laborratedb.Insert(ctx, q, r); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("a labor rate for this user and effective date already exists",
					"effective_date: "+day.Format(timeentry.DateLayout))
			}
			return err
		}
		out = toRate(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: in.OrgID, ActorID: &p.UserID, EntityType: "labor_rate",
			EntityID: r.ID, Action: "created", Data: out})
	})
	return out, err
}

// Get reads one rate.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Rate, error) {
	q := s.DB.Q()
	r, err := laborratedb.ByID(ctx, q, id)
	if err != nil {
		return Rate{}, domain.NotFoundAs(err, "labor rate")
	}
	if _, err := domain.OrgAccess(ctx, q, p, r.OrgID, domain.RoleAdmin, "labor rate"); err != nil {
		return Rate{}, err
	}
	return toRate(r), nil
}

// Current is the user's rate in effect today (UTC): the latest effective
// date not after today. A rate dated in the future is not current yet.
func (s *Service) Current(ctx context.Context, p domain.Principal, userID, orgID uuid.UUID) (Rate, error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return Rate{}, err
	}
	r, err := laborratedb.EffectiveOn(ctx, q, orgID, userID, s.today())
	if err != nil {
		return Rate{}, domain.NotFoundAs(err, "labor rate")
	}
	return toRate(r), nil
}

// List pages the user's rates in org.
func (s *Service) List(ctx context.Context, p domain.Principal, userID, orgID uuid.UUID, page domain.Page) (domain.Paged[Rate], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
		return domain.Paged[Rate]{}, err
	}
	rows, err := laborratedb.List(ctx, q, orgID, userID, page)
	if err != nil {
		return domain.Paged[Rate]{}, err
	}
	return domain.MapPage(rows, toRate), nil
}
