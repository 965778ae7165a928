package api

import "tracker/domain"

// checkLengths is the edge's cap on every string a request body binds:
// at most domain.MaxFreeText characters (comment bodies, descriptions,
// goals), and at most domain.MaxName for a field called name or …_name
// (the spec's 1-255 for names; label, sprint and workflow names where it
// gives only a minimum). Money (…_cents) is bounded by ±domain.MaxCents and
// dates and times lie in years 1900-9999. Features apply tighter limits of
// their own.
func checkLengths(v any) error {
	var p domain.Problems
	domain.CheckBounds(v, func(path, problem string) bool {
		p.Add(path, problem)
		return len(p) < 20
	})
	return p.Err()
}
