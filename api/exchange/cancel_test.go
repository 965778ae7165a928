package exchange_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
	"tracker/domain/exchange/importer"
)

// An Admin lists an org's imports and cancels one in the middle: it stops
// after the batch under way (here: after two batches of 5), keeps what it
// imported, and importing the same document again completes the import
// with nothing duplicated.
func TestImportsListAndCancel(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 2, TicketsPerProject: 12, CommentsPerTicket: 1, EntriesPerTicket: 1})
	raw, _ := f.exportJSON(t, f.a, f.owner.Token)
	r := f.env.Do("POST", "/api/v1/import?org_id="+f.b.String(), f.owner.Token, raw).Expect(t, 202)
	var sub struct {
		ImportID uuid.UUID `json:"import_id"`
	}
	r.Decode(t, &sub)
	id := sub.ImportID
	ctx := context.Background()
	// Stage, catalog and two batches run; then the Admin cancels.
	steps := []func(context.Context, uuid.UUID) (importer.Step, error){f.runner.Stage, f.runner.Catalog, f.runner.Batch, f.runner.Batch}
	for _, step := range steps {
		if _, err := step(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	admin := f.env.Member(f.owner, "admin") // Admin of org A only
	f.env.Do("POST", "/api/v1/imports/"+id.String()+"/cancel", admin.Token, nil).Expect(t, 404)
	member := f.env.Do("POST", "/api/v1/imports/"+id.String()+"/cancel", f.owner.Token, nil).Expect(t, 200)
	var st importer.Status
	member.Decode(t, &st)
	if st.Status != "cancelled" || st.Summary.TicketsCreated != 10 || st.FinishedAt == nil {
		t.Fatalf("cancelled import %+v", st)
	}
	// The workflow's next steps find it cancelled and do nothing.
	for _, step := range []func(context.Context, uuid.UUID) (importer.Step, error){f.runner.Batch, f.runner.Finish} {
		got, err := step(ctx, id)
		if err != nil || !got.Stopped() || got.Counts.TicketsCreated != 10 {
			t.Fatalf("step after cancel: %+v %v", got, err)
		}
	}
	again := f.env.Do("POST", "/api/v1/imports/"+id.String()+"/cancel", f.owner.Token, nil).Expect(t, 409)
	if !strings.Contains(again.Error().Message, "cancelled") {
		t.Fatalf("second cancel: %s", again.Body)
	}
	var tickets int
	_ = f.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM tickets WHERE org_id = $1`, f.b).Scan(&tickets)
	if tickets != 10 {
		t.Fatalf("%d tickets after the cancel, want 10", tickets)
	}

	// The same document again completes it: the 10 are skipped, 14 created.
	done := f.importInto(t, f.b, raw)
	if done.Summary.TicketsCreated != 14 || done.Progress.TicketsSkipped != 10 {
		t.Fatalf("re-import %+v", done)
	}
	_ = f.env.DB.Pool.QueryRow(ctx, `SELECT count(*) FROM tickets WHERE org_id = $1`, f.b).Scan(&tickets)
	if tickets != f.seeded.Tickets {
		t.Fatalf("%d tickets, want %d", tickets, f.seeded.Tickets)
	}

	// The list: both imports of org B, oldest first, paginated.
	var page struct {
		Items      []importer.Status `json:"items"`
		NextCursor *string           `json:"next_cursor"`
	}
	f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/imports?limit=1", f.owner.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != id || page.Items[0].Status != "cancelled" || page.NextCursor == nil {
		t.Fatalf("first page %+v", page)
	}
	f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/imports?limit=1&cursor="+*page.NextCursor, f.owner.Token, nil).Expect(t, 200).Decode(t, &page)
	if len(page.Items) != 1 || page.Items[0].ID != done.ID || page.Items[0].Status != "completed" {
		t.Fatalf("second page %+v", page)
	}
	viewer := f.env.Member(f.owner, "viewer")
	f.env.Do("GET", "/api/v1/orgs/"+f.a.String()+"/imports", viewer.Token, nil).Expect(t, 403)
	f.env.Do("GET", "/api/v1/orgs/"+f.b.String()+"/imports", viewer.Token, nil).Expect(t, 404)
	f.env.Do("GET", "/api/v1/orgs/"+uuid.NewString()+"/imports", f.owner.Token, nil).Expect(t, 404)
}
