package testfactory

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/accountdb"
	"tracker/store/orgdb"
)

var seq atomic.Int64

// UserOpts are a user's options; Name defaults to "User", Email to a
// unique one. The user has no password (tests that log in register
// through apitest.Env).
type UserOpts struct {
	Name        string
	Email       string
	Placeholder bool
}

// User inserts an active user (with Placeholder, an account nobody has
// claimed yet, as an import or SCIM makes it).
func User(t testing.TB, db *store.DB, o UserOpts) accountdb.User {
	t.Helper()
	id := domain.NewID()
	if o.Name == "" {
		o.Name = "User"
	}
	if o.Email == "" {
		o.Email = fmt.Sprintf("u%d-%s@example.test", seq.Add(1), id.String()[:8])
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	u := accountdb.User{ID: id, Email: strings.ToLower(o.Email), DisplayName: o.Name, Active: true, Placeholder: o.Placeholder, CreatedAt: now, UpdatedAt: now}
	if err := accountdb.InsertUser(context.Background(), db.Q(), u); err != nil {
		t.Fatalf("testfactory.User: %v", err)
	}
	return u
}

// OrgOpts are an org's options; Name and Slug default to unique ones.
type OrgOpts struct {
	Name string
	Slug string
}

// Org inserts an org with ownerID as its Owner (uuid.Nil: an org nobody
// belongs to, enough for a job that only needs its id). Unlike an org made through
// the API it has no Default workflow: projects show the built-in default
// statuses.
func Org(t testing.TB, db *store.DB, ownerID uuid.UUID, o OrgOpts) orgdb.Org {
	t.Helper()
	id := domain.NewID()
	if o.Name == "" {
		o.Name = "Org " + id.String()[:8]
	}
	if o.Slug == "" {
		o.Slug = "org-" + id.String()
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := orgdb.Org{ID: id, Name: o.Name, Slug: o.Slug, CreatedAt: now, UpdatedAt: now}
	if err := orgdb.InsertOrg(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Org: %v", err)
	}
	if ownerID != uuid.Nil {
		Member(t, db, id, ownerID, MemberOpts{Role: "owner"})
	}
	return r
}

// MemberOpts are a membership's options; Role (lower case) defaults to
// "member".
type MemberOpts struct {
	Role string
}

// Member makes userID a member of orgID.
func Member(t testing.TB, db *store.DB, orgID, userID uuid.UUID, o MemberOpts) orgdb.Membership {
	t.Helper()
	if o.Role == "" {
		o.Role = "member"
	}
	m := orgdb.Membership{OrgID: orgID, UserID: userID, Role: o.Role, JoinedAt: time.Now().UTC().Truncate(time.Microsecond)}
	if err := orgdb.InsertMembership(context.Background(), db.Q(), m); err != nil {
		t.Fatalf("testfactory.Member: %v", err)
	}
	return m
}
