// Package benchenv reads the settings the load programs (cmd/bench,
// cmd/benchexport, cmd/benchimport, cmd/benchrelay, cmd/benchreport,
// cmd/soak) take from the environment: a value that does not read falls
// back to its default with a line on stderr, so a typo never runs a
// different benchmark silently.
package benchenv

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// String is the variable's value, def when it is unset or empty.
func String(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// Int is the variable as an integer of at least min, else def.
func Int(name string, def, min int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < min {
		fmt.Fprintf(os.Stderr, "%s: not an integer of at least %d; using %d\n", name, min, def)
		return def
	}
	return n
}

// Duration is the variable as a positive duration, else def.
func Duration(name string, def time.Duration) time.Duration {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		fmt.Fprintf(os.Stderr, "%s: not a positive duration; using %s\n", name, def)
		return def
	}
	return d
}
