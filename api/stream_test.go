package api

import (
	"errors"
	"io"
	"strings"
	"testing"

	"tracker/domain"
)

// TestLimitedBody: a streamed body reads whole up to its limit and fails
// with a 413 one byte past it, however the reads are cut.
func TestLimitedBody(t *testing.T) {
	for _, c := range []struct {
		size, limit int
		ok          bool
	}{{10, 10, true}, {9, 10, true}, {11, 10, false}, {5000, 4096, false}, {0, 0, true}} {
		b := &limitedBody{r: strings.NewReader(strings.Repeat("x", c.size)), left: int64(c.limit), limit: c.limit}
		got, err := io.ReadAll(b)
		var de *domain.Error
		switch {
		case c.ok && (err != nil || len(got) != c.size):
			t.Errorf("%d of %d: %d bytes, %v", c.size, c.limit, len(got), err)
		case !c.ok && (!errors.As(err, &de) || de.Kind != domain.KindTooLarge):
			t.Errorf("%d of %d: %v, want a 413", c.size, c.limit, err)
		}
	}
}
