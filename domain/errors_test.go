package domain_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
)

func TestRequireAllAndDedupe(t *testing.T) {
	t.Parallel()
	a, b, c := uuid.New(), uuid.New(), uuid.New()
	id := func(u uuid.UUID) uuid.UUID { return u }
	if err := domain.RequireAll("ids", []uuid.UUID{a, b}, []uuid.UUID{b, a, c}, id, "missing"); err != nil {
		t.Fatalf("all found: %v", err)
	}
	err := domain.RequireAll("ids", []uuid.UUID{a, b, c}, []uuid.UUID{b}, id, "is not here")
	var de *domain.Error
	if !errors.As(err, &de) || de.Kind != domain.KindValidation ||
		!slices.Equal(de.Details, []string{"ids: " + a.String() + " is not here", "ids: " + c.String() + " is not here"}) {
		t.Fatalf("got %v", err)
	}
	if got := domain.Dedupe([]uuid.UUID{b, a, b, c, a}); !slices.Equal(got, []uuid.UUID{b, a, c}) {
		t.Fatalf("dedupe %v", got)
	}
}

// TestProblemsAreCapped: a request with a million bad entries answers at
// most MaxDetails of them and a count of the rest.
func TestProblemsAreCapped(t *testing.T) {
	var p domain.Problems
	for i := 0; i < domain.MaxDetails+5; i++ {
		p.Add("event_types", "bad")
	}
	var e *domain.Error
	if !errors.As(p.Err(), &e) {
		t.Fatal("no domain error")
	}
	if len(e.Details) != domain.MaxDetails+1 || e.Details[domain.MaxDetails] != "… and 5 more problems" {
		t.Fatalf("%d details, last %q", len(e.Details), e.Details[len(e.Details)-1])
	}
	var q domain.Problems
	q.Add("a", "b")
	if !errors.As(q.Err(), &e) || len(e.Details) != 1 {
		t.Fatalf("one problem: %v", e.Details)
	}
}
