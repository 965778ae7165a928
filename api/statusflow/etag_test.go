package statusflow_test

import (
	"testing"

	"tracker/api/apitest"
)

// Two admins edit the same workflow: the stale If-Match is 412 and
// overwrites nothing (apitest.CheckConditional).
func TestWorkflowETags(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	owner := env.Register("Owner")
	admin := env.Member(owner, "admin")
	created := env.Do("POST", "/api/v1/orgs/"+owner.OrgID.String()+"/workflows", owner.Token, body("Tagged")).Expect(t, 201)
	env.CheckConditional(t, apitest.Conditional{Path: "/api/v1/workflows/" + created.Map(t)["id"].(string), Created: created,
		A: owner.Token, B: admin.Token, Field: "name",
		PatchA: map[string]any{"name": "A's flow"}, PatchB: map[string]any{"name": "B's flow", "enforcement": "warn"}})
}
