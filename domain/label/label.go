// Package label holds the use cases of labels: org-wide names with a color,
// linked to tickets. Label changes on a ticket are recorded on the ticket's
// audit trail as field "labels" (old and new label ids).
package label

import (
	"context"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/labeldb"
)

// Service runs the label use cases.
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Label is the API's Label resource.
type Label struct {
	ID        uuid.UUID `json:"id"`
	OrgID     uuid.UUID `json:"org_id"`
	Name      string    `json:"name"`
	Color     string    `json:"color"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the label's ETag version (domain.Versioned).
func (l Label) RowVersion() int64 { return l.Version }

func toLabel(r labeldb.Row) Label {
	return Label{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Color: r.Color, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
		Version: r.RowVersion}
}

func toLabels(rows []labeldb.Row) []Label {
	out := make([]Label, 0, len(rows))
	for _, r := range rows {
		out = append(out, toLabel(r))
	}
	return out
}

// colorRE admits the CSS hex forms that fit the spec's 4-7 characters:
// #rgb, #rgba and #rrggbb.
var colorRE = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6})$`)

func checkName(p *domain.Problems, name string) {
	if strings.TrimSpace(name) == "" {
		p.Add("name", "must be at least 1 non-blank character")
	}
}

func checkColor(p *domain.Problems, color string) {
	if !colorRE.MatchString(color) {
		p.Add("color", "must be a hex color such as #fff or #a1b2c3 (4-7 characters)")
	}
}

func (s *Service) now() time.Time { return s.clock.Now() }

// nameTaken turns the unique violation on a label's name into a 409.
func nameTaken(err error, name string) error {
	var ce *store.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, store.ErrConflict) && ce.Constraint == labeldb.NameConstraint {
		return domain.Conflict("a label with this name already exists in the organization", "name: "+name)
	}
	return err
}

// Create makes a label in an org (Member). Names are unique per org, case
// insensitively.
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, name, color string) (Label, error) {
	var probs domain.Problems
	checkName(&probs, name)
	checkColor(&probs, color)
	if err := probs.Err(); err != nil {
		return Label{}, err
	}
	var out Label
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleMember, "organization"); err != nil {
			return err
		}
		at := s.now()
		r := labeldb.Row{ID: domain.NewID(), OrgID: orgID, Name: name, Color: color, CreatedAt: at, UpdatedAt: at, RowVersion: 1}
		if err := labeldb.Insert(ctx, q, r); err != nil {
			return nameTaken(err, name)
		}
		out = toLabel(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "label", EntityID: r.ID,
			Action: "created", Changes: []domain.FieldChange{{Field: "name", New: name}, {Field: "color", New: color}}})
	})
	return out, err
}

// List pages an org's labels (any member).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Label], error) {
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[Label]{}, err
	}
	rows, err := labeldb.List(ctx, q, orgID, page)
	if err != nil {
		return domain.Paged[Label]{}, err
	}
	return domain.MapPage(rows, toLabel), nil
}

// Get reads one label (any member of its org).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Label, error) {
	r, err := labeldb.GetWithAccess(ctx, s.DB.Q(), id, p.UserID, labeldb.NoLock)
	if err != nil {
		return Label{}, domain.NotFoundAs(err, "label")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleViewer, "label"); err != nil {
		return Label{}, err
	}
	return toLabel(r.Row), nil
}

// Patch is an update of a label; absent fields stay.
type Patch struct {
	Name  domain.Opt[string]
	Color domain.Opt[string]
}

// Update renames or recolors a label (Member); under If-Match
// (domain.Versions) a stale version is a 412.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, patch Patch) (Label, error) {
	var probs domain.Problems
	if patch.Name.Set {
		checkName(&probs, patch.Name.Value) // null reads as "" and is refused
	}
	if patch.Color.Set {
		checkColor(&probs, patch.Color.Value)
	}
	if err := probs.Err(); err != nil {
		return Label{}, err
	}
	var out Label
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		cur, err := labeldb.GetWithAccess(ctx, q, id, p.UserID, labeldb.ForChange)
		if err != nil {
			return domain.NotFoundAs(err, "label")
		}
		if _, err := domain.Authorize(p, domain.MembershipFrom(cur.AccessRow), domain.RoleMember, "label"); err != nil {
			return err
		}
		next := cur.Row
		var changes []domain.FieldChange
		if patch.Name.Set && patch.Name.Value != cur.Name {
			next.Name = patch.Name.Value
			changes = append(changes, domain.FieldChange{Field: "name", Old: cur.Name, New: next.Name})
		}
		if patch.Color.Set && patch.Color.Value != cur.Color {
			next.Color = patch.Color.Value
			changes = append(changes, domain.FieldChange{Field: "color", Old: cur.Color, New: next.Color})
		}
		if len(changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = toLabel(cur.Row)
			return domain.CheckIfMatch(ctx, "label", cur.RowVersion)
		}
		next.UpdatedAt = s.now()
		// If-Match is checked in the UPDATE's WHERE.
		r, err := labeldb.Update(ctx, q, next, domain.Versions(ctx))
		if err != nil {
			return domain.StaleAs(ctx, nameTaken(err, next.Name), "label")
		}
		out = toLabel(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "label", EntityID: id,
			Action: "updated", Changes: changes})
	})
	return out, err
}
