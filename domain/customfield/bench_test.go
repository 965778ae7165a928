package customfield_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/store/storetest"
)

// BenchmarkTicketCreate compares a plain create with one setting five
// custom values (the target: within 10% of the plain throughput).
// The org has the five fields in both cases, as a real org would.
func BenchmarkTicketCreate(b *testing.B) {
	ctx := context.Background()
	db := storetest.New(b)
	owner := testfactory.User(b, db, testfactory.UserOpts{})
	org := testfactory.Org(b, db, owner.ID, testfactory.OrgOpts{})
	proj := testfactory.Project(b, db, org.ID, testfactory.ProjectOpts{Key: "BEN"})
	p := domain.Principal{UserID: owner.ID}
	s := cf.New(db, domain.SystemClock{})
	o := func(n string) cf.OptionIn { return cf.OptionIn{Name: &n} }
	for _, in := range []cf.Input{
		{Name: domain.Some("Severity"), Type: domain.Some("select"), Options: domain.Some([]cf.OptionIn{o("Low"), o("High")})},
		{Name: domain.Some("Story points"), Type: domain.Some("number")},
		{Name: domain.Some("Customer"), Type: domain.Some("text")},
		{Name: domain.Some("Shipped on"), Type: domain.Some("date")},
		{Name: domain.Some("Flag"), Type: domain.Some("checkbox")},
	} {
		if _, err := s.Create(ctx, p, org.ID, in); err != nil {
			b.Fatal(err)
		}
	}
	tickets := ticket.New(db, domain.SystemClock{})
	values := cf.Values{"severity": json.RawMessage(`"High"`), "story_points": json.RawMessage(`5`),
		"customer": json.RawMessage(`"ACME"`), "shipped_on": json.RawMessage(`"2026-12-01"`), "flag": json.RawMessage(`true`)}
	for _, c := range []struct {
		name   string
		values cf.Values
	}{{"plain", nil}, {"five_values", values}} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				in := ticket.NewTicket{Content: ticket.Content{Title: "bench " + uuid.NewString()[:8]}, CustomFields: c.values}
				if _, err := tickets.Create(ctx, p, proj.ID, in); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
