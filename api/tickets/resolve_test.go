package tickets_test

import (
	"fmt"
	"net/url"
	"slices"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/ticket"
)

func TestResolve(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	tk := f.create(t, f.owner.Token, f.project, map[string]any{"title": "Login page crashes"})
	other := f.newProject(t, "XYZ")
	twin := f.create(t, f.owner.Token, other, map[string]any{"title": "unrelated"})
	resolve := func(t *testing.T, token, q string, want int) ticket.Resolution {
		t.Helper()
		var res ticket.Resolution
		r := env.Do("GET", path("/tickets/resolve?%s", q), token, nil).Expect(t, want)
		if want == 200 {
			r.Decode(t, &res)
			if res.Suggestions == nil {
				t.Fatal("suggestions null")
			}
		}
		return res
	}

	t.Run("200 found by every form", func(t *testing.T) {
		for name, q := range map[string]string{
			"uuid":              "ref=" + tk.ID.String(),
			"KEY-N":             fmt.Sprintf("ref=ABC-%d", tk.TicketNumber),
			"key-n lower":       fmt.Sprintf("ref=abc-%d", tk.TicketNumber),
			"bare":              fmt.Sprintf("ref=%d&project_id=%s", tk.TicketNumber, f.project),
			"bare #":            fmt.Sprintf("ref=%s&project_id=%s", url.QueryEscape(fmt.Sprintf("#%d", tk.TicketNumber)), f.project),
			"explicit org":      fmt.Sprintf("ref=ABC-%d&org_id=%s", tk.TicketNumber, f.owner.OrgID),
			"uuid explicit org": "ref=" + tk.ID.String() + "&org_id=" + f.owner.OrgID.String(),
		} {
			t.Run(name, func(t *testing.T) {
				res := resolve(t, f.owner.Token, q, 200)
				if res.Ticket == nil || res.Ticket.ID != tk.ID || res.Ticket.Key != fmt.Sprintf("ABC-%d", tk.TicketNumber) ||
					res.Ticket.Title != tk.Title || res.Ticket.Status != "Backlog" || res.Ticket.Priority != "None" {
					t.Fatalf("%+v", res.Ticket)
				}
			})
		}
	})

	t.Run("200 null with suggestions", func(t *testing.T) {
		res := resolve(t, f.owner.Token, fmt.Sprintf("ref=NOPE-%d", twin.TicketNumber), 200)
		if res.Ticket != nil || len(res.Suggestions) == 0 {
			t.Fatalf("%+v", res)
		}
		res = resolve(t, f.owner.Token, fmt.Sprintf("ref=%d&project_id=%s", 999, f.project), 200)
		if res.Ticket != nil || len(res.Suggestions) != 0 {
			t.Fatalf("%+v", res)
		}
		res = resolve(t, f.owner.Token, "ref=crashes", 200)
		if res.Ticket != nil || len(res.Suggestions) != 1 || res.Suggestions[0].ID != tk.ID {
			t.Fatalf("%+v", res)
		}
		// A typo still suggests the title (pg_trgm word similarity).
		res = resolve(t, f.owner.Token, "ref=crashs", 200)
		if res.Ticket != nil || len(res.Suggestions) != 1 || res.Suggestions[0].ID != tk.ID {
			t.Fatalf("typo: %+v", res)
		}
		res = resolve(t, f.owner.Token, "ref="+uuid.NewString(), 200)
		if res.Ticket != nil {
			t.Fatal("found a random uuid")
		}
		// a ticket of another org named by uuid is a miss, not a leak
		hidden := f.create(t, f.outsider.Token, f.projectIn(t, f.outsider.OrgID, "OUT"), map[string]any{"title": "secret"})
		if res := resolve(t, f.owner.Token, "ref="+hidden.ID.String(), 200); res.Ticket != nil {
			t.Fatal("leaked")
		}
		for i := range 7 {
			f.create(t, f.owner.Token, f.project, map[string]any{"title": fmt.Sprintf("many match %d", i)})
		}
		if res := resolve(t, f.owner.Token, "ref=many+match", 200); len(res.Suggestions) != ticket.MaxSuggestions {
			t.Fatalf("%d suggestions", len(res.Suggestions))
		}
		// same number in another project
		res = resolve(t, f.owner.Token, fmt.Sprintf("ref=%d&project_id=%s", tk.TicketNumber+100, other), 200)
		if res.Ticket != nil {
			t.Fatal("found")
		}
	})

	t.Run("200 suggestions hide what a reporter may not read", func(t *testing.T) {
		res := resolve(t, f.reporter.Token, "ref=unrelated&org_id="+f.owner.OrgID.String(), 200)
		if len(res.Suggestions) != 0 {
			t.Fatalf("%+v", res.Suggestions)
		}
	})

	t.Run("422", func(t *testing.T) {
		resolve(t, f.owner.Token, "", 422)
		resolve(t, f.owner.Token, "ref=12", 422)
		resolve(t, f.owner.Token, "ref=12&project_id=nope", 422)
		resolve(t, f.owner.Token, "ref=ABC-1&org_id=nope", 422)
	})

	t.Run("200 null for a reporter on an unassigned project", func(t *testing.T) {
		res := resolve(t, f.reporter.Token, fmt.Sprintf("ref=XYZ-%d&org_id=%s", twin.TicketNumber, f.owner.OrgID), 200)
		if res.Ticket != nil || slices.ContainsFunc(res.Suggestions, func(r ticket.Ref) bool { return r.ID == twin.ID }) {
			t.Fatalf("a ticket of an unassigned project answered: %+v", res)
		}
		// without org_id the caller's session org (the reporter's personal org) is searched
		if res := resolve(t, f.reporter.Token, fmt.Sprintf("ref=XYZ-%d", twin.TicketNumber), 200); res.Ticket != nil {
			t.Fatal("found outside the session org")
		}
	})

	t.Run("404 not a member", func(t *testing.T) {
		resolve(t, f.outsider.Token, fmt.Sprintf("ref=ABC-%d&org_id=%s", tk.TicketNumber, f.owner.OrgID), 404)
		resolve(t, f.outsider.Token, fmt.Sprintf("ref=1&project_id=%s", f.project), 404)
	})
}

// TestResolveSuggestions pins the title suggestions of a free-text resolve:
// containing titles before typo-similar ones, newest first in each group,
// only what the caller may see (in the SQL: hidden tickets never take the
// place of visible ones), never a deleted ticket or one of a deleted
// project.
func TestResolveSuggestions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	suggest := func(t *testing.T, token, ref string) []string {
		t.Helper()
		var res ticket.Resolution
		env.Do("GET", path("/tickets/resolve?%s", url.Values{"ref": {ref}, "org_id": {f.owner.OrgID.String()}}.Encode()), token, nil).
			Expect(t, 200).Decode(t, &res)
		if res.Ticket != nil {
			t.Fatalf("found %+v", res.Ticket)
		}
		titles := []string{}
		for _, s := range res.Suggestions {
			titles = append(titles, s.Title)
		}
		return titles
	}
	same := func(t *testing.T, got []string, want ...string) {
		t.Helper()
		if fmt.Sprint(got) != fmt.Sprint(append([]string{}, want...)) {
			t.Fatalf("got %q, want %q", got, want)
		}
	}

	t.Run("containing first, then similar, newest first in each", func(t *testing.T) {
		f.ticket(t, "Old dashbord typo in title")
		f.ticket(t, "Slow dashboard")
		f.ticket(t, "Newer dashbord note")
		f.ticket(t, "Dashboards everywhere")
		// The similar ones are newer than the first containing one, and
		// still come after both containing ones.
		same(t, suggest(t, f.owner.Token, "dashbord"),
			"Newer dashbord note", "Old dashbord typo in title", "Dashboards everywhere", "Slow dashboard")
	})

	t.Run("typos", func(t *testing.T) {
		f.ticket(t, "Payment timeout on checkout")
		f.ticket(t, "Payment page")
		same(t, suggest(t, f.owner.Token, "paymnet timout"), "Payment timeout on checkout")
		same(t, suggest(t, f.owner.Token, "chekout"), "Payment timeout on checkout")
		same(t, suggest(t, f.owner.Token, "zzyzx"))
	})

	t.Run("a reporter and a restricted key see visible matches behind many hidden ones", func(t *testing.T) {
		f.ticket(t, "Needle in the assigned project")
		hidden := f.newProject(t, "HID")
		for i := range 25 {
			f.create(t, f.owner.Token, hidden, map[string]any{"title": fmt.Sprintf("Needle hidden %d", i)})
		}
		same(t, suggest(t, f.reporter.Token, "needle"), "Needle in the assigned project")
		same(t, suggest(t, f.reporter.Token, "neddle"), "Needle in the assigned project")
		key := env.APIKey(f.owner, []string{"read"}, f.project)
		same(t, suggest(t, key, "needle"), "Needle in the assigned project")
		same(t, suggest(t, key, "neddle"), "Needle in the assigned project")
		if got := suggest(t, f.owner.Token, "needle"); len(got) != ticket.MaxSuggestions || got[0] != "Needle hidden 24" {
			t.Fatalf("owner: %q", got)
		}
	})

	t.Run("deleted tickets and projects are never suggested", func(t *testing.T) {
		gone := f.ticket(t, "Ghostly ticket")
		env.Do("DELETE", path("/tickets/%s", gone.ID), f.admin.Token, nil).Expect(t, 204)
		dropped := f.newProject(t, "GON")
		f.create(t, f.owner.Token, dropped, map[string]any{"title": "Phantasmal project ticket"})
		env.Exec(t, `UPDATE projects SET deleted_at = now() WHERE id = $1`, dropped)
		for _, ref := range []string{"ghostly", "ghostyl", "phantasmal", "phantasmla"} {
			same(t, suggest(t, f.owner.Token, ref))
		}
	})
}

// TestResolveHiddenIsMissing: a ticket the caller may not see (a project
// outside an API key's projects, an unassigned project of a Reporter)
// resolves exactly as a ticket that does not exist, by KEY-NUMBER and by
// id: 200, ticket null, the same suggestions, never the hidden ticket.
func TestResolveHiddenIsMissing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	env := f.env
	visible := f.ticket(t, "Visible one")
	hiddenProject := f.newProject(t, "HID")
	hidden := f.create(t, f.owner.Token, hiddenProject, map[string]any{"title": "Hidden one"})
	if hidden.TicketNumber != visible.TicketNumber {
		t.Fatalf("numbers %d and %d: the suggestions below compare tickets of the same number", hidden.TicketNumber, visible.TicketNumber)
	}
	org := f.owner.OrgID.String()
	key := env.APIKey(f.owner, []string{"read"}, f.project)
	answer := func(t *testing.T, token, ref string) string {
		t.Helper()
		r := env.Do("GET", path("/tickets/resolve?%s", url.Values{"ref": {ref}, "org_id": {org}}.Encode()), token, nil).Expect(t, 200)
		var res ticket.Resolution
		r.Decode(t, &res)
		if res.Ticket != nil || slices.ContainsFunc(res.Suggestions, func(s ticket.Ref) bool { return s.ID == hidden.ID }) {
			t.Fatalf("%s: the hidden ticket answered: %s", ref, r.Body)
		}
		return string(r.Body)
	}
	for name, token := range map[string]string{"restricted key": key, "unassigned reporter": f.reporter.Token} {
		t.Run(name, func(t *testing.T) {
			n := hidden.TicketNumber
			got, missing := answer(t, token, fmt.Sprintf("HID-%d", n)), answer(t, token, fmt.Sprintf("NOPE-%d", n))
			if got != missing {
				t.Fatalf("hidden and missing answer differently:\nhidden  %s\nmissing %s", got, missing)
			}
			if !contains(got, visible.ID.String()) {
				t.Fatalf("the visible ticket of the same number is not suggested: %s", got)
			}
			if got, missing := answer(t, token, hidden.ID.String()), answer(t, token, uuid.NewString()); got != missing {
				t.Fatalf("hidden and missing ids answer differently:\nhidden  %s\nmissing %s", got, missing)
			}
		})
	}
	// The owner still finds it.
	var res ticket.Resolution
	env.Do("GET", path("/tickets/resolve?ref=HID-%d&org_id=%s", hidden.TicketNumber, org), f.owner.Token, nil).Expect(t, 200).Decode(t, &res)
	if res.Ticket == nil || res.Ticket.ID != hidden.ID {
		t.Fatalf("owner: %+v", res)
	}
}
