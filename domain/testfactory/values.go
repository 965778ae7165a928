package testfactory

import (
	"fmt"
	"time"
)

// Day is the UTC midnight of a YYYY-MM-DD date; a malformed one panics (a
// test's literal).
func Day(s string) time.Time {
	d, err := time.Parse(time.DateOnly, s)
	if err != nil {
		panic(fmt.Sprintf("testfactory.Day(%q): %v", s, err))
	}
	return d
}

// Ptr returns a pointer to v (the options' optional columns).
func Ptr[T any](v T) *T { return &v }
