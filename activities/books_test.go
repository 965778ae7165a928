package activities

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/store/storetest"
	"tracker/store/webhookdb"
)

func TestBlocked(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"0.0.0.0": true, "100.64.0.1": true, "::1": true, "fc00::1": true, "fe80::1": true, "::ffff:127.0.0.1": true,
		"::": true, "224.0.0.1": true, "8.8.8.8": false, "93.184.216.34": false, "2606:4700::1111": false,
	} {
		if got := Blocked(netip.MustParseAddr(s)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", s, got, want)
		}
	}
}

func TestWebhookBooks(t *testing.T) {
	t.Parallel()
	db := storetest.New(t)
	f := setupHook(t, db, "http://127.0.0.1:1/")
	a := &Webhooks{DB: db}
	env := newActivityEnv()
	env.RegisterActivity(a)
	ctx := context.Background()

	// A lost attempt is recorded once, and closes a row left open.
	lost := LostAttemptInput{Attempt: f.input(3), Reason: "attempt lost: worker stopped"}
	for i := 0; i < 2; i++ {
		if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, lost); err != nil {
			t.Fatal(err)
		}
	}
	open, err := webhookdb.StartAttempt(ctx, db.Q(), f.input(4).row())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, LostAttemptInput{Attempt: f.input(4), Reason: "lost"}); err != nil {
		t.Fatal(err)
	}
	ds := deliveries(t, f)
	if len(ds) != 2 || ds[0].Attempt != 3 || *ds[0].Error != lost.Reason || ds[0].FinishedAt == nil ||
		ds[1].ID != open.ID || ds[1].FinishedAt == nil {
		t.Fatalf("rows %+v", ds)
	}

	// Exhausted deliveries count up; the threshold switches the webhook off.
	ref := WebhookRef{OrgID: f.org, WebhookID: f.hook.ID}
	for i := 1; i <= webhook.AutoDisableAfter; i++ {
		v, err := env.ExecuteActivity(a.RecordWebhookExhausted, ref)
		if err != nil {
			t.Fatal(err)
		}
		var r ExhaustedResult
		_ = v.Get(&r)
		if r.ConsecutiveFailures != i || r.Disabled != (i == webhook.AutoDisableAfter) {
			t.Fatalf("after %d: %+v", i, r)
		}
	}
	w, _ := webhookdb.Get(ctx, db.Q(), f.org, f.hook.ID)
	if w.Active || w.DisabledReason == nil || !strings.Contains(*w.DisabledReason, "in a row") || w.FailingSince == nil {
		t.Fatalf("webhook %+v", w)
	}

	// A webhook deleted while its delivery runs leaves nothing to record.
	if _, err := webhookdb.Delete(ctx, db.Q(), f.org, f.hook.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(a.RecordLostWebhookAttempt, LostAttemptInput{Attempt: f.input(5), Reason: "lost"}); err != nil {
		t.Fatalf("lost attempt of a deleted webhook: %v", err)
	}
	if _, err := env.ExecuteActivity(a.RecordWebhookExhausted, ref); err != nil {
		t.Fatalf("exhausted delivery of a deleted webhook: %v", err)
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
	c := &Cascade{DB: db, BatchSize: 10}
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
