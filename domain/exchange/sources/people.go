package sources

import (
	"net/mail"
	"sort"
	"strings"

	"tracker/domain/exchange/export"
)

// people resolves the names a file gives people to emails: an email as
// is, a display name or account id through mapping.users, else nobody
// (unresolved, named once in the problems).
type people struct {
	users      map[string]string
	members    map[string]bool
	names      map[string]string // email → display name
	unresolved map[string]bool
}

func newPeople(m Mapping, t Target) *people {
	users := map[string]string{}
	for k, v := range m.Users {
		users[strings.ToLower(strings.TrimSpace(k))] = strings.ToLower(strings.TrimSpace(v))
	}
	return &people{users: users, members: t.Members, names: map[string]string{}, unresolved: map[string]bool{}}
}

func isEmail(s string) bool {
	a, err := mail.ParseAddress(s)
	return err == nil && a.Address == s && strings.Contains(s, "@")
}

// resolve answers the email of a person named by name or id ("" for
// none); ok is false when someone was named but could not be resolved.
func (p *people) resolve(name, id string) (string, bool) {
	name, id = strings.TrimSpace(name), strings.TrimSpace(id)
	if name == "" && id == "" {
		return "", true
	}
	for _, k := range []string{id, name} {
		if k == "" {
			continue
		}
		if e, ok := p.users[strings.ToLower(k)]; ok && isEmail(e) {
			p.note(e, name)
			return e, true
		}
		if isEmail(k) {
			e := strings.ToLower(k)
			p.note(e, name)
			return e, true
		}
	}
	key := name
	if key == "" {
		key = id
	}
	p.unresolved[key] = true
	return "", false
}

func (p *people) note(email, name string) {
	if _, ok := p.names[email]; !ok || p.names[email] == email {
		if name == "" || isEmail(name) {
			name = strings.Split(email, "@")[0]
		}
		p.names[email] = name
	}
}

// documentUsers lists everyone the document names: members as they are;
// anyone else with the role Member, which the import turns into a pending
// invite (never a membership) and a placeholder account.
func (p *people) documentUsers(importer string) ([]export.User, int, int) {
	emails := make([]string, 0, len(p.names))
	for e := range p.names {
		emails = append(emails, e)
	}
	sort.Strings(emails)
	var out []export.User
	matched, invited := 0, 0
	for _, e := range emails {
		u := export.User{Email: e, DisplayName: p.names[e]}
		if p.members[e] || e == strings.ToLower(importer) {
			matched++
		} else {
			invited++
			u.Role = strPtr("Member")
		}
		out = append(out, u)
	}
	return out, matched, invited
}
