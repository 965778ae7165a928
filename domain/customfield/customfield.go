// Package customfield holds an org's custom field definitions: typed fields
// (text, number, date, select, multi_select, user, checkbox, url) that its
// tickets carry as custom_fields, keyed by the field's key. Every write is an
// Admin's; any member reads them. A project-restricted API key reads the
// definitions enabled for its projects, naming only its projects, and
// writes none.
package customfield

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/customfielddb"
)

// Service runs the custom field use cases.
type Service struct {
	DB     *store.DB
	clock  domain.Clock
	inline int // see WithInlineValues
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

// Field types.
const (
	Text        = "text"
	Number      = "number"
	Date        = "date"
	Select      = "select"
	MultiSelect = "multi_select"
	User        = "user"
	Checkbox    = "checkbox"
	URL         = "url"
)

// Types lists the field types in the order the docs name them.
var Types = []string{Text, Number, Date, Select, MultiSelect, User, Checkbox, URL}

// Limits of a definition.
const (
	MaxOptions    = 500
	MaxOptionName = 100
	MaxName       = 100
	MaxKey        = 64
	// MaxText is the longest value of a text field, in characters.
	MaxText = 10000
)

// Option is one choice of a select or multi_select field.
type Option = customfielddb.Option

// Field is the API's custom field definition: the row as stored, with its
// times in UTC and its lists never null.
type Field struct{ customfielddb.Row }

// IsSelect reports whether the field's values are option ids.
func (f Field) IsSelect() bool { return f.Type == Select || f.Type == MultiSelect }

// EnabledFor reports whether the field applies to tickets of projectID.
func (f Field) EnabledFor(projectID uuid.UUID) bool {
	if len(f.ProjectIDs) == 0 {
		return true
	}
	for _, id := range f.ProjectIDs {
		if id == projectID {
			return true
		}
	}
	return false
}

// ToField renders a stored definition.
func ToField(r customfielddb.Row) Field {
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	if r.Options == nil {
		r.Options = []Option{}
	}
	if r.ProjectIDs == nil {
		r.ProjectIDs = []uuid.UUID{}
	}
	return Field{Row: r}
}

// OptionIn is an option as a request names it: a bare name, or an object
// {id?, name?, color?, archived?} (an id names an existing option).
type OptionIn struct {
	ID       *uuid.UUID `json:"id"`
	Name     *string    `json:"name"`
	Color    *string    `json:"color"`
	Archived *bool      `json:"archived"`
}

// UnmarshalJSON reads a bare name or an object.
func (o *OptionIn) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*o = OptionIn{Name: &s}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return domain.Invalid("options: each must be a name or an object {id, name, color, archived}")
	}
	type plain OptionIn
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return domain.Invalid("options." + te.Field + ": must be " + te.Type.Kind().String())
		}
		return domain.Invalid("options: " + err.Error())
	}
	*o = OptionIn(p)
	return nil
}

// Input is a definition's fields as a request sends them; on PATCH an
// absent field keeps its value.
type Input struct {
	Name       domain.Opt[string]
	Key        domain.Opt[string]
	Type       domain.Opt[string]
	Options    domain.Opt[[]OptionIn]
	ProjectIDs domain.Opt[[]uuid.UUID]
	Required   domain.Opt[bool]
}

var keyRE = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)
var colorRE = regexp.MustCompile(`^#([0-9a-fA-F]{3}|[0-9a-fA-F]{4}|[0-9a-fA-F]{6})$`)

// Slug is the key a name defaults to: lowercase letters and digits, every
// other run of characters one underscore.
func Slug(name string) string {
	var b strings.Builder
	under := false
	for _, r := range strings.ToLower(name) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			under = false
			b.WriteRune(r)
			if b.Len() >= MaxKey {
				break
			}
			continue
		}
		under = true
	}
	return b.String()
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func checkName(pr *domain.Problems, o domain.Opt[string]) string {
	n := strings.TrimSpace(o.Value)
	if o.Null || n == "" || utf8.RuneCountInString(n) > MaxName {
		pr.Add("name", "must be 1-100 characters")
	}
	return n
}

// options applies in to the current options cur (nil on create): an
// existing option named by its id is kept (renamed, recolored or archived as
// in says), one without an id is new, and an existing one left out is a
// problem (archive it instead).
func options(pr *domain.Problems, cur []customfielddb.Option, in []OptionIn) []customfielddb.Option {
	if len(in) > MaxOptions {
		pr.Add("options", "at most 500 options")
		return cur
	}
	byID := map[uuid.UUID]customfielddb.Option{}
	for _, o := range cur {
		byID[o.ID] = o
	}
	out := make([]customfielddb.Option, 0, len(in))
	names := map[string]bool{}
	seen := map[uuid.UUID]bool{}
	for i, o := range in {
		var opt customfielddb.Option
		if o.ID != nil {
			old, ok := byID[*o.ID]
			if !ok || seen[*o.ID] {
				pr.Add("options", "option "+o.ID.String()+" is not an option of this field (a new option has no id)")
				continue
			}
			seen[*o.ID] = true
			opt = old
		} else {
			if o.Name == nil {
				pr.Add("options", "a new option needs a name")
				continue
			}
			opt = customfielddb.Option{ID: domain.NewID()}
		}
		if o.Name != nil {
			opt.Name = strings.TrimSpace(*o.Name)
		}
		if o.Color != nil {
			c := *o.Color
			if !colorRE.MatchString(c) {
				pr.Add("options", "color must be a hex color such as #fff or #a1b2c3")
			}
			opt.Color = &c
		}
		if o.Archived != nil {
			opt.Archived = *o.Archived
		}
		if opt.Name == "" || utf8.RuneCountInString(opt.Name) > MaxOptionName {
			pr.Add("options", "each option's name must be 1-100 characters")
			continue
		}
		lower := strings.ToLower(opt.Name)
		if names[lower] {
			pr.Add("options", "option names must be unique: "+opt.Name)
			continue
		}
		names[lower] = true
		_ = i
		out = append(out, opt)
	}
	for _, o := range cur {
		if !seen[o.ID] {
			pr.Add("options", "option "+o.ID.String()+" ("+o.Name+") is left out: send every option (archive one with archived: true)")
		}
	}
	return out
}

// apply checks in against r (a new row on create) and writes it onto r.
func (s *Service) apply(ctx context.Context, q store.Querier, pr *domain.Problems, r *customfielddb.Row, in Input, create bool) error {
	if in.Name.Set {
		r.Name = checkName(pr, in.Name)
	} else if create {
		pr.Add("name", "required")
	}
	if create {
		switch {
		case !in.Type.Set || in.Type.Null:
			pr.Add("type", "required: one of "+strings.Join(Types, ", "))
		case !contains(Types, in.Type.Value):
			pr.Add("type", "must be one of "+strings.Join(Types, ", "))
		default:
			r.Type = in.Type.Value
		}
		switch {
		case in.Key.Set && !in.Key.Null:
			if !keyRE.MatchString(in.Key.Value) {
				pr.Add("key", "must be 1-64 lowercase letters, digits or _")
			}
			r.Key = in.Key.Value
		default:
			r.Key = Slug(r.Name)
			if r.Key == "" && in.Name.Set {
				pr.Add("key", "the name has no letter or digit to make a key of: send a key")
			}
		}
	} else {
		if in.Type.Set && (in.Type.Null || in.Type.Value != r.Type) {
			pr.Add("type", "is immutable")
		}
		if in.Key.Set && (in.Key.Null || in.Key.Value != r.Key) {
			pr.Add("key", "is immutable")
		}
	}
	selectType := r.Type == Select || r.Type == MultiSelect
	if in.Options.Set && !in.Options.Null {
		if !selectType && r.Type != "" {
			if len(in.Options.Value) > 0 {
				pr.Add("options", "only select and multi_select fields have options")
			}
		} else {
			r.Options = options(pr, r.Options, in.Options.Value)
		}
	} else if in.Options.Null && !create {
		pr.Add("options", "must be the full list of options")
	}
	if create && selectType && len(r.Options) == 0 {
		pr.Add("options", "required for select and multi_select: at least one")
	}
	if in.Required.Set {
		r.Required = in.Required.Value && !in.Required.Null
	}
	if in.ProjectIDs.Set {
		ids := domain.Dedupe(in.ProjectIDs.Value)
		if len(ids) > 0 {
			live, err := customfielddb.LiveProjects(ctx, q, r.OrgID, ids)
			if err != nil {
				return err
			}
			if len(live) != len(ids) {
				pr.Add("project_ids", "must be projects of the organization")
			}
		}
		r.ProjectIDs = ids
	}
	return nil
}

// keyTaken turns the unique violation on a field's key into a 409.
func keyTaken(err error, key string) error {
	var ce *store.ConstraintError
	if errors.As(err, &ce) && errors.Is(err, store.ErrConflict) && ce.Constraint == customfielddb.KeyConstraint {
		return domain.Conflict("a custom field with this key already exists in the organization", "key: "+key)
	}
	return err
}

// Create defines a field in orgID (Admin).
func (s *Service) Create(ctx context.Context, p domain.Principal, orgID uuid.UUID, in Input) (Field, error) {
	var out Field
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, domain.RoleAdmin, "organization"); err != nil {
			return err
		}
		now := s.clock.Now()
		r := customfielddb.Row{ID: domain.NewID(), OrgID: orgID, Options: []customfielddb.Option{}, ProjectIDs: []uuid.UUID{},
			CreatedAt: now, UpdatedAt: now}
		var pr domain.Problems
		if err := s.apply(ctx, q, &pr, &r, in, true); err != nil {
			return err
		}
		if err := pr.Err(); err != nil {
			return err
		}
		if err := customfielddb.Insert(ctx, q, r); err != nil {
			return keyTaken(err, r.Key)
		}
		out = ToField(r)
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: orgID, ActorID: &p.UserID, EntityType: "custom_field", EntityID: r.ID,
			Action: "created", Changes: []domain.FieldChange{{Field: "key", New: r.Key}, {Field: "type", New: r.Type}}})
	})
	return out, err
}

// List pages the definitions of orgID (any member). A project-restricted
// API key lists those enabled for one of its projects, each naming only
// its projects (see keyView).
func (s *Service) List(ctx context.Context, p domain.Principal, orgID uuid.UUID, page domain.Page) (domain.Paged[Field], error) {
	q := s.DB.Q()
	if _, err := domain.OrgReadFiltered(ctx, q, p, orgID, domain.RoleViewer, "organization"); err != nil {
		return domain.Paged[Field]{}, err
	}
	var only []uuid.UUID
	if len(p.ProjectIDs) > 0 {
		only = p.ProjectIDs
	}
	rows, err := customfielddb.Page(ctx, q, orgID, only, page)
	if err != nil {
		return domain.Paged[Field]{}, err
	}
	return domain.MapPage(rows, func(r customfielddb.Row) Field { f, _ := keyView(p, ToField(r)); return f }), nil
}

// keyView is f as p may read it: everyone but a project-restricted API key
// reads it whole; such a key reads a field enabled for one of its projects
// (ok false: for none of them), with project_ids narrowed to its own
// projects, so no definition tells it of a project it cannot see.
func keyView(p domain.Principal, f Field) (Field, bool) {
	if len(p.ProjectIDs) == 0 || len(f.ProjectIDs) == 0 {
		return f, true
	}
	mine := make([]uuid.UUID, 0, len(f.ProjectIDs))
	for _, id := range f.ProjectIDs {
		if p.AllowsProject(id) {
			mine = append(mine, id)
		}
	}
	f.ProjectIDs = mine
	return f, len(mine) > 0
}

// load reads a definition with the caller's access to its org at min (a
// field of an org the caller is not in is a 404).
func load(ctx context.Context, q store.Querier, p domain.Principal, id uuid.UUID, min domain.Role, lock bool) (customfielddb.Row, error) {
	get := customfielddb.Get
	if lock {
		get = customfielddb.GetForUpdate
	}
	r, err := get(ctx, q, id)
	if err != nil {
		return r, domain.NotFoundAs(err, "custom field")
	}
	_, err = domain.OrgAccess(ctx, q, p, r.OrgID, min, "custom field")
	return r, err
}

// Get reads a definition (any member of its org; a project-restricted API
// key: a field enabled for one of its projects, others are 404s).
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Field, error) {
	q := s.DB.Q()
	r, err := customfielddb.Get(ctx, q, id)
	if err != nil {
		return Field{}, domain.NotFoundAs(err, "custom field")
	}
	if _, err := domain.OrgReadFiltered(ctx, q, p, r.OrgID, domain.RoleViewer, "custom field"); err != nil {
		return Field{}, err
	}
	f, ok := keyView(p, ToField(r))
	if !ok {
		return Field{}, domain.NotFound("custom field")
	}
	return f, nil
}

// Update changes a definition's name, options, projects or required flag
// (Admin); its key and type are immutable.
func (s *Service) Update(ctx context.Context, p domain.Principal, id uuid.UUID, in Input) (Field, error) {
	var out Field
	err := s.DB.InTx(ctx, func(q store.Querier) error {
		r, err := load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		var pr domain.Problems
		if err := s.apply(ctx, q, &pr, &r, in, false); err != nil {
			return err
		}
		if err := pr.Err(); err != nil {
			return err
		}
		r.UpdatedAt = s.clock.Now()
		if err := customfielddb.Update(ctx, q, r); err != nil {
			return err
		}
		out = ToField(r)
		return domain.Record(ctx, q, domain.Change{At: r.UpdatedAt, OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "custom_field",
			EntityID: r.ID, Action: "updated"})
	})
	return out, err
}

// InlineValues is the most values a DELETE of a field removes in its own
// transaction (the default of WithInlineValues); a field held by more
// tickets is marked deleted and its values are purged by the durable
// cascade job, in batches, so the request never holds a long transaction.
const InlineValues = 1000

// WithInlineValues is s with another limit of the values a DELETE removes
// inline (tests take the durable path with a few tickets).
func (s *Service) WithInlineValues(n int) *Service {
	c := *s
	c.inline = n
	return &c
}

// Delete removes a definition and its values on tickets (Admin): inline
// when at most InlineValues tickets (WithInlineValues) hold one, else by the cascade job (the
// field is gone for every read at once, its key free again).
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.DB.InTx(ctx, func(q store.Querier) error {
		r, err := load(ctx, q, p, id, domain.RoleAdmin, true)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		inline := s.inline
		if inline <= 0 {
			inline = InlineValues
		}
		many, err := customfielddb.ValuesOver(ctx, q, r.ID, inline)
		if err != nil {
			return err
		}
		if many {
			if err := customfielddb.MarkDeleted(ctx, q, r.OrgID, r.ID, now); err != nil {
				return err
			}
			if err := domain.ScheduleCascade(ctx, q, domain.CascadeJob{OrgID: r.OrgID, EntityType: "custom_field", EntityID: r.ID}, now); err != nil {
				return err
			}
		} else if err := customfielddb.Delete(ctx, q, r.OrgID, r.ID); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: now, OrgID: r.OrgID, ActorID: &p.UserID, EntityType: "custom_field",
			EntityID: r.ID, Action: "deleted", Changes: []domain.FieldChange{{Field: "key", Old: r.Key}}})
	})
}
