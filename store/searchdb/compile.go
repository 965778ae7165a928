// Package searchdb compiles a parsed ticket query (internal/searchquery) to
// SQL with squirrel and runs it with keyset pagination. Every value of the
// query reaches PostgreSQL as a bound parameter; only fixed SQL text written
// here is concatenated.
package searchdb

import (
	"errors"
	"fmt"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/internal/searchquery"
)

// Env is what a query's words mean for one caller at one moment.
type Env struct {
	OrgID  uuid.UUID
	UserID uuid.UUID // "me"
	Now    time.Time // ages such as updated:<7d
	// DefaultStatuses is the JSON status list of the built-in Default
	// workflow, for projects of an org whose Default workflow is gone.
	DefaultStatuses []byte
	// Names are what Resolve looked up for the query: label and sprint
	// ids, the typo fallback's words, the phrases' pair prefilters. A
	// query compiles only with them (nil: ErrUnresolved).
	Names *Names
	// Custom are the org's custom fields the query's cf.<key> terms name,
	// by key (domain/search resolves them).
	Custom map[string]CustomField
	// SortField is the field of sort:cf.<key> (its type is the sort's
	// CustomType).
	SortField uuid.UUID
}

// ErrUnresolved is Where's error for a query whose names were not
// resolved (Resolve sets Env.Names; List, Count, Progress and All call it).
var ErrUnresolved = errors.New("searchdb: query names not resolved (call Resolve first)")

// TextConfig is the text search configuration of tickets' search vectors.
const TextConfig = "english"

// Where compiles n to a condition on the tickets row aliased t; env.Names
// must be n's (Resolve).
func Where(n searchquery.Node, env Env) (sq.Sqlizer, error) {
	if env.Names == nil {
		return nil, ErrUnresolved
	}
	switch n := n.(type) {
	case searchquery.And:
		out, err := whereEach(n.Terms, env)
		if err != nil {
			return nil, err
		}
		return sq.And(out), nil
	case searchquery.Or:
		var terms []searchquery.Node
		var ids []uuid.UUID
		labels := 0
		for _, t := range n.Terms {
			if lt, ok := t.(searchquery.Term); ok && lt.Field == searchquery.FieldLabel {
				ids = append(ids, env.Names.Labels[strings.ToLower(lt.Value)]...)
				labels++
				continue
			}
			terms = append(terms, t)
		}
		out, err := whereEach(terms, env)
		if err != nil {
			return nil, err
		}
		if labels > 0 {
			// label:a OR label:b is one EXISTS over both labels' ids, not
			// two subplans that each hash every ticket of their label.
			out = append(out, anyID(ids, labelExists))
		}
		return sq.Or(out), nil
	case searchquery.Not:
		c, err := Where(n.Term, env)
		if err != nil {
			return nil, err
		}
		if t, ok := n.Term.(searchquery.Term); ok && t.Field == searchquery.FieldLabel {
			// EXISTS is never NULL: a plain NOT EXISTS, which the planner
			// runs as an anti join.
			return sq.Expr("NOT (?)", c), nil
		}
		// A NULL (no assignee, no sprint) is "not matched", so its negation
		// matches.
		return sq.Expr("NOT COALESCE((?), false)", c), nil
	case searchquery.Text:
		return text(n, env), nil
	case searchquery.Term:
		return term(n, env)
	}
	return nil, fmt.Errorf("searchdb: unknown node %T", n)
}

// labelExists is a label term with resolved ids (anyID's format).
const labelExists = "EXISTS (SELECT 1 FROM ticket_labels tl WHERE tl.ticket_id = t.id AND tl.label_id %s)"

// anyID fills format's %s with a comparison with ids: "= $n" for one (the
// planner reads its frequency from the column's statistics), "= ANY($n)"
// for several; no ids is false.
func anyID(ids []uuid.UUID, format string) sq.Sqlizer {
	switch len(ids) {
	case 0:
		return sq.Expr("false")
	case 1:
		return sq.Expr(fmt.Sprintf(format, "= ?"), ids[0])
	}
	return sq.Expr(fmt.Sprintf(format, "= ANY(?)"), ids)
}

// whereEach compiles each term of an AND or OR.
func whereEach(terms []searchquery.Node, env Env) ([]sq.Sqlizer, error) {
	out := make([]sq.Sqlizer, 0, len(terms))
	for _, t := range terms {
		c, err := Where(t, env)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}
