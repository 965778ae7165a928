package tickets_test

import (
	"context"
	"encoding/json"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/customfield"
)

type cfTicket struct {
	ID           uuid.UUID      `json:"id"`
	CustomFields map[string]any `json:"custom_fields"`
}

func TestCustomFieldValues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	defs := customfield.New(f.env.DB, domain.SystemClock{})
	owner := domain.Principal{UserID: f.owner.ID}
	def := func(in customfield.Input) customfield.Field {
		fd, err := defs.Create(ctx, owner, f.owner.OrgID, in)
		if err != nil {
			t.Fatal(err)
		}
		return fd
	}
	name := func(s string) *string { return &s }
	sev := def(customfield.Input{Name: domain.Some("Severity"), Type: domain.Some("select"),
		Options: domain.Some([]customfield.OptionIn{{Name: name("Low")}, {Name: name("High")}})})
	def(customfield.Input{Name: domain.Some("Story points"), Type: domain.Some("number"), Required: domain.Some(true)})
	def(customfield.Input{Name: domain.Some("Owner"), Type: domain.Some("user")})
	other := f.newProject(t, "OTH")
	def(customfield.Input{Name: domain.Some("Customer"), Type: domain.Some("text"), ProjectIDs: domain.Some([]uuid.UUID{other})})

	tickets := path("/projects/%s/tickets", f.project)
	// Validation names custom_fields.<key>.
	for body, want := range map[string]string{
		`{"title":"x"}`: "custom_fields.story_points",
		`{"title":"x","custom_fields":{"story_points":1,"nope":1}}`:                                 "custom_fields.nope",
		`{"title":"x","custom_fields":{"story_points":"1"}}`:                                        "custom_fields.story_points",
		`{"title":"x","custom_fields":{"story_points":1,"severity":"Medium"}}`:                      "custom_fields.severity",
		`{"title":"x","custom_fields":{"story_points":1,"customer":"ACME"}}`:                        "custom_fields.customer",
		`{"title":"x","custom_fields":{"story_points":1,"owner":"` + f.outsider.ID.String() + `"}}`: "custom_fields.owner",
	} {
		res := f.env.Do("POST", tickets, f.member.Token, json.RawMessage(body)).Expect(t, 422)
		if !strings.Contains(string(res.Body), want) {
			t.Errorf("%s: %s, want %s", body, res.Body, want)
		}
	}

	// Create carries the values; GET and the list answer them; a ticket
	// without values answers {}.
	var created cfTicket
	f.env.Do("POST", tickets, f.reporter.Token, map[string]any{"title": "with values",
		"custom_fields": map[string]any{"severity": "high", "story_points": 5, "owner": f.member.ID}}).Expect(t, 201).Decode(t, &created)
	if created.CustomFields["severity"] != "High" || created.CustomFields["story_points"] != float64(5) ||
		created.CustomFields["owner"] != f.member.ID.String() {
		t.Fatalf("%+v", created)
	}
	if n := f.outbox(t, "ticket.created", created.ID); n != 1 {
		t.Fatalf("ticket.created events %d", n)
	}
	var events []map[string]any
	for _, e := range f.env.Outbox(t, f.owner.OrgID, "ticket.created") {
		if d, _ := e["data"].(map[string]any); d["id"] == created.ID.String() {
			events = append(events, d)
		}
	}
	if len(events) != 1 || events[0]["custom_fields"].(map[string]any)["severity"] != "High" {
		t.Fatalf("event %+v", events)
	}
	// The trail's created entry lists the values the ticket was created with.
	var trail struct {
		Items []struct {
			Type    string
			Payload struct{ Changes []domain.FieldChange }
		}
	}
	f.env.Do("GET", path("/tickets/%s/activity", created.ID), f.member.Token, nil).Expect(t, 200).Decode(t, &trail)
	if len(trail.Items) != 1 || trail.Items[0].Type != "created" || !slices.Equal(trail.Items[0].Payload.Changes, []domain.FieldChange{
		{Field: "custom_fields.owner", New: f.member.ID.String()}, {Field: "custom_fields.severity", New: "High"},
		{Field: "custom_fields.story_points", New: float64(5)}}) {
		t.Fatalf("activity %+v", trail)
	}
	var got cfTicket
	f.env.Do("GET", path("/tickets/%s", created.ID), f.viewer.Token, nil).Expect(t, 200).Decode(t, &got)
	if got.CustomFields["severity"] != "High" {
		t.Fatalf("%+v", got)
	}

	// PATCH: null clears, keys not sent are kept; the trail names each key.
	got = cfTicket{} // decoding into a map keeps its entries
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"owner": nil, "story_points": 8}}).Expect(t, 200).Decode(t, &got)
	if _, ok := got.CustomFields["owner"]; ok || got.CustomFields["story_points"] != float64(8) || got.CustomFields["severity"] != "High" {
		t.Fatalf("%+v", got)
	}
	act := string(f.env.Do("GET", path("/tickets/%s/activity", created.ID), f.member.Token, nil).Expect(t, 200).Body)
	if !strings.Contains(act, `"field":"custom_fields.story_points"`) || !strings.Contains(act, `"field":"custom_fields.owner"`) {
		t.Fatalf("activity %s", act)
	}
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"story_points": nil}}).Expect(t, 200)
	// A value as it is (no change to record) is answered with the others.
	got = cfTicket{}
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"severity": "high"}}).Expect(t, 200).Decode(t, &got)
	if got.CustomFields["severity"] != "High" || len(got.CustomFields) != 1 {
		t.Fatalf("%+v", got)
	}
	// At a stale version (If-Match), nothing is written: the values go in
	// the ticket's UPDATE, and the whole PATCH rolls back.
	stale := f.env.Do("GET", path("/tickets/%s", created.ID), f.member.Token, nil).Expect(t, 200).Header.Get("ETag")
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{"title": "moved on"}).Expect(t, 200)
	f.env.DoHeaders("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"severity": "low", "story_points": 3}}, map[string]string{"If-Match": stale}).Expect(t, 412)
	got = cfTicket{}
	f.env.Do("GET", path("/tickets/%s", created.ID), f.member.Token, nil).Expect(t, 200).Decode(t, &got)
	if got.CustomFields["severity"] != "High" || len(got.CustomFields) != 1 {
		t.Fatalf("after a 412: %+v", got)
	}
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"severity": "Nope"}}).Expect(t, 422)
	f.env.Do("PATCH", path("/tickets/%s", created.ID), f.viewer.Token, map[string]any{
		"custom_fields": map[string]any{"severity": "Low"}}).Expect(t, 403)

	// Renaming an option renames it on the ticket.
	if _, err := defs.Update(ctx, owner, sev.ID, customfield.Input{Options: domain.Some([]customfield.OptionIn{
		{ID: &sev.Options[0].ID}, {ID: &sev.Options[1].ID, Name: name("Urgent")}})}); err != nil {
		t.Fatal(err)
	}
	var page struct{ Items []cfTicket }
	f.create(t, f.member.Token, f.project, map[string]any{"title": "plain", "custom_fields": map[string]any{"story_points": 1}})
	f.env.Do("GET", tickets, f.viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 2 || page.Items[0].CustomFields["severity"] != "Urgent" || page.Items[1].CustomFields["story_points"] != float64(1) {
		t.Fatalf("%+v", page.Items)
	}

	// Batch update sets values on every ticket.
	f.env.Do("POST", path("/tickets/batch-update"), f.member.Token, map[string]any{"ticket_ids": []uuid.UUID{page.Items[0].ID, page.Items[1].ID},
		"custom_fields": map[string]any{"severity": "Low"}}).Expect(t, 200)
	page.Items = nil
	f.env.Do("GET", tickets, f.viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	for _, it := range page.Items {
		if it.CustomFields["severity"] != "Low" {
			t.Fatalf("%+v", page.Items)
		}
	}

	// Search: cf.<key>:value, comparisons, none; an unknown key is a 422
	// naming its position.
	third := f.create(t, f.member.Token, f.project, map[string]any{"title": "third", "custom_fields": map[string]any{"story_points": 3}})
	search := func(q string) []uuid.UUID {
		var res struct{ Items []cfTicket }
		f.env.Do("GET", path("/orgs/%s/tickets?q=%s", f.owner.OrgID, url.QueryEscape(q)), f.viewer.Token, nil).Expect(t, 200).Decode(t, &res)
		var ids []uuid.UUID
		for _, it := range res.Items {
			ids = append(ids, it.ID)
		}
		return ids
	}
	first, second := page.Items[0].ID, page.Items[1].ID
	for q, want := range map[string][]uuid.UUID{
		"cf.severity:LOW":                      {first, second},
		"cf.severity:Urgent":                   nil,
		"cf.severity:none":                     {third.ID},
		"cf.story_points:>=3":                  {third.ID},
		"cf.story_points:<3":                   {second},
		"cf.story_points:none cf.severity:low": {first},
		"-cf.severity:none":                    {first, second},
	} {
		if got := search(q); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", q, got, want)
		}
	}
	for q, pos := range map[string]string{"cf.nope:x": "position 1", "crash cf.story_points:abc": "position 7", "cf.severity:>a": "position 1"} {
		res := f.env.Do("GET", path("/orgs/%s/tickets?q=%s", f.owner.OrgID, url.QueryEscape(q)), f.viewer.Token, nil).Expect(t, 422)
		if !strings.Contains(string(res.Body), pos) {
			t.Errorf("%s: %s", q, res.Body)
		}
	}
}

// TestReporterSetsValuesOnlyWhereTheyWrite: a Reporter sets custom values
// only where they may write the ticket: on create in an assigned project;
// never in another project, nor by PATCH or batch update (Member and above),
// which leave the values as they were.
func TestReporterSetsValuesOnlyWhereTheyWrite(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	if _, err := customfield.New(f.env.DB, domain.SystemClock{}).Create(ctx, domain.Principal{UserID: f.owner.ID}, f.owner.OrgID,
		customfield.Input{Name: domain.Some("Points"), Type: domain.Some("number")}); err != nil {
		t.Fatal(err)
	}
	other := f.newProject(t, "OTH")
	f.env.Do("POST", path("/projects/%s/tickets", other), f.reporter.Token, map[string]any{"title": "elsewhere",
		"custom_fields": map[string]any{"points": 1}}).Expect(t, 403)
	var mine cfTicket
	f.env.Do("POST", path("/projects/%s/tickets", f.project), f.reporter.Token, map[string]any{"title": "mine",
		"custom_fields": map[string]any{"points": 2}}).Expect(t, 201).Decode(t, &mine)
	f.env.Do("PATCH", path("/tickets/%s", mine.ID), f.reporter.Token, map[string]any{
		"custom_fields": map[string]any{"points": 3}}).Expect(t, 403)
	f.env.Do("POST", path("/tickets/batch-update"), f.reporter.Token, map[string]any{"ticket_ids": []uuid.UUID{mine.ID},
		"custom_fields": map[string]any{"points": 4}}).Expect(t, 403)
	var got cfTicket
	f.env.Do("GET", path("/tickets/%s", mine.ID), f.reporter.Token, nil).Expect(t, 200).Decode(t, &got)
	if got.CustomFields["points"] != float64(2) {
		t.Fatalf("values after refused writes: %+v", got)
	}
	// A Member sets them.
	f.env.Do("PATCH", path("/tickets/%s", mine.ID), f.member.Token, map[string]any{
		"custom_fields": map[string]any{"points": 3}}).Expect(t, 200)
}
