package scim

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/store/scimdb"
)

// email is one of a User's emails.
type email struct {
	Value   string `json:"value"`
	Type    string `json:"type,omitempty"`
	Primary bool   `json:"primary,omitempty"`
}

// userState is what SCIM reads and writes of a User.
type userState struct {
	UserName    string
	DisplayName string
	GivenName   *string
	FamilyName  *string
	ExternalID  *string
	Emails      []email
	Active      bool
}

func stateOf(r scimdb.User) userState {
	st := userState{UserName: r.Email, DisplayName: r.DisplayName, GivenName: r.GivenName, FamilyName: r.FamilyName,
		ExternalID: r.ExternalID, Active: r.SuspendedAt == nil}
	if len(r.Emails) > 0 {
		_ = json.Unmarshal(r.Emails, &st.Emails)
	}
	return st
}

func (st userState) emails() []email {
	if len(st.Emails) > 0 {
		return st.Emails
	}
	return []email{{Value: st.UserName, Type: "work", Primary: true}}
}

func (s *Service) userLocation(id uuid.UUID) string { return s.base + "/Users/" + id.String() }

// userResource renders a User.
func (s *Service) userResource(r scimdb.User) map[string]any {
	st := stateOf(r)
	res := map[string]any{
		"schemas":     []string{UserSchema},
		"id":          r.ID.String(),
		"userName":    st.UserName,
		"displayName": st.DisplayName,
		"active":      st.Active,
		"emails":      st.emails(),
	}
	if st.ExternalID != nil {
		res["externalId"] = *st.ExternalID
	}
	name := map[string]any{}
	if st.GivenName != nil {
		name["givenName"] = *st.GivenName
	}
	if st.FamilyName != nil {
		name["familyName"] = *st.FamilyName
	}
	if len(name) > 0 {
		name["formatted"] = strings.TrimSpace(deref(st.GivenName) + " " + deref(st.FamilyName))
		res["name"] = name
	}
	modified := r.Created
	if r.UserUpdated.After(modified) {
		modified = r.UserUpdated
	}
	if r.Modified != nil && r.Modified.After(modified) {
		modified = *r.Modified
	}
	res["meta"] = map[string]any{"resourceType": "User", "created": r.Created.UTC().Format(time.RFC3339Nano),
		"lastModified": modified.UTC().Format(time.RFC3339Nano), "location": s.userLocation(r.ID), "version": version(res)}
	return res
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
