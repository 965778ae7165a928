package orgs_test

import (
	"testing"

	"tracker/api/apitest"
)

// TestInviteCodesShownOnlyToAdminsAndCreator: any member lists invites, but
// the code and link (which let anyone join) only reach an Admin and the
// invite's creator; Admin and Owner invites must name their invitee.
func TestInviteCodesShownOnlyToAdminsAndCreator(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{})
	env, owner, admin, member, viewer := w.Env, w.Owner, w.Admin, w.Member, w.Viewer
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/invites"

	byOwner := env.Do("POST", path, owner.Token, map[string]any{"role": "member"}).Expect(t, 201).Map(t)
	byAdmin := env.Do("POST", path, admin.Token, map[string]any{"role": "viewer"}).Expect(t, 201).Map(t)
	if byOwner["invite_code"] == nil || byOwner["invite_link"] == nil {
		t.Fatalf("creator does not see the code on create: %v", byOwner)
	}
	// The admin is demoted: they still see the code of their own invite.
	if _, err := env.DB.Pool.Exec(t.Context(), `UPDATE memberships SET role = 'member' WHERE user_id = $1`, admin.ID); err != nil {
		t.Fatal(err)
	}
	codes := func(token string) map[string]any {
		t.Helper()
		var list []map[string]any
		env.Do("GET", path, token, nil).Expect(t, 200).Decode(t, &list)
		if len(list) != 2 {
			t.Fatalf("list %v", list)
		}
		out := map[string]any{}
		for _, i := range list {
			if (i["invite_code"] == nil) != (i["invite_link"] == nil) {
				t.Fatalf("code and link disagree: %v", i)
			}
			out[i["id"].(string)] = i["invite_code"]
		}
		return out
	}
	ownerID, adminID := byOwner["id"].(string), byAdmin["id"].(string)
	for name, tc := range map[string]struct {
		token          string
		owners, admins bool
	}{
		"owner":                 {owner.Token, true, true},
		"viewer":                {viewer.Token, false, false},
		"member":                {member.Token, false, false},
		"creator (now member)":  {admin.Token, false, true},
		"owner's read key":      {env.APIKey(owner, []string{"read"}), true, false}, // creator
		"owner's admin key":     {env.APIKey(owner, []string{"admin"}), true, true},
		"creator's own key too": {env.APIKey(admin, []string{"read"}), false, true},
	} {
		t.Run(name, func(t *testing.T) {
			c := codes(tc.token)
			if (c[ownerID] != nil) != tc.owners || (c[adminID] != nil) != tc.admins {
				t.Fatalf("codes %v; want owner's shown %v, admin's shown %v", c, tc.owners, tc.admins)
			}
		})
	}
}

func TestPrivilegedInvitesNameAnEmail(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	owner := env.Register("Owner")
	path := "/api/v1/orgs/" + owner.OrgID.String() + "/invites"
	for _, role := range []string{"owner", "admin"} {
		r := env.Do("POST", path, owner.Token, map[string]any{"role": role}).Expect(t, 422)
		if r.ErrorCode() != "VALIDATION_ERROR" {
			t.Fatalf("%s: %s", role, r.Body)
		}
	}
	env.Do("POST", path, owner.Token, map[string]any{"role": "owner", "email": "boss@example.test"}).Expect(t, 201)

	// An un-emailed Owner invite left from before the rule grants nothing.
	inv := env.Do("POST", path, owner.Token, map[string]any{"role": "member"}).Expect(t, 201).Map(t)
	if _, err := env.DB.Pool.Exec(t.Context(), `UPDATE invites SET role = 'owner' WHERE id = $1`, inv["id"]); err != nil {
		t.Fatal(err)
	}
	env.Do("POST", "/api/v1/auth/register", "", map[string]any{"email": "grab@example.test", "password": "correct-horse-1",
		"display_name": "Grab", "invite_code": inv["invite_code"]}).Expect(t, 422)
	var n int
	if err := env.DB.Pool.QueryRow(t.Context(), `SELECT count(*) FROM memberships m JOIN users u ON u.id = m.user_id
		WHERE m.org_id = $1 AND u.email = 'grab@example.test'`, owner.OrgID).Scan(&n); err != nil || n != 0 {
		t.Fatalf("memberships %d %v", n, err)
	}
}
