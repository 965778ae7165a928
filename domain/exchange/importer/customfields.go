package importer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
	"tracker/domain/exchange/export"
	"tracker/store/customfielddb"
)

var fieldKey = regexp.MustCompile(`^[a-z0-9_]{1,64}$`)

// docField is a definition of the document as the checker knows it: a
// Field whose options have ids of their own, so a value decodes as it will
// against the org's definition.
func docField(f export.CustomField) customfield.Field {
	out := customfield.Field{Row: customfielddb.Row{Key: f.Key, Type: f.Type}}
	for _, o := range f.Options {
		out.Options = append(out.Options, customfield.Option{ID: domain.NewID(), Name: o.Name, Archived: o.Archived})
	}
	return out
}

// fieldList checks the document's custom field definitions.
func (c *checker) fieldList(fs []export.CustomField) {
	c.fields = map[string]customfield.Field{}
	for i, f := range fs {
		path := fmt.Sprintf("fields[%d]", i)
		if !fieldKey.MatchString(f.Key) {
			c.add(path+".key", "must be 1-64 lowercase letters, digits or _")
		} else if _, dup := c.fields[f.Key]; dup {
			c.add(path+".key", "duplicate field key")
		}
		if c.required(path+".name", f.Name) {
			c.length(path+".name", &f.Name, 1, customfield.MaxName)
		}
		c.oneOf(path+".type", f.Type, customfield.Types)
		isSelect := f.Type == customfield.Select || f.Type == customfield.MultiSelect
		if isSelect && (len(f.Options) == 0 || len(f.Options) > customfield.MaxOptions) {
			c.add(path+".options", fmt.Sprintf("a select field needs 1-%d options", customfield.MaxOptions))
		}
		if !isSelect && len(f.Options) > 0 {
			c.add(path+".options", "only select and multi_select fields have options")
		}
		seen := map[string]bool{}
		for j, o := range f.Options {
			op := fmt.Sprintf("%s.options[%d].name", path, j)
			if c.required(op, o.Name) {
				c.length(op, &o.Name, 1, customfield.MaxOptionName)
				if seen[strings.ToLower(o.Name)] {
					c.add(op, "duplicate option name")
				}
				seen[strings.ToLower(o.Name)] = true
			}
		}
		for j, k := range f.Projects {
			if !c.projectKeys[strings.ToUpper(k)] {
				c.add(fmt.Sprintf("%s.projects[%d]", path, j), "must be the key of a project in projects")
			}
		}
		c.fields[f.Key] = docField(f)
	}
}

// customValues checks a ticket's values against the document's fields.
func (c *checker) customValues(path string, vals map[string]json.RawMessage) {
	for _, k := range slices.Sorted(mapKeys(vals)) {
		vp := path + ".custom_fields." + k
		f, ok := c.fields[k]
		if !ok {
			c.add(vp, "must be the key of a field in fields")
			continue
		}
		raw := vals[k]
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue // no value
		}
		if f.Type == customfield.User {
			var email string
			if json.Unmarshal(raw, &email) != nil {
				c.add(vp, "must be an email")
				continue
			}
			c.email(vp, email)
			continue
		}
		var v customfielddb.Value
		if problem := f.DecodeStored(raw, &v); problem != "" {
			c.add(vp, problem)
		}
	}
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// importFields maps the document's fields to the org's by key, creating
// those the org lacks and adding the options an existing select field
// lacks (by name). A key the org holds with another type stops the import.
func (c *catalogRun) importFields(doc export.Document) error {
	if len(doc.Fields) == 0 {
		return nil
	}
	rows, err := customfielddb.All(c.ctx, c.q, c.row.OrgID)
	if err != nil {
		return err
	}
	byKey := make(map[string]customfielddb.Row, len(rows))
	for _, r := range rows {
		byKey[r.Key] = r
	}
	projects := map[string]uuid.UUID{}
	for _, k := range c.keys {
		if k.Kind == "project" {
			projects[k.Key] = k.ID
		}
	}
	for _, f := range doc.Fields {
		r, ok := byKey[f.Key]
		if ok && r.Type != f.Type {
			return permanent("field %s is a %s field in the organization, a %s field in the document", f.Key, r.Type, f.Type)
		}
		if !ok {
			r = customfielddb.Row{ID: domain.NewID(), OrgID: c.row.OrgID, Key: f.Key, Name: f.Name, Type: f.Type,
				Options: []customfielddb.Option{}, ProjectIDs: []uuid.UUID{}, Required: f.Required, CreatedAt: c.now, UpdatedAt: c.now}
			for _, k := range f.Projects {
				id, ok := projects[strings.ToUpper(k)]
				if !ok {
					return permanent("field %s names project %s, which is not part of the import", f.Key, k)
				}
				r.ProjectIDs = append(r.ProjectIDs, id)
			}
		}
		added := false
		for _, o := range f.Options {
			if !slices.ContainsFunc(r.Options, func(x customfielddb.Option) bool { return strings.EqualFold(x.Name, o.Name) }) {
				r.Options = append(r.Options, customfielddb.Option{ID: domain.NewID(), Name: o.Name, Color: o.Color, Archived: o.Archived})
				added = true
			}
		}
		switch {
		case !ok:
			if err := customfielddb.Insert(c.ctx, c.q, r); err != nil {
				return err
			}
			c.audits["custom_field"] = append(c.audits["custom_field"], r.ID)
			c.counts.FieldsCreated++
		case added:
			r.UpdatedAt = c.now
			if err := customfielddb.Update(c.ctx, c.q, r); err != nil {
				return err
			}
		}
	}
	return nil
}

// customValues makes the stored values of a created ticket: a user named
// by email, a select option by name (archived ones too).
func (b *batchRun) customValues(p *pending) ([]customfielddb.Value, error) {
	if len(p.t.CustomFields) == 0 {
		return nil, nil
	}
	if b.fields == nil {
		defs, err := customfield.Load(b.ctx, b.q, b.row.OrgID)
		if err != nil {
			return nil, err
		}
		b.fields = defs
	}
	var out []customfielddb.Value
	for k, raw := range p.t.CustomFields {
		f, ok := b.fields[k]
		if !ok {
			return nil, permanent("field %s is not part of the import", k)
		}
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			continue
		}
		if f.Type == customfield.User {
			var email string
			if err := json.Unmarshal(raw, &email); err != nil {
				return nil, permanent("value of field %s is not an email", k)
			}
			id, err := b.user(email)
			if err != nil {
				return nil, err
			}
			raw, _ = json.Marshal(id.String())
		}
		v := customfielddb.Value{TicketID: p.row.ID, FieldID: f.ID, OrgID: b.row.OrgID}
		if problem := f.DecodeStored(raw, &v); problem != "" {
			return nil, permanent("value of field %s: %s", k, problem)
		}
		out = append(out, v)
	}
	return out, nil
}
