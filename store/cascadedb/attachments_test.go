package cascadedb

import (
	"context"
	"encoding/json"
	"sort"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/attachmentdb"
	"tracker/store/storetest"
)

// TestPurgeRemovesAttachments: a project purge deletes its tickets'
// attachment rows and, in the same statements, enqueues outbox jobs naming
// every object key; other projects' attachments stay.
func TestPurgeRemovesAttachments(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	org, user := newOrg(t, db)
	label := newLabel(t, db, org)
	a := newTree(t, db, org, user, label, "AAA", 12)
	b := newTree(t, db, org, user, label, "BBB", 2)
	attach := func(tr tree, ticket uuid.UUID, i int) string {
		key := "org/" + org.String() + "/tickets/" + ticket.String() + "/" + domain.NewID().String() + "/f.txt"
		exec(t, db.Q(), `INSERT INTO attachments (id, org_id, ticket_id, filename, content_type, size_bytes, storage_key, uploaded_by)
			VALUES ($1, $2, $3, 'f.txt', 'text/plain', $4, $5, $6)`, domain.NewID(), org, ticket, i+1, key, user)
		return key
	}
	var want []string
	for i, ticket := range a.Tickets {
		want = append(want, attach(a, ticket, i))
	}
	kept := attach(b, b.Tickets[0], 0)
	softDelete(t, db, "projects", a.ProjectID)
	purge(t, db, Root{OrgID: org, Type: "project", ID: a.ProjectID})

	if n := scalar(t, db, `SELECT count(*) FROM attachments WHERE org_id = $1`, org); n != 1 {
		t.Fatalf("%d attachment rows left, want only the other project's", n)
	}
	if n := scalar(t, db, `SELECT count(*) FROM tickets WHERE project_id = $1 AND id <> $2`, a.ProjectID, a.Approved); n != 0 {
		t.Fatalf("%d tickets kept", n)
	}
	rows, err := db.Q().Query(context.Background(), `SELECT payload FROM outbox WHERE org_id = $1 AND topic = $2`, org, attachmentdb.TopicDeleteObjects)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var raw []byte
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var job attachmentdb.DeleteJob
		if err := json.Unmarshal(raw, &job); err != nil || job.OrgID != org {
			t.Fatalf("job %s: %v", raw, err)
		}
		got = append(got, job.Keys...)
	}
	sort.Strings(got)
	sort.Strings(want)
	if len(got) != len(want) {
		t.Fatalf("jobs name %d keys, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] || got[i] == kept {
			t.Fatalf("keys %v, want %v", got, want)
		}
	}
}
