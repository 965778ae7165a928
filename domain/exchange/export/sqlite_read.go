package export

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
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

// ReadSQLite reads a sqlite export back into the document it holds (tests
// compare it with the JSON export; tools may convert one into the other).
func ReadSQLite(ctx context.Context, path string) (Document, error) {
	r := &sqliteReader{doc: Document{Users: []User{}, Workflows: []Workflow{}, Labels: []Label{}, Teams: []Team{}, Projects: []Project{}}}
	steps := []struct {
		table string
		fn    func([]any) error
	}{
		{"export_meta", r.meta}, {"users", r.user}, {"workflows", r.workflow}, {"labels", r.label},
		{"projects", r.project}, {"project_members", r.member}, {"sprints", r.sprint}, {"tickets", r.ticket},
		{"ticket_labels", r.ticketLabel}, {"comments", r.comment}, {"time_entries", r.timeEntry},
		{"teams", r.team}, {"team_members", r.teamMember}, {"attachments", r.attachment},
		{"ticket_parents", r.parent}, {"ticket_links", r.link},
		{"custom_fields", r.customField}, {"ticket_custom_values", r.customValue},
	}
	tables, err := exportdb.TableNames(ctx, path)
	if err != nil {
		return Document{}, err
	}
	for _, s := range steps {
		if !slices.Contains(tables, s.table) && (s.table == "ticket_parents" || s.table == "ticket_links" ||
			s.table == "custom_fields" || s.table == "ticket_custom_values") {
			continue // written before relations (or custom fields) were exported
		}
		if err := exportdb.ReadTable(ctx, path, s.table, s.fn); err != nil {
			return Document{}, fmt.Errorf("read %s: %w", s.table, err)
		}
		if r.err != nil {
			return Document{}, fmt.Errorf("read %s: %w", s.table, r.err)
		}
	}
	return r.doc, nil
}

type sqliteReader struct {
	doc      Document
	projects map[string]int    // key → index
	tickets  map[string][2]int // key/number → project, ticket index
	err      error
}

func (r *sqliteReader) fail(err error) {
	if r.err == nil && err != nil {
		r.err = err
	}
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

func optStr(v any) *string {
	if v == nil {
		return nil
	}
	s := str(v)
	return &s
}

func num(v any) int {
	n, _ := v.(int64)
	return int(n)
}

func optNum64(v any) *int64 {
	if v == nil {
		return nil
	}
	n, _ := v.(int64)
	return &n
}

func (r *sqliteReader) time(v any) time.Time {
	t, err := time.Parse(time.RFC3339Nano, str(v))
	r.fail(err)
	return t
}

func (r *sqliteReader) meta(v []any) error {
	switch str(v[0]) {
	case "version":
		n, err := strconv.Atoi(str(v[1]))
		r.fail(err)
		r.doc.Version = &n
	case "source":
		r.doc.Source = str(v[1])
	case "exported_at":
		r.doc.ExportedAt = r.time(v[1])
	}
	return nil
}

func (r *sqliteReader) user(v []any) error {
	r.doc.Users = append(r.doc.Users, User{Email: str(v[0]), DisplayName: str(v[1]), Role: optStr(v[2])})
	return nil
}

func (r *sqliteReader) workflow(v []any) error {
	w := Workflow{Name: str(v[0]), Enforcement: str(v[3])}
	r.fail(json.Unmarshal([]byte(str(v[1])), &w.Statuses))
	r.fail(json.Unmarshal([]byte(str(v[2])), &w.Transitions))
	r.doc.Workflows = append(r.doc.Workflows, w)
	return nil
}

func (r *sqliteReader) label(v []any) error {
	c, _ := readContent(r, labeldb.ContentFields, v, 0)
	r.doc.Labels = append(r.doc.Labels, Label{c})
	return nil
}

func (r *sqliteReader) project(v []any) error {
	if r.projects == nil {
		r.projects, r.tickets = map[string]int{}, map[string][2]int{}
	}
	p := Project{Key: str(v[0]), Name: str(v[1]), Description: optStr(v[2]), Workflow: optStr(v[3]), TicketCounter: num(v[4])}
	p.Content, v = readContent(r, projectdb.ContentFields, v, 5)
	p.BudgetCents, p.BudgetPeriod, p.CreatedAt, p.UpdatedAt = optNum64(v[0]), optStr(v[1]), r.time(v[2]), r.time(v[3])
	p.Team, p.PlacedInService = optStr(v[4]), optStr(v[5])
	p.Members, p.Sprints, p.Tickets = []string{}, []Sprint{}, []Ticket{}
	r.projects[p.Key] = len(r.doc.Projects)
	r.doc.Projects = append(r.doc.Projects, p)
	return nil
}

func (r *sqliteReader) proj(key any) (*Project, error) {
	i, ok := r.projects[str(key)]
	if !ok {
		return nil, fmt.Errorf("unknown project %q", str(key))
	}
	return &r.doc.Projects[i], nil
}

func (r *sqliteReader) member(v []any) error {
	p, err := r.proj(v[0])
	if err != nil {
		return err
	}
	p.Members = append(p.Members, str(v[1]))
	return nil
}

func (r *sqliteReader) sprint(v []any) error {
	p, err := r.proj(v[0])
	if err != nil {
		return err
	}
	var sp Sprint
	sp.Content, v = readContent(r, sprintdb.ContentFields, v, 2)
	sp.StartDate, sp.EndDate = sp.Content.StartDate.String(), sp.Content.EndDate.String()
	sp.Status, sp.CreatedAt, sp.UpdatedAt = str(v[0]), r.time(v[1]), r.time(v[2])
	p.Sprints = append(p.Sprints, sp)
	return nil
}

func (r *sqliteReader) ticket(v []any) error {
	p, err := r.proj(v[0])
	if err != nil {
		return err
	}
	content, refs := readContent(r, ticketdb.ContentFields, v, 2)
	t := Ticket{Number: num(v[1]), Content: content}
	t.Assignee, t.Reporter, t.Sprint = optStr(refs[0]), str(refs[1]), optStr(refs[2])
	t.CreatedAt, t.UpdatedAt = r.time(refs[3]), r.time(refs[4])
	fillArrays(&t)
	r.tickets[str(v[0])+"#"+strconv.Itoa(t.Number)] = [2]int{r.projects[str(v[0])], len(p.Tickets)}
	p.Tickets = append(p.Tickets, t)
	return nil
}

func (r *sqliteReader) tick(key, number any) (*Ticket, error) {
	ix, ok := r.tickets[str(key)+"#"+strconv.Itoa(num(number))]
	if !ok {
		return nil, fmt.Errorf("unknown ticket %s-%d", str(key), num(number))
	}
	return &r.doc.Projects[ix[0]].Tickets[ix[1]], nil
}

func (r *sqliteReader) ticketLabel(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	t.Labels = append(t.Labels, str(v[2]))
	return nil
}

func (r *sqliteReader) comment(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	c := Comment{Author: str(v[3])}
	c.Content, v = readContent(r, commentdb.ContentFields, v, 4)
	c.CreatedAt, c.UpdatedAt = r.time(v[1]), r.time(v[2])
	if v[0] != nil {
		n := num(v[0])
		c.Parent = &n
	}
	t.Comments = append(t.Comments, c)
	return nil
}

func (r *sqliteReader) timeEntry(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	e := TimeEntry{User: str(v[3])}
	e.Content, v = readContent(r, timeentrydb.ContentFields, v, 4)
	e.Date, e.Status, e.ApprovedBy = e.Content.Date.String(), str(v[0]), optStr(v[1])
	e.CreatedAt, e.UpdatedAt, e.SourceApprovedBy = r.time(v[3]), r.time(v[4]), optStr(v[5])
	if v[2] != nil {
		at := r.time(v[2])
		e.ApprovedAt = &at
	}
	t.TimeEntries = append(t.TimeEntries, e)
	return nil
}

func (r *sqliteReader) team(v []any) error {
	r.doc.Teams = append(r.doc.Teams, Team{Name: str(v[0]), Members: []string{}})
	return nil
}

func (r *sqliteReader) teamMember(v []any) error {
	for i := range r.doc.Teams {
		if r.doc.Teams[i].Name == str(v[0]) {
			r.doc.Teams[i].Members = append(r.doc.Teams[i].Members, str(v[1]))
			return nil
		}
	}
	return fmt.Errorf("unknown team %q", str(v[0]))
}

func (r *sqliteReader) attachment(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	n, _ := v[5].(int64)
	t.Attachments = append(t.Attachments, Attachment{Filename: str(v[3]), ContentType: str(v[4]), SizeBytes: n,
		StorageKey: str(v[6]), UploadedBy: str(v[7]), CreatedAt: r.time(v[8])})
	return nil
}

func (r *sqliteReader) parent(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	t.Parent = optStr(v[2])
	return nil
}

func (r *sqliteReader) link(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	t.Links = append(t.Links, Link{Type: str(v[3]), Ticket: str(v[4])})
	return nil
}

// readContent reads a Content (ticketdb's, projectdb's, timeentrydb's)
// from its columns, v[at:] in its Fields order, and returns it with the
// columns after them: TEXT into strings, INTEGER into integers and
// booleans, RFC 3339 text into times, YYYY-MM-DD into dates, NULL into a
// nil pointer (or the zero value).
func readContent[T any](r *sqliteReader, fields *store.Fields[T], v []any, at int) (T, []any) {
	var c T
	for i, target := range fields.Targets(&c) {
		r.fail(setColumn(reflect.ValueOf(target).Elem(), v[at+i]))
	}
	return c, v[at+len(fields.Names()):]
}

func setColumn(f reflect.Value, v any) error {
	if v == nil {
		return nil
	}
	if f.Kind() == reflect.Pointer {
		f.Set(reflect.New(f.Type().Elem()))
		f = f.Elem()
	}
	switch f.Type() {
	case reflect.TypeFor[time.Time]():
		t, err := time.Parse(time.RFC3339Nano, str(v))
		f.Set(reflect.ValueOf(t))
		return err
	case reflect.TypeFor[civil.Date]():
		d, err := civil.ParseDate(str(v))
		f.Set(reflect.ValueOf(d))
		return err
	case reflect.TypeFor[civil.Decimal]():
		d, err := civil.ParseDecimal(str(v))
		f.Set(reflect.ValueOf(d))
		return err
	}
	n, isNum := v.(int64)
	switch f.Kind() {
	case reflect.String:
		f.SetString(str(v))
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if isNum {
			f.SetInt(n)
			return nil
		}
	case reflect.Bool:
		if isNum {
			f.SetBool(n != 0)
			return nil
		}
	}
	return fmt.Errorf("tickets: cannot read %T into %s", v, f.Type())
}

func (r *sqliteReader) customField(v []any) error {
	f := CustomField{Key: str(v[0]), Name: str(v[1]), Type: str(v[2]), Required: num(v[5]) != 0}
	r.fail(json.Unmarshal([]byte(str(v[3])), &f.Options))
	r.fail(json.Unmarshal([]byte(str(v[4])), &f.Projects))
	r.doc.Fields = append(r.doc.Fields, f)
	return nil
}

func (r *sqliteReader) customValue(v []any) error {
	t, err := r.tick(v[0], v[1])
	if err != nil {
		return err
	}
	if t.CustomFields == nil {
		t.CustomFields = map[string]json.RawMessage{}
	}
	t.CustomFields[str(v[2])] = json.RawMessage(str(v[3]))
	return nil
}
