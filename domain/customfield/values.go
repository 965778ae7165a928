package customfield

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/customfielddb"
)

// Values is a ticket's custom_fields as a request sends them: by field key,
// a JSON value or null (clear it).
type Values map[string]json.RawMessage

// Defs are the definitions of one org, by key.
type Defs map[string]Field

// Load reads the definitions of orgID.
func Load(ctx context.Context, q store.Querier, orgID uuid.UUID) (Defs, error) {
	rows, err := customfielddb.All(ctx, q, orgID)
	if err != nil {
		return nil, err
	}
	return DefsOf(rows), nil
}

// DefsOf are the definitions of rows, one org's live ones as read.
func DefsOf(rows []customfielddb.Row) Defs {
	d := make(Defs, len(rows))
	for _, r := range rows {
		d[r.Key] = ToField(r)
	}
	return d
}

// Write is what Check makes of a request's values: the values to put and
// the fields to clear, with the activity trail's changes.
type Write struct {
	Put   []customfielddb.Value
	Clear []uuid.UUID
}

// Check validates in for a ticket of projectID in orgID against defs;
// create also requires every required field enabled for the project. Each
// problem names custom_fields.<key>.
func Check(ctx context.Context, q store.Querier, defs Defs, orgID, projectID, ticketID uuid.UUID, in Values, create bool) (Write, error) {
	var pr domain.Problems
	var w Write
	var users []uuid.UUID
	userKeys := map[uuid.UUID][]string{}
	for key, raw := range in {
		name := "custom_fields." + key
		f, ok := defs[key]
		if !ok {
			pr.Add(name, "no such field")
			continue
		}
		if !f.EnabledFor(projectID) {
			pr.Add(name, "the field is not enabled for the ticket's project")
			continue
		}
		// encoding/json leaves a null member of the map as a nil RawMessage.
		if t := bytes.TrimSpace(raw); len(t) == 0 || bytes.Equal(t, []byte("null")) {
			if create && f.Required {
				pr.Add(name, "required")
			}
			w.Clear = append(w.Clear, f.ID)
			continue
		}
		v := customfielddb.Value{TicketID: ticketID, FieldID: f.ID, OrgID: orgID}
		if problem := f.decode(raw, &v, false); problem != "" {
			pr.Add(name, problem)
			continue
		}
		if v.User != nil {
			users = append(users, *v.User)
			userKeys[*v.User] = append(userKeys[*v.User], name)
		}
		w.Put = append(w.Put, v)
	}
	if create {
		for key, f := range defs {
			if _, sent := in[key]; !sent && f.Required && f.EnabledFor(projectID) {
				pr.Add("custom_fields."+key, "required")
			}
		}
	}
	if len(users) > 0 {
		members, err := customfielddb.Members(ctx, q, orgID, users)
		if err != nil {
			return w, err
		}
		for _, u := range users {
			if !members[u] {
				for _, name := range userKeys[u] {
					pr.Add(name, "must be a member of the organization")
				}
			}
		}
	}
	return w, pr.Err()
}

// DecodeStored reads raw as a value of f that was stored before (an
// import's): as decode, but an archived option is a value too.
func (f Field) DecodeStored(raw json.RawMessage, v *customfielddb.Value) string {
	return f.decode(raw, v, true)
}

// decode reads raw as a value of f into v (an archived option only when
// archived is true); it answers the problem, if any.
func (f Field) decode(raw json.RawMessage, v *customfielddb.Value, archived bool) string {
	switch f.Type {
	case Text:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "must be a string"
		}
		if s == "" || utf8.RuneCountInString(s) > MaxText || !domain.ValidText(s) {
			return "must be 1-10000 characters"
		}
		v.Text = &s
	case URL:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "must be a string"
		}
		u, err := url.Parse(s)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || len(s) > 2048 || !domain.ValidText(s) {
			return "must be an http or https URL"
		}
		v.Text = &s
	case Number:
		var n json.Number
		if t := bytes.TrimSpace(raw); len(t) == 0 || (t[0] != '-' && (t[0] < '0' || t[0] > '9')) {
			return "must be a number" // json.Number also takes a quoted one
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if d.Decode(&n) != nil {
			return "must be a number"
		}
		if _, err := strconv.ParseFloat(n.String(), 64); err != nil {
			return "must be a number"
		}
		s := n.String()
		v.Num = &s
	case Date:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "must be a date (YYYY-MM-DD)"
		}
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return "must be a date (YYYY-MM-DD)"
		}
		v.Date = &s
	case Checkbox:
		var b bool
		if json.Unmarshal(raw, &b) != nil {
			return "must be true or false"
		}
		v.Bool = &b
	case User:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "must be a user id"
		}
		id, err := uuid.Parse(s)
		if err != nil {
			return "must be a user id"
		}
		v.User = &id
	case Select:
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return "must be one of the field's options"
		}
		o, ok := f.option(s, archived)
		if !ok {
			return "must be one of the field's options: " + s + " is not"
		}
		v.OptionIDs = []uuid.UUID{o}
	case MultiSelect:
		var ss []string
		if json.Unmarshal(raw, &ss) != nil {
			return "must be an array of the field's options"
		}
		v.OptionIDs = []uuid.UUID{}
		seen := map[uuid.UUID]bool{}
		for _, s := range ss {
			o, ok := f.option(s, archived)
			if !ok {
				return "must be the field's options: " + s + " is not one"
			}
			if !seen[o] {
				seen[o] = true
				v.OptionIDs = append(v.OptionIDs, o)
			}
		}
	}
	return ""
}

// option finds a live option (or, with archived, any option) by name
// (ignoring case) or id.
func (f Field) option(s string, archived bool) (uuid.UUID, bool) {
	for _, o := range f.Options {
		if (archived || !o.Archived) && (strings.EqualFold(o.Name, s) || o.ID.String() == strings.ToLower(s)) {
			return o.ID, true
		}
	}
	return uuid.Nil, false
}

// Render is a value as the API answers it: a select's option by its
// current name, a multi_select's as a list of names, a number as a JSON
// number, a date as YYYY-MM-DD, a user as their id.
func (f Field) Render(v customfielddb.Value) any {
	switch f.Type {
	case Text, URL:
		if v.Text != nil {
			return *v.Text
		}
	case Number:
		if v.Num != nil {
			return json.Number(*v.Num)
		}
	case Date:
		if v.Date != nil {
			return *v.Date
		}
	case Checkbox:
		if v.Bool != nil {
			return *v.Bool
		}
	case User:
		if v.User != nil {
			return v.User.String()
		}
	case Select, MultiSelect:
		names := []string{}
		for _, id := range v.OptionIDs {
			for _, o := range f.Options {
				if o.ID == id {
					names = append(names, o.Name)
				}
			}
		}
		if f.Type == MultiSelect {
			return names
		}
		if len(names) == 1 {
			return names[0]
		}
	}
	return nil
}

// Rendered is the custom_fields of many tickets: by ticket, by key.
type Rendered map[uuid.UUID]map[string]any

// Read renders the values of ticketIDs of orgID; a ticket without values
// has none in the map (the API answers {}).
func Read(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs []uuid.UUID) (Rendered, error) {
	vals, err := customfielddb.OfLive(ctx, q, orgID, ticketIDs)
	if err != nil {
		return Rendered{}, err
	}
	return render(vals), nil
}

// render is values (with their fields) by ticket, by key.
func render(vals []customfielddb.FieldValue) Rendered {
	out := Rendered{}
	for _, v := range vals {
		f := Field{Row: customfielddb.Row{ID: v.FieldID, Key: v.Key, Type: v.Type, Options: v.Options}}
		r := f.Render(v.Value)
		if r == nil {
			continue
		}
		m := out[v.TicketID]
		if m == nil {
			m = map[string]any{}
			out[v.TicketID] = m
		}
		m[f.Key] = r
	}
	return out
}

// Apply writes w for its ticket and returns the activity trail's changes
// (field custom_fields.<key>, old and new as rendered) and the ticket's
// values after the write (nil when w writes nothing): the values it had,
// which the write's statement reads, with w's laid over them, so the
// caller answers them without reading them again.
func Apply(ctx context.Context, q store.Querier, defs Defs, orgID, ticketID uuid.UUID, w Write) ([]domain.FieldChange, Object, error) {
	if len(w.Put) == 0 && len(w.Clear) == 0 {
		return nil, nil, nil
	}
	was, err := customfielddb.Replace(ctx, q, orgID, ticketID, w.Clear, w.Put)
	if err != nil {
		return nil, nil, err
	}
	changes, after := Diff(defs, ticketID, was, w)
	return changes, after, nil
}

// Diff is what write w does to the ticket whose values (with their live
// fields) were was: the activity trail's changes and the values after it.
func Diff(defs Defs, ticketID uuid.UUID, was []customfielddb.FieldValue, w Write) ([]domain.FieldChange, Object) {
	before := render(was)
	byID := make(map[uuid.UUID]Field, len(defs))
	for _, f := range defs {
		byID[f.ID] = f
	}
	old := before[ticketID]
	after := make(Object, len(old)+len(w.Put))
	for k, v := range old {
		after[k] = v
	}
	var changes []domain.FieldChange
	for _, id := range w.Clear {
		f := byID[id]
		delete(after, f.Key)
		if o, ok := old[f.Key]; ok {
			changes = append(changes, domain.FieldChange{Field: "custom_fields." + f.Key, Old: o, New: nil})
		}
	}
	for _, v := range w.Put {
		f := byID[v.FieldID]
		n := f.Render(v)
		if n == nil {
			delete(after, f.Key)
		} else {
			after[f.Key] = n
		}
		o := old[f.Key]
		ob, _ := json.Marshal(o)
		nb, _ := json.Marshal(n)
		if !bytes.Equal(ob, nb) {
			changes = append(changes, domain.FieldChange{Field: "custom_fields." + f.Key, Old: o, New: n})
		}
	}
	return changes, after
}
