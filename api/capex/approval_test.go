package capex_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/capex"
)

// TestFourEyesClose turns on the second approver and walks a close through
// request, refusals, reject, a stale snapshot and approval: the requester
// and a Member cannot approve, a reject leaves the month open, and once a
// second Admin approves the month is Closed and never changes.
func TestFourEyesClose(t *testing.T) {
	t.Parallel()
	w := setup(t)
	org := w.owner.OrgID
	admin2 := w.env.Member(w.owner, "admin")
	submitted := w.entry(t, w.ann, w.coreT, "2026-03-21", 15, "Coding", "Submitted")
	w.env.Do("POST", "/api/v1/orgs/"+org.String()+"/capitalization/policies", w.admin.Token,
		map[string]any{"framework": "asc_350_40_stages", "effective_from": "2026-01"}).Expect(t, 201)

	w.env.Do("PUT", w.periodsPath("/settings"), w.member.Token, map[string]any{"require_second_approver": true}).Expect(t, 403)
	w.env.Do("PUT", w.periodsPath("/settings"), w.admin.Token, map[string]any{"require_second_approver": "yes"}).Expect(t, 422)
	set := w.env.Do("PUT", w.periodsPath("/settings"), w.admin.Token, map[string]any{"require_second_approver": true}).Expect(t, 200).Map(t)
	if set["require_second_approver"] != true || set["auto_close"] != false {
		t.Fatalf("settings %v", set)
	}
	status := func() capex.PeriodState {
		var ps capex.Periods
		w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
		if !ps.RequireSecondApprover {
			t.Fatalf("periods lost the setting: %+v", ps)
		}
		return ps.Periods[0]
	}
	csvOf := func() []byte {
		return w.env.Do("GET", "/api/v1/reports/capitalization/export?"+q("period", "2026-03"), w.owner.Token, nil).Expect(t, 200).Body
	}
	shaOf := func(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

	// The first request is rejected: the month is open again.
	var cl capex.CloseInfo
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201).Decode(t, &cl)
	if cl.Status != "pending_approval" || cl.RequestedBy == nil || *cl.RequestedBy != w.admin.ID || cl.SHA256 != shaOf(csvOf()) {
		t.Fatalf("pending close %+v", cl)
	}
	if st := status(); st.Status != "PendingApproval" || st.Close == nil || st.Close.ID != cl.ID {
		t.Fatalf("period while pending: %+v", st)
	}
	if r := w.env.Do("POST", "/api/v1/time-entries/"+submitted.String()+"/approve", w.admin.Token, nil).Expect(t, 409); !strings.Contains(r.Error().Message, "pending approval") {
		t.Fatalf("write while pending: %s", r.Body)
	}
	w.env.Do("POST", w.periodsPath("/2026-03/close"), admin2.Token, nil).Expect(t, 409)
	if r := w.env.Do("POST", "/api/v1/orgs/"+org.String()+"/capitalization/policies", w.admin.Token,
		map[string]any{"framework": "ias_38", "effective_from": "2026-03"}).Expect(t, 409); !strings.Contains(r.Error().Message, "pending approval") {
		t.Fatalf("policy in a pending month: %s", r.Body)
	}
	if r := w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), w.admin.Token, nil).Expect(t, 403); !strings.Contains(r.Error().Message, "requested") {
		t.Fatalf("requester approving: %s", r.Body)
	}
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), w.member.Token, nil).Expect(t, 403)
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), w.outsider.Token, nil).Expect(t, 404)
	w.env.Do("POST", w.periodsPath("/2026-03/close/reject"), w.member.Token, map[string]any{"reason": "no"}).Expect(t, 403)
	w.env.Do("POST", w.periodsPath("/2026-03/close/reject"), admin2.Token, map[string]any{"reason": " "}).Expect(t, 422)
	var rej capex.CloseInfo
	w.env.Do("POST", w.periodsPath("/2026-03/close/reject"), admin2.Token, map[string]any{"reason": "missing approvals"}).Expect(t, 200).Decode(t, &rej)
	if rej.Status != "rejected" || rej.RejectedBy == nil || *rej.RejectedBy != admin2.ID || rej.RejectReason == nil || *rej.RejectReason != "missing approvals" {
		t.Fatalf("rejected %+v", rej)
	}
	if st := status(); st.Status != "Open" || st.Close != nil || len(st.History) != 1 || st.History[0].Status != "rejected" {
		t.Fatalf("period after reject: %+v", st)
	}
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), admin2.Token, nil).Expect(t, 409)
	// Open again: the entry can be approved.
	w.env.Do("POST", "/api/v1/time-entries/"+submitted.String()+"/approve", w.admin.Token, nil).Expect(t, 200)

	// The second request goes stale (a phase change rewrites the month):
	// approving it is a 409 until the month is back as it was seen.
	csvBefore := csvOf()
	w.env.Do("POST", w.periodsPath("/2026-03/close"), w.admin.Token, nil).Expect(t, 201).Decode(t, &cl)
	if cl.SHA256 != shaOf(csvBefore) || cl.Entries != 6 {
		t.Fatalf("second request %+v", cl)
	}
	ctx := context.Background()
	phase := func(ph string) {
		if _, err := w.env.DB.Pool.Exec(ctx, `UPDATE projects SET development_phase = $2 WHERE id = $1`, w.core, ph); err != nil {
			t.Fatal(err)
		}
	}
	phase("Preliminary")
	if r := w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), admin2.Token, nil).Expect(t, 409); !strings.Contains(r.Error().Message, "close the month again") {
		t.Fatalf("stale approve: %s", r.Body)
	}
	if st := status(); st.Status != "PendingApproval" {
		t.Fatalf("a refused approval changed the close: %+v", st)
	}
	phase("ApplicationDevelopment")
	var ok capex.CloseInfo
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), w.owner.Token, nil).Expect(t, 200).Decode(t, &ok)
	if ok.Status != "closed" || ok.ApprovedBy == nil || *ok.ApprovedBy != w.owner.ID || ok.RequestedBy == nil || *ok.RequestedBy != w.admin.ID || ok.SHA256 != cl.SHA256 {
		t.Fatalf("approved %+v", ok)
	}
	if st := status(); st.Status != "Closed" || st.Close == nil || st.Close.ID != cl.ID || st.Close.ApprovedBy == nil {
		t.Fatalf("period after approve: %+v", st)
	}
	// The snapshot names both people and the policy version.
	var doc struct {
		RequestedBy string `json:"requested_by"`
		ApprovedBy  string `json:"approved_by"`
		Policy      struct {
			Version int64 `json:"version"`
		} `json:"policy"`
	}
	var js []byte
	if err := w.env.DB.Pool.QueryRow(ctx, `SELECT snapshot FROM period_closes WHERE id = $1`, cl.ID).Scan(&js); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(js, &doc); err != nil || doc.RequestedBy != w.admin.ID.String() || doc.ApprovedBy != w.owner.ID.String() || doc.Policy.Version != 1 {
		t.Fatalf("snapshot %s", js)
	}

	// Closed for good: approving or rejecting again is a 409, writes are
	// refused as in any closed month, and later changes leave it alone.
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), admin2.Token, nil).Expect(t, 409)
	w.env.Do("POST", w.periodsPath("/2026-03/close/reject"), admin2.Token, map[string]any{"reason": "late"}).Expect(t, 409)
	if r := w.env.Do("POST", "/api/v1/time-entries", w.ann.Token, map[string]any{"user_id": w.ann.ID, "ticket_id": w.coreT.ID,
		"project_id": w.core, "date": "2026-03-30", "duration_minutes": 30, "activity_type": "Coding"}).Expect(t, 409); !strings.Contains(r.Error().Message, "is closed") {
		t.Fatalf("write into the closed month: %s", r.Body)
	}
	phase("Preliminary")
	if got := csvOf(); string(got) != string(csvBefore) {
		t.Fatalf("closed month changed:\n%s\nwant\n%s", got, csvBefore)
	}

	var actions []string
	rows, err := w.env.DB.Pool.Query(ctx, `SELECT action FROM audit_log WHERE org_id = $1 AND entity_type = 'period' ORDER BY action`, org)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var a string
		_ = rows.Scan(&a)
		actions = append(actions, a)
	}
	rows.Close()
	if strings.Join(actions, ",") != "close_rejected,close_requested,close_requested,closed" {
		t.Fatalf("audit %v", actions)
	}
}

// TestScheduledFourEyesClose: with both settings on, the monthly run makes
// a pending close without a requester, a later run leaves it pending, and
// any Admin may approve it.
func TestScheduledFourEyesClose(t *testing.T) {
	t.Parallel()
	w := setup(t)
	ctx := context.Background()
	w.env.Do("PUT", w.periodsPath("/settings"), w.admin.Token, map[string]any{"auto_close": true, "require_second_approver": true}).Expect(t, 200)
	for range 2 {
		job := capex.ExportJob{ExportID: uuid.New(), OrgID: w.owner.OrgID, Period: "2026-03", Trigger: capex.TriggerSchedule}
		if _, err := w.run.svc.RunExport(ctx, job); err != nil {
			t.Fatal(err)
		}
	}
	var ps capex.Periods
	w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
	if st := ps.Periods[0]; st.Status != "PendingApproval" || st.Close == nil || st.Close.ClosedBy != nil || len(st.History) != 0 {
		t.Fatalf("after the Schedule: %+v", st)
	}
	var ok capex.CloseInfo
	w.env.Do("POST", w.periodsPath("/2026-03/close/approve"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ok)
	if ok.Status != "closed" || ok.ApprovedBy == nil || *ok.ApprovedBy != w.admin.ID {
		t.Fatalf("approved %+v", ok)
	}
	w.env.Do("GET", w.periodsPath("?from=2026-03&to=2026-03"), w.admin.Token, nil).Expect(t, 200).Decode(t, &ps)
	if ps.Periods[0].Status != "Closed" {
		t.Fatalf("after approval: %+v", ps.Periods[0])
	}
}
