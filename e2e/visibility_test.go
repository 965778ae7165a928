package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/converter"

	"tracker/domain/exchange/export/exportseed"
	"tracker/store/storetest"
	"tracker/worker/workertest"
)

// TestImportsAreFindableByOrg: two orgs each import a document; listing
// workflows through the visibility API with the query an admin types in
// the Temporal UI finds exactly that org's import, with its summary, and
// its TrackerStatus follows the import to completed.
func TestImportsAreFindableByOrg(t *testing.T) {
	t.Parallel()
	db, url := storetest.NewWithURL(t)
	srv := workertest.Start(t)
	s := newStack(t, url, srv, nil)
	s.run("dev")
	c := srv.Client(t)

	type imp struct {
		org uuid.UUID
		id  string
	}
	var imps []imp
	for i, name := range []string{"alpha", "beta"} {
		u := s.register(name)
		if _, err := exportseed.Seed(context.Background(), db, u.OrgID, u.ID, exportseed.Options{Projects: 1,
			TicketsPerProject: 3 + i}); err != nil {
			t.Fatal(err)
		}
		doc := s.must(200, "GET", "/export?org_id="+u.OrgID.String(), u.Token, nil).Body
		target := uuid.MustParse(s.must(201, "POST", "/orgs", u.Token, map[string]any{"name": "Target " + name,
			"slug": "target-" + uuid.NewString()[:8]}).m(t)["id"].(string))
		r := s.importRaw("/import?org_id="+target.String(), u.Token, doc)
		if r.Status != 200 && r.Status != 202 {
			t.Fatalf("POST /import: %d %s", r.Status, r.Body)
		}
		imps = append(imps, imp{org: target, id: r.m(t)["import_id"].(string)})
	}

	list := func(query string) *workflowservice.ListWorkflowExecutionsResponse {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		res, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
		if err != nil {
			t.Fatalf("list %q: %v", query, err)
		}
		return res
	}
	for _, im := range imps {
		query := fmt.Sprintf("TrackerOrgId = '%s' AND TrackerJobKind = 'import'", im.org)
		var found []string
		waitFor(t, 30*time.Second, "the import in the visibility store", func() bool {
			found = nil
			for _, e := range list(query).GetExecutions() {
				found = append(found, e.GetExecution().GetWorkflowId())
			}
			return len(found) > 0
		})
		if len(found) != 1 || found[0] != "import:"+im.id {
			t.Fatalf("%s found %v, want exactly import:%s", query, found, im.id)
		}
		waitFor(t, 60*time.Second, "TrackerStatus completed", func() bool {
			return len(list(query+" AND TrackerStatus = 'completed'").GetExecutions()) == 1
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d, err := c.DescribeWorkflowExecution(ctx, found[0], "")
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		var summary string
		if p := d.GetExecutionConfig().GetUserMetadata().GetSummary(); p != nil {
			_ = converter.GetDefaultDataConverter().FromPayload(p, &summary)
		}
		if want := "into Target "; !strings.Contains(summary, want) || !strings.Contains(summary, " tickets") {
			t.Errorf("summary %q, want the source, %q… and the ticket count", summary, want)
		}
	}
	// The other kinds are not imports.
	if n := len(list("TrackerJobKind = 'import'").GetExecutions()); n != len(imps) {
		t.Fatalf("%d imports listed, want %d", n, len(imps))
	}
}
