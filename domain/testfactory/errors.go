package testfactory

import (
	"strings"
	"testing"

	"tracker/domain"
)

// WantKind fails unless err is a domain error of kind whose message and
// details hold every one of want.
func WantKind(t testing.TB, err error, kind domain.Kind, want ...string) {
	t.Helper()
	if err == nil {
		t.Fatalf("err = nil, want kind %v", kind)
	}
	de := domain.AsError(err)
	if de.Kind != kind {
		t.Fatalf("err = %v (kind %v), want kind %v", err, de.Kind, kind)
	}
	all := de.Message + "\n" + strings.Join(de.Details, "\n")
	for _, s := range want {
		if !strings.Contains(all, s) {
			t.Fatalf("err = %q lacks %q", all, s)
		}
	}
}

// Err drops a call's value and keeps its error: WantKind(t, Err(f()), …).
func Err[T any](_ T, err error) error { return err }
