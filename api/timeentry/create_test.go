package timeentry_test

import (
	"strings"
	"testing"

	"github.com/google/uuid"

	"tracker/domain/timeentry"
)

func TestCreate(t *testing.T) {
	t.Parallel()
	w := setup(t)

	t.Run("201", func(t *testing.T) {
		e := w.create(t, w.member, nil)
		if e.Status != "Draft" || e.UserID != w.member.ID || e.TicketID != w.ticket || e.ProjectID != w.project ||
			e.DurationMinutes != 90 || e.ActivityType != "Coding" || e.Date.String() != today(0) || e.ApprovedBy != nil || e.ApprovedAt != nil {
			t.Fatalf("created entry: %+v", e)
		}
		var got timeentry.Entry
		w.do("GET", entryPath(e, ""), w.viewer, nil).Expect(t, 200).Decode(t, &got)
		if got.ID != e.ID || got.Description == nil || *got.Description != "work" {
			t.Fatalf("read back: %+v", got)
		}
		raw := w.do("GET", entryPath(e, ""), w.member, nil).Map(t)
		for _, k := range []string{"id", "user_id", "ticket_id", "project_id", "date", "duration_minutes", "description",
			"activity_type", "status", "approved_by", "approved_at", "created_at", "updated_at"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("field %s missing in %v", k, raw)
			}
		}
	})
	t.Run("201 limits and every activity type", func(t *testing.T) {
		for _, a := range timeentry.ActivityTypes {
			w.create(t, w.member, map[string]any{"activity_type": a, "duration_minutes": 1})
		}
		w.create(t, w.member, map[string]any{"duration_minutes": 1440, "date": today(1), "description": nil})
		w.create(t, w.member, map[string]any{"date": "2020-02-29"})
	})
	t.Run("201 an Admin logs time for another member", func(t *testing.T) {
		e := w.create(t, w.admin, map[string]any{"user_id": w.member2.ID})
		if e.UserID != w.member2.ID {
			t.Fatalf("user_id %s", e.UserID)
		}
	})

	t.Run("422 a value of the wrong type is named by its member alone", func(t *testing.T) {
		r := w.do("POST", "/api/v1/time-entries", w.member, w.body(w.member, map[string]any{"description": 5})).Expect(t, 422)
		if d := r.Error().Details; len(d) != 1 || d[0] != "description: must be a string" {
			t.Fatalf("create details %q", d)
		}
		r = w.do("PATCH", entryPath(w.create(t, w.member, nil), ""), w.member, map[string]any{"duration_minutes": "x"}).Expect(t, 422)
		if d := r.Error().Details; len(d) != 1 || d[0] != "duration_minutes: must be an integer" {
			t.Fatalf("patch details %q", d)
		}
	})
	t.Run("422", func(t *testing.T) {
		tests := []struct {
			name   string
			over   map[string]any
			detail string
		}{
			{"missing user_id", map[string]any{"user_id": nil}, "user_id: required"},
			{"missing ticket_id", map[string]any{"ticket_id": nil}, "ticket_id: required"},
			{"missing duration", map[string]any{"duration_minutes": nil}, "duration_minutes: required"},
			{"missing date", map[string]any{"date": nil}, "date: required"},
			{"missing activity", map[string]any{"activity_type": nil}, "activity_type: required"},
			{"zero minutes", map[string]any{"duration_minutes": 0}, "duration_minutes: must be between 1 and 1440"},
			{"negative minutes", map[string]any{"duration_minutes": -5}, "duration_minutes: must be between 1 and 1440"},
			{"more than a day", map[string]any{"duration_minutes": 1441}, "duration_minutes: must be between 1 and 1440"},
			{"fractional minutes", map[string]any{"duration_minutes": 1.5}, "duration_minutes: must be an integer"},
			{"two days ahead", map[string]any{"date": today(2)}, "date: must not be more than 1 day in the future"},
			{"not a date", map[string]any{"date": "03/01/2026"}, "date: must be a date in the form YYYY-MM-DD"},
			{"impossible date", map[string]any{"date": "2026-02-30"}, "date: must be a date in the form YYYY-MM-DD"},
			{"unknown activity", map[string]any{"activity_type": "Lunch"}, "activity_type: must be one of"},
			{"lower-case activity", map[string]any{"activity_type": "coding"}, "activity_type: must be one of"},
			{"ticket of another project", map[string]any{"ticket_id": w.otherTk}, "ticket_id: the ticket does not belong to project_id"},
			{"unknown ticket", map[string]any{"ticket_id": uuid.New()}, "ticket_id: no such ticket"},
			{"user_id not a uuid", map[string]any{"user_id": "nope"}, "UUID"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				r := w.do("POST", "/api/v1/time-entries", w.member, w.body(w.member, tt.over)).Expect(t, 422)
				if r.ErrorCode() != "VALIDATION_ERROR" || !strings.Contains(strings.Join(r.Error().Details, "|"), tt.detail) {
					t.Fatalf("error %+v, want detail %q", r.Error(), tt.detail)
				}
			})
		}
		t.Run("an Admin logs for a non-member", func(t *testing.T) {
			r := w.do("POST", "/api/v1/time-entries", w.admin, w.body(w.outsider, nil)).Expect(t, 422)
			if !strings.Contains(strings.Join(r.Error().Details, "|"), "user_id: not a member") {
				t.Fatalf("error %+v", r.Error())
			}
		})
		t.Run("ticket of another org", func(t *testing.T) {
			foreign := w.newProject(t, w.outsider.OrgID, "FOR")
			tk := w.newTicket(t, foreign, w.outsider)
			w.do("POST", "/api/v1/time-entries", w.member, w.body(w.member, map[string]any{"ticket_id": tk})).Expect(t, 422)
		})
	})

	t.Run("403", func(t *testing.T) {
		tests := []struct {
			name string
			as   func() (string, map[string]any)
			msg  string
		}{
			{"Viewer", func() (string, map[string]any) { return w.viewer.Token, w.body(w.viewer, nil) }, "Member"},
			{"Reporter", func() (string, map[string]any) { return w.reporter.Token, w.body(w.reporter, nil) }, "Reporter"},
			{"Member for another user", func() (string, map[string]any) { return w.member.Token, w.body(w.member2, nil) }, "Admin"},
			{"read-only API key", func() (string, map[string]any) {
				return w.env.APIKey(w.member, []string{"read"}), w.body(w.member, nil)
			}, "read scope"},
			{"write API key of an Admin logs for another", func() (string, map[string]any) {
				return w.env.APIKey(w.admin, []string{"read", "write"}), w.body(w.member, nil)
			}, "Admin"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tok, b := tt.as()
				r := w.env.Do("POST", "/api/v1/time-entries", tok, b).Expect(t, 403)
				if r.ErrorCode() != "FORBIDDEN" || !strings.Contains(r.Error().Message, tt.msg) {
					t.Fatalf("error %+v, want message naming %q", r.Error(), tt.msg)
				}
			})
		}
	})

	t.Run("404", func(t *testing.T) {
		w.do("POST", "/api/v1/time-entries", w.outsider, w.body(w.outsider, nil)).Expect(t, 404)
		w.do("POST", "/api/v1/time-entries", w.member, w.body(w.member, map[string]any{"project_id": uuid.New()})).Expect(t, 404)
		w.env.Exec(t, "UPDATE projects SET deleted_at = now() WHERE id = $1", w.other)
		w.do("POST", "/api/v1/time-entries", w.member, w.body(w.member, map[string]any{"project_id": w.other, "ticket_id": w.otherTk})).Expect(t, 404)
	})

	t.Run("401", func(t *testing.T) {
		w.env.Do("POST", "/api/v1/time-entries", "", w.body(w.member, nil)).Expect(t, 401)
	})
	t.Run("400 malformed JSON", func(t *testing.T) {
		w.do("POST", "/api/v1/time-entries", w.member, "{not json").Expect(t, 400)
	})
}
