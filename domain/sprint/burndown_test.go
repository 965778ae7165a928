package sprint

import (
	"testing"
	"time"

	"tracker/store/sprintdb"
)

func TestStatusAt(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	day := func(d int) time.Time { return time.Date(2025, 1, d, 0, 0, 0, 0, time.UTC) }
	changes := []sprintdb.StatusChange{
		{At: day(2).Add(10 * time.Hour), Old: s("Backlog"), New: s("InProgress")},
		{At: day(4), Old: s("InProgress"), New: s("Done")},
	}
	for _, c := range []struct {
		at   time.Time
		want string
	}{
		{day(1), "Backlog"},                     // before any change: the first change's old status
		{day(2).Add(10 * time.Hour), "Backlog"}, // a change at the instant itself is not yet in effect
		{day(3), "InProgress"},
		{day(4).Add(time.Nanosecond), "Done"},
		{day(30), "Done"},
	} {
		if got := statusAt("Current", changes, c.at); got != c.want {
			t.Errorf("statusAt(%s) = %q, want %q", c.at, got, c.want)
		}
	}
	if got := statusAt("Todo", nil, day(1)); got != "Todo" {
		t.Errorf("no history: %q", got)
	}
	created := []sprintdb.StatusChange{{At: day(5), Old: nil, New: s("Backlog")}}
	if got := statusAt("Backlog", created, day(3)); got != "" {
		t.Errorf("before creation: %q", got)
	}
}
