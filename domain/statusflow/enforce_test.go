package statusflow_test

import (
	"strings"
	"testing"

	"tracker/domain"
	"tracker/domain/statusflow"
)

func rules(enforcement string) statusflow.Rules {
	return statusflow.Rules{Name: "Flow", Enforcement: enforcement,
		Statuses: []statusflow.Status{{Name: "Open", Category: "todo"}, {Name: "Doing", Category: "in_progress"},
			{Name: "Done", Category: "done"}},
		Transitions: []statusflow.Transition{{From: "Open", To: "Doing"}, {From: "Doing", To: "Done"}}}
}

func TestCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		enforcement, from, to string
		wantErr, wantWarn     bool
	}{
		{"none", "Open", "Doing", false, false},
		{"none", "Open", "Done", false, false},
		{"warn", "Open", "Doing", false, false},
		{"warn", "Open", "Done", false, true},
		{"strict", "Open", "Doing", false, false},
		{"strict", "Open", "Done", true, false},
		// a status the workflow does not define: 422 under every enforcement
		{"none", "Open", "Nope", true, false},
		{"warn", "Open", "Nope", true, false},
		{"strict", "Open", "Nope", true, false},
		// the same status is an allowed no-op
		{"strict", "Done", "Done", false, false},
		// from a status the workflow no longer defines: any defined status
		{"strict", "Legacy", "Done", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.enforcement+" "+tc.from+"→"+tc.to, func(t *testing.T) {
			m, err := rules(tc.enforcement).Check(tc.from, tc.to)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err %v, want error %v", err, tc.wantErr)
			}
			if err != nil {
				if de := domain.AsError(err); de.Kind != domain.KindValidation {
					t.Fatalf("kind %v", de.Kind)
				}
				return
			}
			if (m.Warning != "") != tc.wantWarn {
				t.Fatalf("warning %q, want %v", m.Warning, tc.wantWarn)
			}
			if m.NoOp != (tc.from == tc.to) {
				t.Fatalf("noop %v", m.NoOp)
			}
		})
	}
}

func TestStrictMessageNamesFromToAndWorkflow(t *testing.T) {
	t.Parallel()
	_, err := rules("strict").Check("Open", "Done")
	msg := domain.AsError(err).Message
	for _, want := range []string{"Open", "Done", "Flow"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("message %q lacks %q", msg, want)
		}
	}
}

func TestStatusCaseInsensitive(t *testing.T) {
	t.Parallel()
	m, err := rules("none").Check("Open", "doing")
	if err != nil || m.To != "Doing" {
		t.Fatalf("%+v %v", m, err)
	}
}

func TestReachableAndOptions(t *testing.T) {
	t.Parallel()
	names := func(ss []statusflow.Status) string {
		var out []string
		for _, s := range ss {
			out = append(out, s.Name)
		}
		return strings.Join(out, ",")
	}
	if got := names(rules("strict").Reachable("Open")); got != "Doing" {
		t.Fatal(got)
	}
	if got := names(rules("warn").Reachable("Open")); got != "Doing" {
		t.Fatal(got)
	}
	if got := names(rules("none").Reachable("Open")); got != "Doing,Done" {
		t.Fatal(got)
	}
	if got := rules("strict").Options("Open"); len(got) != 1 || !got[0].Listed {
		t.Fatalf("%+v", got)
	}
	if got := rules("warn").Options("Open"); len(got) != 2 || !got[0].Listed || got[1].Listed {
		t.Fatalf("%+v", got)
	}
}

func TestParseRules(t *testing.T) {
	t.Parallel()
	r, err := statusflow.ParseRules("W", "", []byte(`[{"name":"A","category":"todo"}]`), []byte(`[{"from":"A","to":"A"}]`))
	if err != nil || r.Enforcement != "none" || len(r.Statuses) != 1 || len(r.Transitions) != 1 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := statusflow.ParseRules("W", "none", []byte(`{`), nil); err == nil {
		t.Fatal("bad json accepted")
	}
}

func TestParseRulesWithoutTransitions(t *testing.T) {
	t.Parallel()
	for _, tr := range [][]byte{nil, {}} {
		r, err := statusflow.ParseRules("W", "strict", []byte(`[{"name":"A","category":"todo"},{"name":"B","category":"done"}]`), tr)
		if err != nil || r.Enforcement != "strict" || len(r.Statuses) != 2 || len(r.Transitions) != 0 || r.Name != "W" {
			t.Fatalf("ParseRules without transitions = %+v, %v", r, err)
		}
		// Nothing is listed: strict refuses every move between defined statuses.
		if _, err := r.Check("A", "B"); err == nil {
			t.Fatal("strict allowed an unlisted move")
		}
	}
	if _, err := statusflow.ParseRules("W", "none", []byte(`[]`), []byte(`{`)); err == nil {
		t.Fatal("bad transitions accepted")
	}
	// A status the workflow no longer defines reaches every status, even under strict.
	r := rules("strict")
	if got := r.Reachable("Legacy"); len(got) != 3 {
		t.Fatalf("Reachable(Legacy) = %+v", got)
	}
	if got := r.Options("Legacy"); len(got) != 3 || got[0].Listed {
		t.Fatalf("Options(Legacy) = %+v", got)
	}
	if got := r.Options("Doing"); len(got) != 1 || got[0].To != "Done" || got[0].Category != "done" || !got[0].Listed {
		t.Fatalf("Options(Doing) = %+v", got)
	}
	if _, err := r.Check("Open", "Nope"); err == nil || !strings.Contains(err.Error(), `"Nope" is not a status of workflow "Flow" (one of Open, Doing, Done)`) {
		t.Fatalf("unknown target: %v", err)
	}
	if m, err := rules("warn").Check("Open", "Done"); err != nil || m.Warning != "transition from Open to Done is not listed in workflow Flow" {
		t.Fatalf("warn: %+v, %v", m, err)
	}
}
