package cascadeact

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	tlog "go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"tracker/domain"
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
	org, user, project, ticket := domain.NewID(), domain.NewID(), domain.NewID(), domain.NewID()
	for _, s := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, []any{org, org.String()}},
		{`INSERT INTO users (id, email, display_name) VALUES ($1, $2, 'u')`, []any{user, user.String() + "@x.test"}},
		{`INSERT INTO projects (id, org_id, key, name, deleted_at) VALUES ($1, $2, 'ZZ', 'p', now())`, []any{project, org}},
		{`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id)
			VALUES ($1, $2, $3, 1, 't', 'Todo', $4)`, []any{ticket, org, project, user}},
		{`INSERT INTO comments (id, org_id, ticket_id, author_id, body)
			SELECT gen_random_uuid(), $1, $2, $3, 'b' FROM generate_series(1, 12)`, []any{org, ticket, user}},
	} {
		if _, err := db.Q().Exec(ctx, s.sql, s.args...); err != nil {
			t.Fatalf("%s: %v", s.sql, err)
		}
	}
	job := domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project}
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
	org, user, project, other := domain.NewID(), domain.NewID(), domain.NewID(), domain.NewID()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Q().Exec(ctx, sql, args...); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec(`INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, org, org.String())
	exec(`INSERT INTO users (id, email, display_name) VALUES ($1, $2, 'u')`, user, user.String()+"@x.test")
	exec(`INSERT INTO projects (id, org_id, key, name, deleted_at) VALUES ($1, $2, 'ZZ', 'p', now())`, project, org)
	exec(`INSERT INTO projects (id, org_id, key, name) VALUES ($1, $2, 'YY', 'q')`, other, org)
	// 1 purged ticket with a comment; 11 comments in a live project reply to it.
	purged, kept := domain.NewID(), domain.NewID()
	exec(`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id) VALUES ($1, $2, $3, 1, 't', 'Todo', $4)`,
		purged, org, project, user)
	exec(`INSERT INTO tickets (id, org_id, project_id, ticket_number, title, status, reporter_id) VALUES ($1, $2, $3, 1, 't', 'Todo', $4)`,
		kept, org, other, user)
	parent := domain.NewID()
	exec(`INSERT INTO comments (id, org_id, ticket_id, author_id, body) VALUES ($1, $2, $3, $4, 'p')`, parent, org, purged, user)
	exec(`INSERT INTO comments (id, org_id, ticket_id, author_id, body, parent_comment_id)
		SELECT gen_random_uuid(), $1, $2, $3, 'r', $4 FROM generate_series(1, 11)`, org, kept, user, parent)

	a := &Activities{DB: db, BatchSize: 4}
	env := newActivityEnv()
	env.RegisterActivity(a)
	v, err := env.ExecuteActivity(a.PurgeCascadeStep, CascadeStepInput{
		Job:  domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project},
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
	ctx := context.Background()
	org, project := domain.NewID(), domain.NewID()
	if _, err := db.Q().Exec(ctx, `INSERT INTO organizations (id, name, slug) VALUES ($1, 'o', $2)`, org, org.String()); err != nil {
		t.Fatal(err)
	}
	for _, sql := range []string{
		`INSERT INTO projects (id, org_id, key, name) VALUES ($2, $1, 'K', 'p')`,
		`INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date)
		 SELECT gen_random_uuid(), $1, $2, 's', '2025-01-01', '2025-01-02' FROM generate_series(1, 25)`,
	} {
		if _, err := db.Q().Exec(ctx, sql, org, project); err != nil {
			t.Fatal(err)
		}
	}
	c := &Activities{DB: db, BatchSize: 10}
	env := newActivityEnv()
	env.RegisterActivity(c)
	job := domain.CascadeJob{OrgID: org, EntityType: "project", EntityID: project}

	_, err := env.ExecuteActivity(c.CheckCascade, job)
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) || ae.Type() != ErrTypeCascadeRootLive || !ae.NonRetryable() {
		t.Fatalf("live root: %v", err)
	}
	if _, err := db.Q().Exec(ctx, `UPDATE projects SET deleted_at = now() WHERE id = $1`, project); err != nil {
		t.Fatal(err)
	}
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
	if _, err := db.Q().Exec(ctx, `INSERT INTO sprints (id, org_id, project_id, name, start_date, end_date)
		SELECT gen_random_uuid(), $1, $2, 's', '2025-01-01', '2025-01-02' FROM generate_series(1, 25)`, org, project); err != nil {
		t.Fatal(err)
	}
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
