package benchenv

import (
	"testing"
	"time"
)

func TestReadsOrFallsBack(t *testing.T) {
	t.Setenv("BENCHENV_S", "x")
	t.Setenv("BENCHENV_I", "7")
	t.Setenv("BENCHENV_BAD", "seven")
	t.Setenv("BENCHENV_NEG", "-1")
	t.Setenv("BENCHENV_D", "90s")
	if got := String("BENCHENV_S", "d"); got != "x" {
		t.Errorf("String set = %q, want x", got)
	}
	if got := String("BENCHENV_UNSET", "d"); got != "d" {
		t.Errorf("String unset = %q, want d", got)
	}
	if got := Int("BENCHENV_I", 3, 1); got != 7 {
		t.Errorf("Int = %d, want 7", got)
	}
	if got := Int("BENCHENV_BAD", 3, 0); got != 3 {
		t.Errorf("Int of a non-number = %d, want the default 3", got)
	}
	if got := Int("BENCHENV_NEG", 3, 0); got != 3 {
		t.Errorf("Int below min = %d, want the default 3", got)
	}
	if got := Duration("BENCHENV_D", time.Minute); got != 90*time.Second {
		t.Errorf("Duration = %s, want 1m30s", got)
	}
	if got := Duration("BENCHENV_BAD", time.Minute); got != time.Minute {
		t.Errorf("Duration of a non-duration = %s, want the default", got)
	}
}
