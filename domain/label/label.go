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

// Content are a label's own values (labeldb.Content): what a create sets
// and a PATCH changes, field by field (domain.Patch).
type Content = labeldb.Content

// Label is the API's Label resource.
type Label struct {
	ID    uuid.UUID `json:"id"`
	OrgID uuid.UUID `json:"org_id"`
	Content
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the label's ETag version (domain.Versioned).
func (l Label) RowVersion() int64 { return l.Version }

func toLabel(r labeldb.Row) Label {
	return Label{ID: r.ID, OrgID: r.OrgID, Content: r.Content, CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(),
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

// CheckContent applies the rules of a label's own values to those the
// patch sets (a new label's, as domain.Filled, too): the one check of a
// create, a PATCH and an imported label. A field without a rule needs no
// line here.
func CheckContent(p *domain.Problems, pt domain.Patch[Content]) {
	if pt.Has("name") && strings.TrimSpace(pt.Value.Name) == "" {
		p.Add("name", "must be at least 1 non-blank character") // null reads as "" and is refused
	}
	if pt.Has("color") && !colorRE.MatchString(pt.Value.Color) {
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
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, c Content) (Label, error) {
	var probs domain.Problems
	CheckContent(&probs, domain.Filled(c, "name", "color"))
	if err := probs.Err(); err != nil {
		return Label{}, err
	}
	var out Label
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleMember, "organization"); err != nil {
			return err
		}
		at := s.now()
		r := labeldb.Row{ID: domain.NewID(), OrgID: orgID, Content: c, CreatedAt: at, UpdatedAt: at, RowVersion: 1}
		if err := labeldb.Insert(ctx, q, r); err != nil {
			return nameTaken(err, c.Name)
		}
		out = toLabel(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "label", EntityID: r.ID,
			Action: "created", Changes: domain.Created(c)})
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

// Update renames or recolors a label (Member); under If-Match
// (domain.Versions) a stale version is a 412.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, pt domain.Patch[Content]) (Label, error) {
	var probs domain.Problems
	CheckContent(&probs, pt)
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
		c := domain.Changeset{Set: map[string]any{}}
		pt.Track(&c, cur.Content)
		changes := c.Changes
		if len(changes) == 0 {
			// Nothing to write: the version read under the row lock decides.
			out = toLabel(cur.Row)
			return domain.CheckIfMatch(ctx, "label", cur.RowVersion)
		}
		// If-Match is checked in the UPDATE's WHERE.
		r, err := labeldb.Update(ctx, q, cur.Row.OrgID, id, c.Set, s.now(), domain.Versions(ctx))
		if err != nil {
			return domain.StaleAs(ctx, nameTaken(err, pt.Apply(cur.Content).Name), "label")
		}
		out = toLabel(r)
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "label", EntityID: id,
			Action: "updated", Changes: changes})
	})
	return out, err
}
