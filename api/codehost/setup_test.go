package codehost_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/api"
	"tracker/api/apitest"
	"tracker/api/codehost"
	"tracker/api/tickets"
	"tracker/domain"
	chdomain "tracker/domain/codehost"
	"tracker/domain/search"
	"tracker/domain/statusflow"
	"tracker/domain/testfactory"
	"tracker/domain/ticket"
	"tracker/store/projectdb"
)

const globalSecret = "global-secret-0123456789"

// fixture is an app with the service-wide secret set, an org (owned by
// owner) with a member and a project ABC, and an outsider with an org of
// their own.
type fixture struct {
	env                    *apitest.Env
	owner, member, outside apitest.User
	project                uuid.UUID
}

func setup(t *testing.T) *fixture {
	return setupWith(t, globalSecret)
}

func setupWith(t *testing.T, secret string) *fixture {
	t.Helper()
	box := apitest.SecretBox(t)
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		ts := ticket.New(e.DB, e.Clock)
		return []api.Module{tickets.New(ts, search.New(e.DB, e.Clock)),
			codehost.New(chdomain.New(e.DB, ts, secret, box, domain.SystemClock{}, "http://tracker.test"))}
	}})
	f := &fixture{env: env, owner: env.Register("Owner")}
	f.member = env.Member(f.owner, "member")
	f.outside = env.Register("Outsider")
	f.project = f.projectIn(t, f.owner.OrgID, "ABC")
	return f
}

func (f *fixture) count(t *testing.T, sql string, args ...any) int {
	t.Helper()
	var n int
	f.env.ScanRow(t, &n, sql, args...)
	return n
}

func (f *fixture) projectIn(t *testing.T, orgID uuid.UUID, key string) uuid.UUID {
	t.Helper()
	return testfactory.Project(t, f.env.DB, orgID, testfactory.ProjectOpts{Key: key, Name: "Project " + key}).ID
}

// ticket creates a ticket through the API as the owner of the project's org.
func (f *fixture) ticket(t *testing.T, token string, project uuid.UUID, status string) ticket.Ticket {
	t.Helper()
	var tk ticket.Ticket
	f.env.Do("POST", "/api/v1/projects/"+project.String()+"/tickets", token,
		map[string]any{"title": "work", "status": status}).Expect(t, 201).Decode(t, &tk)
	return tk
}

func (f *fixture) status(t *testing.T, id uuid.UUID) string {
	t.Helper()
	var s string
	f.env.ScanRow(t, &s, `SELECT status FROM tickets WHERE id = $1`, id)
	return s
}

// useWorkflow gives project (of the owner's org) a new workflow.
func (f *fixture) useWorkflow(t *testing.T, project uuid.UUID, enforcement string, statuses [][2]string, transitions [][2]string) {
	t.Helper()
	o := testfactory.WorkflowOpts{Name: "Flow " + project.String(), Enforcement: enforcement,
		Statuses: []statusflow.Status{}, Transitions: []statusflow.Transition{}}
	for _, s := range statuses {
		o.Statuses = append(o.Statuses, statusflow.Status{Name: s[0], Category: s[1]})
	}
	for _, x := range transitions {
		o.Transitions = append(o.Transitions, statusflow.Transition{From: x[0], To: x[1]})
	}
	wf := testfactory.Workflow(t, f.env.DB, f.owner.OrgID, o)
	testfactory.UseWorkflow(t, f.env.DB, projectdb.Row{ID: project, OrgID: f.owner.OrgID}, wf.ID)
}

// delivery is one webhook request.
type delivery struct {
	path, event, id, secret string
	signature               string // overrides the computed one when set
	body                    []byte
	noSignature             bool
}

type result struct {
	Status          string   `json:"status"`
	Reason          string   `json:"reason"`
	TicketRefsFound []string `json:"ticket_refs_found"`
	Transitions     []struct {
		TicketRef string `json:"ticket_ref"`
		OldStatus string `json:"old_status"`
		NewStatus string `json:"new_status"`
		Warning   string `json:"warning"`
	} `json:"transitions"`
	Skipped []struct {
		TicketRef string `json:"ticket_ref"`
		Reason    string `json:"reason"`
	} `json:"skipped"`
}

func (f *fixture) send(t *testing.T, d delivery) apitest.Resp {
	t.Helper()
	if d.path == "" {
		d.path = "/api/v1/integrations/codehost/webhook"
	}
	if d.event == "" {
		d.event = "pull_request"
	}
	if d.secret == "" {
		d.secret = globalSecret
	}
	req := httptest.NewRequest("POST", d.path, strings.NewReader(string(d.body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Codehost-Event", d.event)
	if d.id != "" {
		req.Header.Set("X-Codehost-Delivery", d.id)
	}
	if !d.noSignature {
		sig := d.signature
		if sig == "" {
			sig = chdomain.Sign(d.secret, d.body)
		}
		req.Header.Set("X-Codehost-Signature-256", sig)
	}
	return f.env.Send(req) // held to docs/openapi.yaml
}

// pr is a GitHub-shaped pull_request payload.
func pr(action, title, branch string, merged bool, repo string) []byte {
	b, _ := json.Marshal(map[string]any{
		"action": action,
		"pull_request": map[string]any{"title": title, "merged": merged, "html_url": "https://code.example/" + repo + "/pull/7",
			"head": map[string]any{"ref": branch}},
		"repository": map[string]any{"full_name": repo},
		"sender":     map[string]any{"login": "octo"},
	})
	return b
}

func ref(tk ticket.Ticket, key string) string { return fmt.Sprintf("%s-%d", key, tk.TicketNumber) }

func decode(t *testing.T, r apitest.Resp) result {
	t.Helper()
	var out result
	r.Decode(t, &out)
	return out
}

func uuidString() string { return uuid.Must(uuid.NewV7()).String() }
