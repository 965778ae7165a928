package scim

import (
	"encoding/json"
	"net/mail"
	"strings"
	"unicode/utf8"

	"tracker/domain"
	"tracker/store/scimdb"
)

// setUserAttr applies one attribute (lower-case name, possibly
// "name.givenname") of a POST/PUT body or a PATCH add/replace.
func setUserAttr(st *userState, attr, sub string, v any) error {
	switch attr {
	case "username":
		u, err := str(v, "userName")
		if err != nil || u == nil {
			return invalidValue("userName must be a string")
		}
		st.UserName = strings.TrimSpace(*u)
	case "displayname":
		d, err := str(v, "displayName")
		if err != nil {
			return err
		}
		st.DisplayName = strings.TrimSpace(deref(d))
	case "externalid":
		e, err := str(v, "externalId")
		if err != nil {
			return err
		}
		st.ExternalID = e
	case "active":
		b, err := boolValue(v, "active")
		if err != nil {
			return err
		}
		st.Active = b
	case "name":
		switch sub {
		case "givenname":
			g, err := str(v, "name.givenName")
			if err != nil {
				return err
			}
			st.GivenName = g
		case "familyname":
			f, err := str(v, "name.familyName")
			if err != nil {
				return err
			}
			st.FamilyName = f
		case "":
			if v == nil {
				st.GivenName, st.FamilyName = nil, nil
				return nil
			}
			m, ok := v.(map[string]any)
			if !ok {
				return invalidValue("name must be an object")
			}
			for k, x := range lowerKeys(m) {
				if k == "givenname" || k == "familyname" {
					if err := setUserAttr(st, "name", k, x); err != nil {
						return err
					}
				}
			}
		}
	case "emails":
		if sub != "" {
			return nil // emails.value without a filter: nothing to address
		}
		list, err := readEmails(v)
		if err != nil {
			return err
		}
		st.Emails = list
	}
	// Other attributes (phoneNumbers, title, extensions, groups, …) are not
	// kept; they are accepted and ignored.
	return nil
}

func readEmails(v any) ([]email, error) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		if one, isObj := v.(map[string]any); isObj {
			items = []any{one}
		} else {
			return nil, invalidValue("emails must be an array of objects")
		}
	}
	out := []email{}
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, invalidValue("emails must be an array of objects")
		}
		e, err := readEmail(lowerKeys(m))
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func readEmail(m map[string]any) (email, error) {
	var e email
	val, err := str(m["value"], "emails.value")
	if err != nil {
		return e, err
	}
	e.Value = deref(val)
	t, err := str(m["type"], "emails.type")
	if err != nil {
		return e, err
	}
	e.Type = deref(t)
	if p, ok := m["primary"]; ok && p != nil {
		if e.Primary, err = boolValue(p, "emails.primary"); err != nil {
			return e, err
		}
	}
	return e, nil
}

// userFromBody reads a POST or PUT body over a starting state.
func userFromBody(st userState, body []byte) (userState, error) {
	m, err := decodeObject(body)
	if err != nil {
		return st, err
	}
	for k, v := range m {
		name, ok := stripURN(k, UserSchema)
		if !ok {
			continue
		}
		if err := setUserAttr(&st, strings.ToLower(name), "", v); err != nil {
			return st, err
		}
	}
	return st, nil
}

// validate checks the state a write would leave.
func (st *userState) validate() error {
	if st.UserName == "" {
		return invalidValue("userName is required")
	}
	a, err := mail.ParseAddress(st.UserName)
	if err != nil || a.Address != st.UserName || utf8.RuneCountInString(st.UserName) > 320 {
		return invalidValue("userName must be an email address")
	}
	if st.DisplayName == "" {
		st.DisplayName = strings.TrimSpace(deref(st.GivenName) + " " + deref(st.FamilyName))
	}
	if st.DisplayName == "" {
		st.DisplayName = st.UserName[:strings.LastIndex(st.UserName, "@")]
	}
	for _, f := range []struct {
		name string
		v    string
	}{{"displayName", st.DisplayName}, {"externalId", deref(st.ExternalID)}, {"name.givenName", deref(st.GivenName)},
		{"name.familyName", deref(st.FamilyName)}} {
		if utf8.RuneCountInString(f.v) > 255 || !domain.ValidText(f.v) {
			return invalidValue(f.name + " must be at most 255 characters of valid text")
		}
	}
	if len(st.Emails) > 20 {
		return invalidValue("at most 20 emails")
	}
	for _, e := range st.Emails {
		if utf8.RuneCountInString(e.Value) > 320 || utf8.RuneCountInString(e.Type) > 64 || !domain.ValidText(e.Value+e.Type) {
			return invalidValue("emails: value at most 320 and type at most 64 characters")
		}
	}
	return nil
}

func (st userState) profile() scimdb.Profile {
	p := scimdb.Profile{ExternalID: st.ExternalID, GivenName: st.GivenName, FamilyName: st.FamilyName}
	if len(st.Emails) > 0 {
		p.Emails, _ = json.Marshal(st.Emails)
	}
	return p
}
