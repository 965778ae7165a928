package main

import (
	"fmt"
	"io"
	"time"
)

// printTable writes one row per run.
func printTable(out io.Writer, rs []result) {
	fmt.Fprintf(out, "| %-14s | %7s | %9s | %8s | %8s | %6s |\n", "operation", "clients", "ops/s", "p50 ms", "p99 ms", "errors")
	fmt.Fprintf(out, "|%s|%s|%s|%s|%s|%s|\n", dashes(16), dashes(9), dashes(11), dashes(10), dashes(10), dashes(8))
	for _, r := range rs {
		fmt.Fprintf(out, "| %-14s | %7d | %9.0f | %8.2f | %8.2f | %6d |\n",
			r.op, r.clients, r.opsPerSec(), ms(r.percentile(0.50)), ms(r.percentile(0.99)), r.errors)
	}
	for _, r := range rs {
		if r.firstErr != "" {
			fmt.Fprintf(out, "first error of %s at %d clients: %s\n", r.op, r.clients, r.firstErr)
		}
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func dashes(n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = '-'
	}
	return string(b)
}
