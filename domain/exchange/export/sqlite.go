package export

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"tracker/internal/civil"
	"tracker/store"
	"tracker/store/commentdb"
	"tracker/store/exchangedb/exportdb"
	"tracker/store/labeldb"
	"tracker/store/projectdb"
	"tracker/store/sprintdb"
	"tracker/store/ticketdb"
	"tracker/store/timeentrydb"
)

// WriteSQLite writes the scope's export as a single-file SQLite database
// at path (which must not exist): the spec's eleven tables plus teams, attachments and ticket relations, filled in one
// transaction with prepared statements. Timestamps are RFC 3339 text,
// workflow statuses and transitions JSON text, relations the document's
// keys.
func (s *Service) WriteSQLite(ctx context.Context, sc Scope, path string) error {
	f, err := exportdb.CreateSQLite(ctx, path)
	if err != nil {
		return err
	}
	if err := s.walk(ctx, sc, &sqliteSink{ctx: ctx, f: f}); err != nil {
		_ = f.Close()
		return err
	}
	return f.Commit()
}

type sqliteSink struct {
	ctx context.Context
	f   *exportdb.SQLiteFile
}

func (s *sqliteSink) insert(table string, values ...any) error {
	return s.f.Insert(s.ctx, table, values...)
}

func ts(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

func optTS(t *time.Time) *string {
	if t == nil {
		return nil
	}
	v := ts(*t)
	return &v
}

func (s *sqliteSink) header(h Header) error {
	for _, kv := range [][2]string{{"version", strconv.Itoa(h.Version)}, {"source", h.Source}, {"exported_at", ts(h.ExportedAt)}} {
		if err := s.insert("export_meta", kv[0], kv[1]); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) users(us []User) error {
	for _, u := range us {
		if err := s.insert("users", u.Email, u.DisplayName, u.Role); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) workflows(ws []Workflow) error {
	for _, w := range ws {
		st, _ := json.Marshal(w.Statuses)
		tr, _ := json.Marshal(w.Transitions)
		if err := s.insert("workflows", w.Name, string(st), string(tr), w.Enforcement); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) labels(ls []Label) error {
	for _, l := range ls {
		if err := s.insert("labels", sqliteValues(labeldb.ContentFields, &l.Content)...); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) teams(ts []Team) error {
	for _, t := range ts {
		if err := s.insert("teams", t.Name); err != nil {
			return err
		}
		for _, m := range t.Members {
			if err := s.insert("team_members", t.Name, m); err != nil {
				return err
			}
		}
	}
	return nil
}

// fields writes the custom field definitions, options and project keys as
// JSON text.
func (s *sqliteSink) fields(fs []CustomField) error {
	for _, f := range fs {
		opts, _ := json.Marshal(f.Options)
		projects, _ := json.Marshal(f.Projects)
		if err := s.insert("custom_fields", f.Key, f.Name, f.Type, string(opts), string(projects), f.Required); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) project(p Project) error {
	v := append([]any{p.Key, p.Name, p.Description, p.Workflow, p.TicketCounter}, sqliteValues(projectdb.ContentFields, &p.Content)...)
	err := s.insert("projects", append(v, p.BudgetCents, p.BudgetPeriod, ts(p.CreatedAt), ts(p.UpdatedAt), p.Team, p.PlacedInService)...)
	if err != nil {
		return err
	}
	for _, m := range p.Members {
		if err := s.insert("project_members", p.Key, m); err != nil {
			return err
		}
	}
	for i, sp := range p.Sprints {
		v := append([]any{p.Key, i}, sqliteValues(sprintdb.ContentFields, &sp.Content)...)
		if err := s.insert("sprints", append(v, sp.Status, ts(sp.CreatedAt), ts(sp.UpdatedAt))...); err != nil {
			return err
		}
	}
	return nil
}

func (s *sqliteSink) ticket(key string, t Ticket) error {
	vals := append([]any{key, t.Number}, sqliteValues(ticketdb.ContentFields, &t.Content)...)
	err := s.insert("tickets", append(vals, t.Assignee, t.Reporter, t.Sprint, ts(t.CreatedAt), ts(t.UpdatedAt))...)
	if err != nil {
		return err
	}
	for _, l := range t.Labels {
		if err := s.insert("ticket_labels", key, t.Number, l); err != nil {
			return err
		}
	}
	for i, c := range t.Comments {
		v := append([]any{key, t.Number, i, c.Author}, sqliteValues(commentdb.ContentFields, &c.Content)...)
		if err := s.insert("comments", append(v, c.Parent, ts(c.CreatedAt), ts(c.UpdatedAt))...); err != nil {
			return err
		}
	}
	for i, e := range t.TimeEntries {
		v := append([]any{key, t.Number, i, e.User}, sqliteValues(timeentrydb.ContentFields, &e.Content)...)
		if err := s.insert("time_entries", append(v, e.Status, e.ApprovedBy, optTS(e.ApprovedAt), ts(e.CreatedAt), ts(e.UpdatedAt),
			e.SourceApprovedBy)...); err != nil {
			return err
		}
	}
	for i, a := range t.Attachments {
		if err := s.insert("attachments", key, t.Number, i, a.Filename, a.ContentType, a.SizeBytes, a.StorageKey,
			a.UploadedBy, ts(a.CreatedAt)); err != nil {
			return err
		}
	}
	if t.Parent != nil {
		if err := s.insert("ticket_parents", key, t.Number, *t.Parent); err != nil {
			return err
		}
	}
	for i, l := range t.Links {
		if err := s.insert("ticket_links", key, t.Number, i, l.Type, l.Ticket); err != nil {
			return err
		}
	}
	for k, v := range t.CustomFields {
		if err := s.insert("ticket_custom_values", key, t.Number, k, string(v)); err != nil {
			return err
		}
	}
	return nil
}

// sqliteValues are a Content's values (ticketdb's, projectdb's,
// timeentrydb's) in its Fields order, as its columns store them.
func sqliteValues[T any](fields *store.Fields[T], c *T) []any {
	vals := fields.Values(c)
	for i, v := range vals {
		vals[i] = sqliteValue(v)
	}
	return vals
}

// sqliteValue is a Content value as its column stores it: times as RFC
// 3339 text, dates as YYYY-MM-DD and decimals as their text (12.50),
// everything else as the driver writes it.
func sqliteValue(v any) any {
	switch t := v.(type) {
	case time.Time:
		return ts(t)
	case *time.Time:
		return optTS(t)
	case civil.Date, civil.Decimal:
		return fmt.Sprint(t)
	case *civil.Date:
		return optText(t)
	case *civil.Decimal:
		return optText(t)
	}
	return v
}

func optText[T fmt.Stringer](v *T) any {
	if v == nil {
		return nil
	}
	return (*v).String()
}

func (s *sqliteSink) endProject() error { return nil }
func (s *sqliteSink) end() error        { return nil }
