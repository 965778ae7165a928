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
