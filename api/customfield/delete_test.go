package customfield_test

import (
	"testing"

	"github.com/google/uuid"
	"go.temporal.io/sdk/testsuite"

	cascadeact "tracker/activities/cascade"
	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/customfield"
	"tracker/domain"
	cf "tracker/domain/customfield"
	"tracker/domain/testfactory"
)

// TestDeleteFieldValues: a DELETE of a field held by few tickets removes
// its values in the request; one held by more (over the inline limit, 2
// here) is gone for every read at once, its key free again, and its values
// are purged by the durable cascade job the request enqueued (run here by
// its activities), which then removes the row.
func TestDeleteFieldValues(t *testing.T) {
	t.Parallel()
	w := apitest.NewWorld(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		return []api.Module{customfield.New(cf.New(e.DB, e.Clock).WithInlineValues(2))}
	}})
	env := w.Env
	org := w.Owner.OrgID
	values := func(field uuid.UUID) int {
		return apitest.Scalar[int](t, env, `SELECT count(*) FROM ticket_custom_values WHERE field_id = $1`, field)
	}
	rows := func(field uuid.UUID) int {
		return apitest.Scalar[int](t, env, `SELECT count(*) FROM custom_fields WHERE id = $1`, field)
	}
	jobs := func(field uuid.UUID) int {
		n := 0
		for _, j := range env.Outbox(t, org, domain.TopicCascadeDelete) {
			if j["entity_type"] == "custom_field" && j["entity_id"] == field.String() {
				n++
			}
		}
		return n
	}
	var small, big uuid.UUID
	for i := range 5 {
		tk := testfactory.Ticket(t, env.DB, w.Project, w.Owner.ID, testfactory.TicketOpts{})
		if i < 2 {
			small = testfactory.NumberValue(t, env.DB, org, tk.ID, "small", float64(i))
		}
		big = testfactory.NumberValue(t, env.DB, org, tk.ID, "big", float64(i))
	}

	// Inline: the values go with the definition, no job.
	env.Do("DELETE", "/api/v1/fields/"+small.String(), w.Admin.Token, nil).Expect(t, 204)
	if values(small) != 0 || rows(small) != 0 || jobs(small) != 0 {
		t.Fatalf("inline delete left %d values, %d rows, %d jobs", values(small), rows(small), jobs(small))
	}

	// Durable: hidden at once, its key free; the values wait for the job.
	env.Do("DELETE", "/api/v1/fields/"+big.String(), w.Admin.Token, nil).Expect(t, 204)
	env.Do("GET", "/api/v1/fields/"+big.String(), w.Admin.Token, nil).Expect(t, 404)
	env.Do("PATCH", "/api/v1/fields/"+big.String(), w.Admin.Token, map[string]any{"name": "x"}).Expect(t, 404)
	env.Do("DELETE", "/api/v1/fields/"+big.String(), w.Admin.Token, nil).Expect(t, 404)
	var page fieldPage
	env.Do("GET", "/api/v1/orgs/"+org.String()+"/fields", w.Viewer.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 0 {
		t.Fatalf("listed %+v", page.Items)
	}
	if values(big) != 5 || jobs(big) != 1 {
		t.Fatalf("durable delete: %d values, %d jobs", values(big), jobs(big))
	}
	env.Do("POST", "/api/v1/orgs/"+org.String()+"/fields", w.Admin.Token, map[string]any{"name": "Big", "key": "big", "type": "text"}).Expect(t, 201)

	// The job's activities purge the values, then the definition.
	a := &cascadeact.Activities{DB: env.DB, BatchSize: 2}
	var suite testsuite.WorkflowTestSuite
	act := suite.NewTestActivityEnvironment()
	act.RegisterActivity(a)
	job := domain.CascadeJob{OrgID: org, EntityType: "custom_field", EntityID: big}
	v, err := act.ExecuteActivity(a.CheckCascade, job)
	if err != nil {
		t.Fatal(err)
	}
	var check cascadeact.CascadeCheck
	if err := v.Get(&check); err != nil || !check.Proceed {
		t.Fatalf("check %+v %v", check, err)
	}
	for _, step := range check.Steps {
		for done := false; !done; {
			v, err := act.ExecuteActivity(a.PurgeCascadeStep, cascadeact.CascadeStepInput{Job: job, Step: step})
			if err != nil {
				t.Fatal(err)
			}
			var res cascadeact.CascadeStepResult
			if err := v.Get(&res); err != nil {
				t.Fatal(err)
			}
			done = res.Done
		}
	}
	if values(big) != 0 || rows(big) != 0 {
		t.Fatalf("after the purge: %d values, %d rows", values(big), rows(big))
	}
	// A finished purge run again does nothing.
	if v, err = act.ExecuteActivity(a.CheckCascade, job); err != nil {
		t.Fatal(err)
	}
	if err := v.Get(&check); err != nil || check.Proceed {
		t.Fatalf("second check %+v %v", check, err)
	}
}
