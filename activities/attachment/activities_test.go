package attachmentact_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/testsuite"

	acts "tracker/activities/attachment"
	"tracker/domain"
	"tracker/domain/attachment"
	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
	"tracker/store/storetest"
)

// TestActivitiesInTheActivityEnvironment runs both activities under their
// registered names, as the workflows call them: a delete job removes its
// objects and, run again (a retry), finds nothing and succeeds; a sweep page
// past the cutoff removes an object no attachment row records and reports it.
func TestActivitiesInTheActivityEnvironment(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	objects := objectstoretest.NewLocal(t, "http://127.0.0.1", time.Now)
	svc := attachment.New(storetest.New(t), objects, domain.SystemClock{}, 0)
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivityWithOptions(&acts.Activities{Attachments: svc}, activity.RegisterOptions{Name: acts.Prefix})
	put := func(key string) {
		t.Helper()
		if err := objects.Write(key, "text/plain", 3, strings.NewReader("abc")); err != nil {
			t.Fatalf("write %s: %v", key, err)
		}
	}
	gone := func(key string) bool {
		_, err := objects.Head(ctx, key)
		return errors.Is(err, objectstore.ErrNotFound)
	}

	keys := []string{attachment.KeyRoot + "a/1.txt", attachment.KeyRoot + "a/2.txt"}
	for _, k := range keys {
		put(k)
	}
	for run := 1; run <= 2; run++ {
		if _, err := env.ExecuteActivity(acts.DeleteObjectsName, attachment.DeleteJob{Keys: keys}); err != nil {
			t.Fatalf("delete run %d: %v", run, err)
		}
	}
	for _, k := range keys {
		if !gone(k) {
			t.Errorf("%s kept after the delete job", k)
		}
	}

	orphan := attachment.KeyRoot + "b/orphan.txt"
	put(orphan)
	v, err := env.ExecuteActivity(acts.SweepPageName, acts.SweepInput{Cutoff: time.Now().Add(time.Minute), Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	var page attachment.SweepPage
	if err := v.Get(&page); err != nil {
		t.Fatal(err)
	}
	if page.Deleted != 1 || page.Next != "" || !gone(orphan) {
		t.Fatalf("sweep page %+v, orphan gone %v; want 1 deleted, the listing ended, the orphan gone", page, gone(orphan))
	}
}
