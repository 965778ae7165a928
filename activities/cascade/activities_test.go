package cascadeact

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/google/uuid"
	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"tracker/domain"
	"tracker/domain/testfactory"
	"tracker/store/cascadedb"
	"tracker/store/storetest"
)

// TestPurgeStepAttemptsBesideAZombieLeaveNothing races two activity calls of
// one purge step, as a retried attempt runs beside a zombie one: the zombie
// has deleted a batch and not committed yet when the retry starts. The retry
// must wait for it and then purge the rest; before the root's lock it found
// 0 rows behind the zombie's, reported the step done, and left 7 behind.
func TestPurgeStepAttemptsBesideAZombieLeaveNothing(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	user := testfactory.User(t, db, testfactory.UserOpts{}).ID
	org := testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID
	project := testfactory.Project(t, db, org, testfactory.ProjectOpts{})
	tk := testfactory.Ticket(t, db, project, user, testfactory.TicketOpts{})
	for range 12 {
		testfactory.Comment(t, db, tk, user, testfactory.CommentOpts{})
	}
	testfactory.DeleteProject(t, db, project)
	ticket := tk.ID
	job := domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project.ID}
	in := CascadeStepInput{Job: job, Step: cascadedb.StepComments}

	holding, release := make(chan struct{}), make(chan struct{})
	errZombie := errors.New("zombie attempt stopped")
	batches := 0
	zombie := &Activities{DB: db, BatchSize: 5, inBatch: func(context.Context) error {
		if batches++; batches > 1 {
			return errZombie // it dies after committing one batch
		}
		close(holding)
		<-release
		return nil
	}}
	zombieDone := make(chan error, 1)
	go func() {
		env := newActivityEnv()
		env.RegisterActivity(zombie)
		_, err := env.ExecuteActivity(zombie.PurgeCascadeStep, in)
		zombieDone <- err
	}()
	<-holding // the zombie's first batch is deleted, uncommitted

	retry := &Activities{DB: db, BatchSize: 5}
	type outcome struct {
		res CascadeStepResult
		err error
	}
	retried := make(chan outcome, 1)
	go func() {
		env := newActivityEnv()
		env.RegisterActivity(retry)
		v, err := env.ExecuteActivity(retry.PurgeCascadeStep, in)
		var r CascadeStepResult
		if err == nil {
			err = v.Get(&r)
		}
		retried <- outcome{r, err}
	}()
	// Wait until the retry is blocked behind the zombie's batch.
	deadline := time.Now().Add(30 * time.Second)
	for {
		var waiting int
		if err := db.Q().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
			WHERE datname = current_database() AND wait_event_type = 'Lock'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the retried attempt never waited for the zombie's batch")
		}
		time.Sleep(20 * time.Millisecond)
	}
	close(release)
	if err := <-zombieDone; err == nil {
		t.Fatal("the zombie attempt was meant to fail after its first batch")
	}
	o := <-retried
	if o.err != nil {
		t.Fatalf("retried attempt: %v", o.err)
	}
	var left int
	if err := db.Q().QueryRow(ctx, `SELECT count(*) FROM comments WHERE ticket_id = $1`, ticket).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if !o.res.Done || left != 0 || o.res.Affected != 7 {
		t.Fatalf("retried attempt: done %v after deleting %d; %d comments left, want done with 7 deleted and none left",
			o.res.Done, o.res.Affected, left)
	}
}

// TestPurgeStepsRunInBatches checks that the former single statements
// (detaching replies, tombstoning kept tickets) now work in batches and end
// only when nothing is left to change.
func TestPurgeStepsRunInBatches(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	ctx := context.Background()
	user := testfactory.User(t, db, testfactory.UserOpts{}).ID
	org := testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID
	project := testfactory.Project(t, db, org, testfactory.ProjectOpts{})
	other := testfactory.Project(t, db, org, testfactory.ProjectOpts{})
	// 1 purged ticket with a comment; 11 comments in a live project reply to it.
	purged := testfactory.Ticket(t, db, project, user, testfactory.TicketOpts{})
	kept := testfactory.Ticket(t, db, other, user, testfactory.TicketOpts{})
	parent := testfactory.Comment(t, db, purged, user, testfactory.CommentOpts{Body: "p"}).ID
	for range 11 {
		testfactory.Comment(t, db, kept, user, testfactory.CommentOpts{Body: "r", ParentID: &parent})
	}
	testfactory.DeleteProject(t, db, project)

	a := &Activities{DB: db, BatchSize: 4}
	env := newActivityEnv()
	env.RegisterActivity(a)
	v, err := env.ExecuteActivity(a.PurgeCascadeStep, CascadeStepInput{
		Job:  domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project.ID},
		Step: cascadedb.StepDetachReplies})
	if err != nil {
		t.Fatal(err)
	}
	var r CascadeStepResult
	if err := v.Get(&r); err != nil {
		t.Fatal(err)
	}
	var attached int
	_ = db.Q().QueryRow(ctx, `SELECT count(*) FROM comments WHERE parent_comment_id = $1`, parent).Scan(&attached)
	if !r.Done || r.Affected != 11 || attached != 0 {
		t.Fatalf("detach: done %v, %d changed, %d still attached", r.Done, r.Affected, attached)
	}
}

func TestCascadeActivities(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	org := testfactory.Org(t, db, uuid.Nil, testfactory.OrgOpts{}).ID
	p := testfactory.Project(t, db, org, testfactory.ProjectOpts{})
	project := p.ID
	sprints := func(n int) {
		for range n {
			testfactory.Sprint(t, db, p, testfactory.SprintOpts{})
		}
	}
	sprints(25)
	c := &Activities{DB: db, BatchSize: 10}
	env := newActivityEnv()
	env.RegisterActivity(c)
	job := domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project}

	_, err := env.ExecuteActivity(c.CheckCascade, job)
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrTypeCascadeRootLive || !ae.NonRetryable() {
		t.Fatalf("live root: %v", err)
	}
	testfactory.DeleteProject(t, db, p)
	v, err := env.ExecuteActivity(c.CheckCascade, job)
	if err != nil {
		t.Fatal(err)
	}
	var check CascadeCheck
	_ = v.Get(&check)
	if !check.Proceed || len(check.Steps) == 0 {
		t.Fatalf("check %+v", check)
	}
	v, err = env.ExecuteActivity(c.PurgeCascadeStep, CascadeStepInput{Job: job, Step: "sprints"})
	if err != nil {
		t.Fatal(err)
	}
	var r CascadeStepResult
	_ = v.Get(&r)
	if r.Affected != 25 || !r.Done {
		t.Fatalf("step %+v", r)
	}
	// Within a zero budget, one batch and hand back.
	c.Budget = 1
	sprints(25)
	v, _ = env.ExecuteActivity(c.PurgeCascadeStep, CascadeStepInput{Job: job, Step: "sprints"})
	_ = v.Get(&r)
	if r.Affected != 10 || r.Done {
		t.Fatalf("budgeted step %+v", r)
	}
}

// newActivityEnv is an activity test environment that logs nowhere.
func newActivityEnv() *testsuite.TestActivityEnvironment {
	var s testsuite.WorkflowTestSuite
	s.SetLogger(tlog.NewStructuredLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	return s.NewTestActivityEnvironment()
}
