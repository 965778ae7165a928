package orgs_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
)

func TestCreateAndListOrgs(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Olga")

	t.Run("201 creator is Owner with a Default workflow", func(t *testing.T) {
		o := env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "Acme", "slug": "acme"}).Expect(t, 201).Map(t)
		if o["name"] != "Acme" || o["slug"] != "acme" || o["id"] == nil || o["created_at"] == nil {
			t.Fatalf("org %v", o)
		}
		members := env.Do("GET", "/api/v1/orgs/"+o["id"].(string)+"/members", u.Token, nil).Expect(t, 200).Map(t)
		items := members["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["role"] != "Owner" || items[0].(map[string]any)["email"] != u.Email {
			t.Fatalf("members %v", members)
		}
		var statuses []byte
		var enforcement string
		err := env.DB.Pool.QueryRow(context.Background(), `SELECT statuses, enforcement FROM workflows WHERE org_id = $1 AND name = 'Default'`, o["id"]).Scan(&statuses, &enforcement)
		if err != nil {
			t.Fatal(err)
		}
		var st []struct{ Name, Category string }
		_ = json.Unmarshal(statuses, &st)
		var names []string
		for _, s := range st {
			names = append(names, s.Name+":"+s.Category)
		}
		want := "Backlog:todo,Todo:todo,InProgress:in_progress,InReview:in_progress,Done:done,Cancelled:cancelled"
		if strings.Join(names, ",") != want || enforcement != "none" {
			t.Fatalf("default workflow %v %s", names, enforcement)
		}
		list := env.Do("GET", "/api/v1/orgs", u.Token, nil).Expect(t, 200).Map(t)
		if len(list["items"].([]any)) != 2 { // personal + Acme
			t.Fatalf("list %v", list)
		}
	})

	t.Run("409 slug taken", func(t *testing.T) {
		env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "A", "slug": "dup"}).Expect(t, 201)
		r := env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "B", "slug": "dup"}).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatal(r.ErrorCode())
		}
	})

	t.Run("422", func(t *testing.T) {
		for name, body := range map[string]map[string]any{
			"no name":   {"slug": "x1"},
			"no slug":   {"name": "x"},
			"long name": {"name": strings.Repeat("n", 256), "slug": "x2"},
			"long slug": {"name": "x", "slug": strings.Repeat("s", 101)},
			// Slugs name files (the export's Content-Disposition): only
			// lower-case ASCII letters, digits and '-'.
			"quote in slug":      {"name": "x", "slug": `x"; filename*=UTF-8''invoice.pdf.exe; q="`},
			"semicolon in slug":  {"name": "x", "slug": "a;b"},
			"slash in slug":      {"name": "x", "slug": "a/b"},
			"dot dot slug":       {"name": "x", "slug": ".."},
			"CR LF in slug":      {"name": "x", "slug": "a\r\nSet-Cookie: x=1"},
			"space in slug":      {"name": "x", "slug": "a b"},
			"upper case slug":    {"name": "x", "slug": "Acme"},
			"underscore in slug": {"name": "x", "slug": "a_b"},
			"non-ASCII slug":     {"name": "x", "slug": "café"},
			"empty slug":         {"name": "x", "slug": ""},
		} {
			t.Run(name, func(t *testing.T) {
				env.Do("POST", "/api/v1/orgs", u.Token, body).Expect(t, 422)
			})
		}
		var n int
		env.ScanRow(t, &n, `SELECT count(*) FROM organizations WHERE slug !~ '^[a-z0-9-]{1,100}$'`)
		if n != 0 {
			t.Fatalf("%d orgs stored with a slug outside [a-z0-9-]", n)
		}
		env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "x", "slug": "0-acme-2-"}).Expect(t, 201)
		env.Do("POST", "/api/v1/orgs", u.Token, map[string]any{"name": "x", "slug": strings.Repeat("s", 100)}).Expect(t, 201)
	})

	t.Run("401", func(t *testing.T) {
		env.Do("POST", "/api/v1/orgs", "", map[string]any{"name": "x", "slug": "y"}).Expect(t, 401)
		env.Do("GET", "/api/v1/orgs", "", nil).Expect(t, 401)
	})

	t.Run("list shows only own orgs", func(t *testing.T) {
		stranger := env.Register("Stranger")
		list := env.Do("GET", "/api/v1/orgs", stranger.Token, nil).Expect(t, 200).Map(t)
		items := list["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["id"] != stranger.OrgID.String() {
			t.Fatalf("stranger sees %v", items)
		}
	})
}

func TestMembers(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{})
	env, owner, admin, member, viewer, outsider := w.Env, w.Owner, w.Admin, w.Member, w.Viewer, w.Outsider
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/members"

	t.Run("201 admin adds with role, default member", func(t *testing.T) {
		u := env.Register("New")
		m := env.Do("POST", path, admin.Token, map[string]any{"user_id": u.ID}).Expect(t, 201).Map(t)
		if m["role"] != "Member" || m["user_id"] != u.ID.String() || m["org_id"] != owner.OrgID.String() || m["joined_at"] == nil {
			t.Fatalf("membership %v", m)
		}
		r := env.Register("Rep")
		if got := env.Do("POST", path, admin.Token, map[string]any{"user_id": r.ID, "role": "reporter"}).Expect(t, 201).Map(t); got["role"] != "Reporter" {
			t.Fatalf("role %v", got["role"])
		}
	})

	t.Run("403 names the required role", func(t *testing.T) {
		u := env.Register("Cand")
		for _, who := range []apitest.User{member, viewer} {
			r := env.Do("POST", path, who.Token, map[string]any{"user_id": u.ID}).Expect(t, 403)
			if r.ErrorCode() != "FORBIDDEN" || !strings.Contains(r.Error().Message, "Admin") {
				t.Fatalf("error %s", r.Body)
			}
		}
		// Only an Owner makes Owners.
		r := env.Do("POST", path, admin.Token, map[string]any{"user_id": u.ID, "role": "owner"}).Expect(t, 403)
		if !strings.Contains(r.Error().Message, "Owner") {
			t.Fatalf("message %q", r.Error().Message)
		}
		env.Do("POST", path, owner.Token, map[string]any{"user_id": u.ID, "role": "owner"}).Expect(t, 201)
	})

	t.Run("404 outsider, unknown org, unknown user", func(t *testing.T) {
		u := env.Register("Cand2")
		r := env.Do("POST", path, outsider.Token, map[string]any{"user_id": u.ID}).Expect(t, 404)
		if r.ErrorCode() != "not_found" {
			t.Fatal(r.ErrorCode())
		}
		env.Do("GET", path, outsider.Token, nil).Expect(t, 404)
		env.Do("GET", "/api/v1/orgs/"+uuid.NewString()+"/members", owner.Token, nil).Expect(t, 404)
		env.Do("GET", "/api/v1/orgs/not-a-uuid/members", owner.Token, nil).Expect(t, 404)
		env.Do("POST", path, owner.Token, map[string]any{"user_id": uuid.NewString()}).Expect(t, 404)
	})

	t.Run("409 already a member", func(t *testing.T) {
		r := env.Do("POST", path, owner.Token, map[string]any{"user_id": member.ID}).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" {
			t.Fatal(r.ErrorCode())
		}
	})

	t.Run("422", func(t *testing.T) {
		env.Do("POST", path, owner.Token, map[string]any{}).Expect(t, 422)
		env.Do("POST", path, owner.Token, map[string]any{"user_id": "nope"}).Expect(t, 422)
		env.Do("POST", path, owner.Token, map[string]any{"user_id": outsider.ID, "role": "emperor"}).Expect(t, 422)
	})

	t.Run("list pages", func(t *testing.T) {
		seen := map[string]bool{}
		cursor := ""
		for pages := 0; ; pages++ {
			q := path + "?limit=2"
			if cursor != "" {
				q += "&cursor=" + cursor
			}
			page := env.Do("GET", q, viewer.Token, nil).Expect(t, 200).Map(t)
			for _, it := range page["items"].([]any) {
				id := it.(map[string]any)["user_id"].(string)
				if seen[id] {
					t.Fatalf("%s listed twice", id)
				}
				seen[id] = true
			}
			if page["has_more"] != true {
				if page["next_cursor"] != nil {
					t.Fatalf("last page with cursor %v", page["next_cursor"])
				}
				break
			}
			cursor = page["next_cursor"].(string)
		}
		var n int
		_ = env.DB.Pool.QueryRow(context.Background(), "SELECT count(*) FROM memberships WHERE org_id = $1", owner.OrgID).Scan(&n)
		if len(seen) != n {
			t.Fatalf("walk saw %d of %d", len(seen), n)
		}
		env.Do("GET", path+"?limit=0", viewer.Token, nil).Expect(t, 422)
		env.Do("GET", path+"?cursor=%%%", viewer.Token, nil).Expect(t, 422)
		if got := env.Do("GET", path+"?limit=1000", viewer.Token, nil).Expect(t, 200).Map(t); len(got["items"].([]any)) != n {
			t.Fatalf("clamped limit returned %d", len(got["items"].([]any)))
		}
	})
}

func TestInvites(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{})
	env, owner, admin, member, viewer, outsider := w.Env, w.Owner, w.Admin, w.Member, w.Viewer, w.Outsider
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/invites"

	inv := env.Do("POST", path, admin.Token, map[string]any{"email": "x@example.test", "role": "admin", "created_by": uuid.NewString()}).Expect(t, 201).Map(t)
	if inv["email"] != "x@example.test" || inv["role"] != "Admin" || inv["expires_at"] == nil ||
		!strings.HasPrefix(inv["invite_link"].(string), "http://tracker.test/invite/") {
		t.Fatalf("invite %v", inv)
	}
	if def := env.Do("POST", path, owner.Token, map[string]any{}).Expect(t, 201).Map(t); def["role"] != "Member" || def["email"] != nil {
		t.Fatalf("default invite %v", def)
	}

	env.Do("POST", path, member.Token, map[string]any{}).Expect(t, 403)
	env.Do("POST", path, viewer.Token, map[string]any{}).Expect(t, 403)
	env.Do("POST", path, outsider.Token, map[string]any{}).Expect(t, 404)
	env.Do("POST", path, admin.Token, map[string]any{"email": "not-an-email"}).Expect(t, 422)
	env.Do("POST", path, admin.Token, map[string]any{"role": "king"}).Expect(t, 422)

	var list []map[string]any
	env.Do("GET", path, viewer.Token, nil).Expect(t, 200).Decode(t, &list)
	if len(list) != 2 {
		t.Fatalf("list %v", list)
	}
	env.Do("GET", path, outsider.Token, nil).Expect(t, 404)

	id := inv["id"].(string)
	env.Do("DELETE", path+"/"+id, member.Token, nil).Expect(t, 403)
	env.Do("DELETE", path+"/"+id, outsider.Token, nil).Expect(t, 404)
	env.Do("DELETE", path+"/"+id, admin.Token, nil).Expect(t, 204)
	env.Do("DELETE", path+"/"+id, admin.Token, nil).Expect(t, 404)
	// Another org's admin cannot revoke through their own org's path.
	env.Do("DELETE", "/api/v1/orgs/"+outsider.OrgID.String()+"/invites/"+id, outsider.Token, nil).Expect(t, 404)
	env.Do("GET", path, viewer.Token, nil).Expect(t, 200).Decode(t, &list)
	if len(list) != 1 {
		t.Fatalf("after revoke %v", list)
	}
}
