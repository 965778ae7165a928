package export

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/google/uuid"

	"tracker/domain/customfield"
	"tracker/store"
	"tracker/store/customfielddb"
	"tracker/store/exchangedb/exportdb"
)

// customFields feeds the org's custom field definitions (a project's
// export: those enabled for the project) and answers them by id, for the
// walk to name each ticket's values by key.
func (s *Service) customFields(ctx context.Context, q store.Querier, sc Scope, projects []exportdb.Project, out sink) (map[uuid.UUID]customfield.Field, error) {
	defs, err := customfield.Load(ctx, q, sc.Org.ID)
	if err != nil {
		return nil, err
	}
	keys := make(map[uuid.UUID]string, len(projects))
	for _, p := range projects {
		keys[p.ID] = p.Key
	}
	byID := make(map[uuid.UUID]customfield.Field, len(defs))
	var list []CustomField
	for _, f := range defs {
		if sc.ProjectID != uuid.Nil && !f.EnabledFor(sc.ProjectID) {
			continue
		}
		byID[f.ID] = f
		cf := CustomField{Key: f.Key, Name: f.Name, Type: f.Type, Options: []CustomFieldOption{}, Projects: []string{}, Required: f.Required}
		for _, o := range f.Options {
			cf.Options = append(cf.Options, CustomFieldOption{Name: o.Name, Color: o.Color, Archived: o.Archived})
		}
		for _, id := range f.ProjectIDs {
			if k, ok := keys[id]; ok { // a deleted project, or one outside the scope, is left out
				cf.Projects = append(cf.Projects, k)
			}
		}
		slices.Sort(cf.Projects)
		list = append(list, cf)
	}
	slices.SortFunc(list, func(a, b CustomField) int {
		if a.Key < b.Key {
			return -1
		}
		if a.Key > b.Key {
			return 1
		}
		return 0
	})
	return byID, out.fields(list)
}

// customValues reads the batch's custom values by ticket, by key: a user
// by email, a select by its option's name.
func (w *projectWalker) customValues(ids []uuid.UUID) (map[uuid.UUID]map[string]json.RawMessage, error) {
	if len(w.fields) == 0 {
		return nil, nil
	}
	rows, err := exportdb.CustomValues(w.ctx, w.q, ids)
	if err != nil {
		return nil, err
	}
	out := map[uuid.UUID]map[string]json.RawMessage{}
	for _, v := range rows {
		f, ok := w.fields[v.FieldID]
		if !ok {
			continue
		}
		raw, err := w.customValue(f, v)
		if err != nil || raw == nil {
			if err != nil {
				return nil, err
			}
			continue
		}
		m := out[v.TicketID]
		if m == nil {
			m = map[string]json.RawMessage{}
			out[v.TicketID] = m
		}
		m[f.Key] = raw
	}
	return out, nil
}

func (w *projectWalker) customValue(f customfield.Field, v customfielddb.Value) (json.RawMessage, error) {
	var r any
	if f.Type == customfield.User {
		if v.User == nil {
			return nil, nil
		}
		e, err := w.email(*v.User)
		if err != nil {
			return nil, err
		}
		r = e
	} else if r = f.Render(v); r == nil {
		return nil, nil
	}
	return json.Marshal(r)
}
