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
