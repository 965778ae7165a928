package domain

import "time"

// Clock tells the time. cmd/tracker injects SystemClock; tests inject a fixed
// or stepping clock. Domain code never calls time.Now() itself.
type Clock interface {
	Now() time.Time
}

// SystemClock is the wall clock, in UTC at microsecond precision (what
// PostgreSQL's timestamptz stores, so a value read back equals the one written).
type SystemClock struct{}

// Now is the current time.
func (SystemClock) Now() time.Time { return time.Now().UTC().Truncate(time.Microsecond) }

// ClockFunc adapts a function to Clock.
type ClockFunc func() time.Time

// Now calls f.
func (f ClockFunc) Now() time.Time { return f() }
