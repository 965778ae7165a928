package laborrate_test

import (
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	laborrateapi "tracker/api/laborrate"
	"tracker/domain/laborrate"
)

func TestLaborRates(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{laborrateapi.New(laborrate.New(e.DB, e.Clock))}
	}})
	env, owner, admin, member, viewer, outsider := w.Env, w.Owner, w.Admin, w.Member, w.Viewer, w.Outsider
	org := owner.OrgID.String()
	day := func(d int) string { return time.Now().UTC().AddDate(0, 0, d).Format("2006-01-02") }
	create := func(u apitest.User, userID uuid.UUID, cents int64, date string) laborrate.Rate {
		t.Helper()
		var r laborrate.Rate
		env.Do("POST", "/api/v1/labor-rates", u.Token, map[string]any{"user_id": userID, "org_id": owner.OrgID,
			"loaded_rate_cents": cents, "effective_date": date}).Expect(t, 201).Decode(t, &r)
		return r
	}
	listPath := "/api/v1/users/" + member.ID.String() + "/orgs/" + org + "/labor-rates"

	old := create(admin, member.ID, 10000, "2025-01-01")
	cur := create(owner, member.ID, 12000, day(0))
	future := create(admin, member.ID, 15000, day(30))

	t.Run("201", func(t *testing.T) {
		if old.UserID != member.ID || old.OrgID != owner.OrgID || old.LoadedRateCents != 10000 || old.EffectiveDate != "2025-01-01" {
			t.Fatalf("created: %+v", old)
		}
		create(admin, admin.ID, 0, "2025-06-01") // a zero rate is allowed
	})
	t.Run("200 get", func(t *testing.T) {
		var r laborrate.Rate
		env.Do("GET", "/api/v1/labor-rates/"+old.ID.String(), admin.Token, nil).Expect(t, 200).Decode(t, &r)
		if r != old {
			t.Fatalf("got %+v, want %+v", r, old)
		}
	})
	t.Run("200 current is the latest effective date not after today", func(t *testing.T) {
		var r laborrate.Rate
		env.Do("GET", listPath+"/current", owner.Token, nil).Expect(t, 200).Decode(t, &r)
		if r.ID != cur.ID {
			t.Fatalf("current %+v, want %+v (not the future %s)", r, cur, future.ID)
		}
	})
	t.Run("404 current without a rate", func(t *testing.T) {
		env.Do("GET", "/api/v1/users/"+viewer.ID.String()+"/orgs/"+org+"/labor-rates/current", owner.Token, nil).Expect(t, 404)
	})
	t.Run("200 list, default page 50", func(t *testing.T) {
		var p api.Paginated[laborrate.Rate]
		env.Do("GET", listPath, admin.Token, nil).Expect(t, 200).Decode(t, &p)
		if len(p.Items) != 3 || p.HasMore || p.Items[0].ID != old.ID {
			t.Fatalf("list: %+v", p)
		}
		env.Do("GET", listPath+"?limit=2", admin.Token, nil).Expect(t, 200).Decode(t, &p)
		if len(p.Items) != 2 || !p.HasMore {
			t.Fatalf("page of 2: %+v", p)
		}
		many := env.Member(owner, "member")
		for i := 0; i < 55; i++ {
			create(admin, many.ID, int64(i), time.Date(2020, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02"))
		}
		env.Do("GET", "/api/v1/users/"+many.ID.String()+"/orgs/"+org+"/labor-rates", admin.Token, nil).Expect(t, 200).Decode(t, &p)
		if len(p.Items) != 50 || !p.HasMore {
			t.Fatalf("default page: %d items, has_more %v", len(p.Items), p.HasMore)
		}
		env.Do("GET", "/api/v1/users/"+many.ID.String()+"/orgs/"+org+"/labor-rates?limit=500", admin.Token, nil).Expect(t, 200).Decode(t, &p)
		if len(p.Items) != 55 || p.HasMore {
			t.Fatalf("clamped page: %d items", len(p.Items))
		}
	})
	t.Run("409 a second rate on the same day", func(t *testing.T) {
		r := env.Do("POST", "/api/v1/labor-rates", admin.Token, map[string]any{"user_id": member.ID, "org_id": owner.OrgID,
			"loaded_rate_cents": 1, "effective_date": "2025-01-01"}).Expect(t, 409)
		if r.ErrorCode() != "CONFLICT" || !strings.Contains(strings.Join(r.Error().Details, ""), "effective_date: 2025-01-01") {
			t.Fatalf("error %s", r.Body)
		}
	})
	t.Run("422", func(t *testing.T) {
		base := map[string]any{"user_id": member.ID, "org_id": owner.OrgID, "loaded_rate_cents": 100, "effective_date": "2024-01-01"}
		for name, over := range map[string]map[string]any{
			"negative rate":    {"loaded_rate_cents": -1},
			"huge rate":        {"loaded_rate_cents": 1_000_000_001},
			"fractional rate":  {"loaded_rate_cents": 10.5},
			"missing rate":     {"loaded_rate_cents": nil},
			"bad date":         {"effective_date": "2024-13-01"},
			"missing date":     {"effective_date": nil},
			"missing user":     {"user_id": nil},
			"missing org":      {"org_id": nil},
			"user not in org":  {"user_id": outsider.ID},
			"unknown user uid": {"user_id": uuid.New()},
		} {
			b := map[string]any{}
			for k, v := range base {
				b[k] = v
			}
			for k, v := range over {
				if v == nil {
					delete(b, k)
				} else {
					b[k] = v
				}
			}
			if r := env.Do("POST", "/api/v1/labor-rates", admin.Token, b); r.Status != 422 {
				t.Errorf("%s: %d %s", name, r.Status, r.Body)
			}
		}
	})
	t.Run("403 below Admin on every route", func(t *testing.T) {
		key := env.APIKey(owner, []string{"read", "write"}) // acts as Member
		for _, tok := range []string{member.Token, viewer.Token, key} {
			for _, req := range []struct {
				method, path string
				body         any
			}{
				{"POST", "/api/v1/labor-rates", map[string]any{"user_id": member.ID, "org_id": owner.OrgID, "loaded_rate_cents": 1, "effective_date": "2024-02-02"}},
				{"GET", "/api/v1/labor-rates/" + old.ID.String(), nil},
				{"GET", listPath + "/current", nil},
				{"GET", listPath, nil},
			} {
				r := env.Do(req.method, req.path, tok, req.body)
				if r.Status != 403 || !strings.Contains(r.Error().Message, "Admin") {
					t.Fatalf("%s %s: %d %s", req.method, req.path, r.Status, r.Body)
				}
			}
		}
	})
	t.Run("404 for a non-member on every route", func(t *testing.T) {
		for _, req := range []struct {
			method, path string
			body         any
		}{
			{"POST", "/api/v1/labor-rates", map[string]any{"user_id": member.ID, "org_id": owner.OrgID, "loaded_rate_cents": 1, "effective_date": "2024-02-02"}},
			{"GET", "/api/v1/labor-rates/" + old.ID.String(), nil},
			{"GET", "/api/v1/labor-rates/" + uuid.NewString(), nil},
			{"GET", listPath + "/current", nil},
			{"GET", listPath, nil},
		} {
			env.Do(req.method, req.path, outsider.Token, req.body).Expect(t, 404)
		}
	})
}
