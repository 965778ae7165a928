package domain

import (
	"fmt"
	"strings"
)

// Role is a member's role in one organization; a higher role has every right
// of a lower one.
type Role int

const (
	RoleNone Role = iota
	RoleViewer
	RoleReporter
	RoleMember
	RoleAdmin
	RoleOwner
)

var roleNames = map[Role]string{
	RoleViewer: "Viewer", RoleReporter: "Reporter", RoleMember: "Member",
	RoleAdmin: "Admin", RoleOwner: "Owner",
}

// String is the capitalized name used in responses and messages.
func (r Role) String() string {
	if n, ok := roleNames[r]; ok {
		return n
	}
	return "None"
}

// DB is the lower-case name stored in memberships.role.
func (r Role) DB() string { return strings.ToLower(r.String()) }

// ParseRole reads a role in any case; unknown names are RoleNone.
func ParseRole(s string) Role {
	for r, n := range roleNames {
		if strings.EqualFold(n, s) {
			return r
		}
	}
	return RoleNone
}

// MarshalText renders the capitalized name.
func (r Role) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a role name in any case.
func (r *Role) UnmarshalText(b []byte) error {
	*r = ParseRole(string(b))
	if *r == RoleNone {
		return fmt.Errorf("unknown role %q", b)
	}
	return nil
}
