package capex

import (
	"context"
	"time"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"tracker/store"
	"tracker/store/capexdb"
)

// aggregator sums the entries a filter selects at a grouping: live
// (the rollup) or from a close's snapshot.
type aggregator func(context.Context, store.Querier, capexdb.Filter, capexdb.Grouping) ([]capexdb.Line, error)

// classified aggregates f under pol: every line carries its class. The
// month is aggregated once (the rollup: at most projects × users ×
// activity types lines), each line classed by its project under the
// framework. Two parts are then read from the entries, each in one query
// and in proportion to its own entries, never the month's:
//   - the projects whose framework starts capitalizing inside the month
//     are aggregated again from their entries, each entry classed in the
//     query (its date against its project's first capitalized day, its
//     ticket against the OpEx decisions), and replace their lines;
//   - the entries of tickets decided OpEx (by a rule or an override) in the
//     projects capitalized all month are aggregated by their tickets'
//     index and moved from those projects' CapEx lines to OpEx lines.
//
// A capex decision never capitalizes what the framework does not, so it
// changes no total and reads nothing.
//
// The two parts do not depend on each other: they are read at once when q
// allows it.
func classified(ctx context.Context, q store.Querier, agg aggregator, f capexdb.Filter, g capexdb.Grouping,
	pol *PolicyRef) ([]capexdb.Line, error) {
	lines, err := agg(ctx, q, f, g)
	if err != nil {
		return nil, err
	}
	return classify(ctx, q, agg, lines, f, g, pol)
}

// inForce is the policy in force for f's month (orgID, per) and the
// month's lines classified under it. The policy's decisions (the rules'
// query over the month's tickets) and the month's aggregate do not depend
// on each other, so they are read at once when q allows it.
func inForce(ctx context.Context, q store.Querier, agg aggregator, f capexdb.Filter, g capexdb.Grouping,
	orgID uuid.UUID, per Period, now time.Time) (*PolicyRef, []capexdb.Line, error) {
	var pol *PolicyRef
	var lines []capexdb.Line
	err := both(ctx, q, func() (err error) {
		pol, err = policyInForce(ctx, q, orgID, per, now)
		return err
	}, func() (err error) {
		lines, err = agg(ctx, q, f, g)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	lines, err = classify(ctx, q, agg, lines, f, g, pol)
	return pol, lines, err
}

// both runs a and b: at the same time, each statement on a connection of
// its own, when q is the pool's querier outside a transaction; else one
// after the other.
func both(ctx context.Context, q store.Querier, a, b func() error) error {
	if !store.Concurrent(ctx, q) {
		if err := a(); err != nil {
			return err
		}
		return b()
	}
	var eg errgroup.Group
	eg.Go(a)
	eg.Go(b)
	return eg.Wait()
}

// classify classes lines, the aggregate of f at g, under pol (classified).
func classify(ctx context.Context, q store.Querier, agg aggregator, lines []capexdb.Line, f capexdb.Filter,
	g capexdb.Grouping, pol *PolicyRef) ([]capexdb.Line, error) {
	if pol == nil {
		return lines, nil
	}
	opex := pol.opexTickets()
	if pol.Framework == FrameworkASC35040 && len(opex) == 0 {
		return lines, nil
	}
	from, split := capitalizedFrom(pol.Framework, lines, f)
	out := lines[:0]
	var whole []uuid.UUID // the projects capitalized all month
	seen := map[uuid.UUID]bool{}
	for i := range lines {
		l := lines[i]
		if split[l.ProjectID] {
			continue
		}
		if l.Class = classOn(pol.Framework, &l, f.From); l.Class == CapEx && !seen[l.ProjectID] {
			seen[l.ProjectID] = true
			whole = append(whole, l.ProjectID)
		}
		out = append(out, l)
	}
	var splitLines, moved []capexdb.Line
	moves := len(opex) > 0 && len(whole) > 0
	err := both(ctx, q, func() error {
		if len(split) == 0 {
			return nil
		}
		c := &capexdb.Classing{OpEx: opex, Projects: []uuid.UUID{}, From: []time.Time{}}
		if c.OpEx == nil {
			c.OpEx = []uuid.UUID{}
		}
		for id := range split {
			c.Projects, c.From = append(c.Projects, id), append(c.From, from[id])
		}
		cf := f
		cf.Class, cf.Restricted, cf.Projects = c, true, intersect(f, c.Projects)
		var err error
		splitLines, err = agg(ctx, q, cf, g)
		return err
	}, func() error {
		if !moves {
			return nil
		}
		of := f
		of.OnlyTickets, of.Tickets, of.Restricted, of.Projects = true, opex, true, intersect(f, whole)
		var err error
		moved, err = agg(ctx, q, of, g)
		return err
	})
	if err != nil {
		return nil, err
	}
	out = append(out, splitLines...)
	if !moves {
		return out, nil
	}
	return moveToOpEx(out, moved), nil
}

// capitalizedFrom is, per project of lines capitalized in some part of f's
// month under framework, its first capitalized day in the month; split
// holds the projects whose first day falls inside the month.
func capitalizedFrom(framework string, lines []capexdb.Line, f capexdb.Filter) (map[uuid.UUID]time.Time, map[uuid.UUID]bool) {
	from, split := map[uuid.UUID]time.Time{}, map[uuid.UUID]bool{}
	for i := range lines {
		l := &lines[i]
		if _, seen := from[l.ProjectID]; seen {
			continue
		}
		day, ok := capexFrom(framework, l)
		if !ok || !day.Before(f.To) {
			continue
		}
		if day.After(f.From) {
			split[l.ProjectID] = true
		} else {
			day = f.From
		}
		from[l.ProjectID] = day
	}
	return from, split
}

// lineKey identifies a line within one class.
type lineKey struct {
	project, user      uuid.UUID
	byUser, byActivity bool
	activity           string
}

func keyOf(l *capexdb.Line) lineKey {
	return lineKey{l.ProjectID, l.UserID, l.ByUser, l.ByActivity, l.ActivityType}
}

// moveToOpEx takes moved (the aggregate of OpEx-decided tickets' entries
// in projects capitalized all month, at the same grain) out of lines'
// CapEx lines and adds it as OpEx lines; a CapEx line left without
// entries is dropped.
func moveToOpEx(lines, moved []capexdb.Line) []capexdb.Line {
	at := make(map[lineKey]int, len(lines))
	for i := range lines {
		if lines[i].Class == CapEx {
			at[keyOf(&lines[i])] = i
		}
	}
	for _, m := range moved {
		if i, ok := at[keyOf(&m)]; ok {
			l := &lines[i]
			l.Minutes -= m.Minutes
			l.AmountCents -= m.AmountCents
			l.RateMinutes -= m.RateMinutes
			l.Entries -= m.Entries
			l.UnpricedEntries -= m.UnpricedEntries
		}
		m.Class = OpEx
		lines = append(lines, m)
	}
	out := lines[:0]
	for _, l := range lines {
		if l.Entries > 0 {
			out = append(out, l)
		}
	}
	return out
}

// classOf is a line's class: the one classified gave it, else its
// project's (ASC 350-40's stages).
func classOf(l *capexdb.Line) string {
	if l.Class != "" {
		return l.Class
	}
	return Classify(l.CapitalizationType, l.DevelopmentPhase)
}
