package exchange_test

import (
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"tracker/api/apitest"
	"tracker/domain/exchange/export/exportseed"
)

// TestImportFinishedNotifiesWhoStartedIt: whoever started an import is
// told once when it completes or fails, in the target org.
func TestImportFinishedNotifiesWhoStartedIt(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	admin := f.env.Register("Admin")
	f.env.AddMember(f.owner, f.b, admin, "admin")
	start := func() uuid.UUID {
		raw, _ := json.Marshal(smallDoc("new-" + uuid.NewString()[:8] + "@example.test"))
		var res struct {
			ImportID uuid.UUID `json:"import_id"`
		}
		f.env.Do("POST", "/api/v1/import?org_id="+f.b.String(), admin.Token, raw).Expect(t, 202).Decode(t, &res)
		return res.ImportID
	}
	told := func() []string {
		var out []string
		rows, err := f.env.DB.Pool.Query(t.Context(), `SELECT excerpt FROM notifications
		    WHERE user_id = $1 AND org_id = $2 AND type = 'import_finished' ORDER BY id`, admin.ID, f.b)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		for rows.Next() {
			var s string
			if err := rows.Scan(&s); err != nil {
				t.Fatal(err)
			}
			out = append(out, s)
		}
		return out
	}
	id := start()
	if _, err := f.runner.RunAll(t.Context(), id); err != nil {
		t.Fatal(err)
	}
	if got := told(); len(got) != 1 || got[0] != "Import from test completed" {
		t.Fatalf("told %q", got)
	}
	// Failing a finished import tells nobody again.
	if err := f.runner.Fail(t.Context(), id, "late"); err != nil {
		t.Fatal(err)
	}
	if got := told(); len(got) != 1 {
		t.Fatalf("told %q after failing a completed import", got)
	}
	if err := f.runner.Fail(t.Context(), start(), "worker gave up"); err != nil {
		t.Fatal(err)
	}
	if got := told(); len(got) != 2 || got[1] != "Import from test failed: worker gave up" {
		t.Fatalf("told %q", got)
	}
	if n := apitest.Scalar[int64](t, f.env, `SELECT count(*) FROM notifications WHERE user_id <> $1`, admin.ID); n != 0 {
		t.Errorf("%d notifications to others", n)
	}
}
