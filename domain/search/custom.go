package search

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"tracker/domain/customfield"
	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/searchdb"
)

// customTerms lists the cf.<key> terms of n.
func customTerms(n searchquery.Node, out []searchquery.Term) []searchquery.Term {
	switch n := n.(type) {
	case searchquery.And:
		for _, t := range n.Terms {
			out = customTerms(t, out)
		}
	case searchquery.Or:
		for _, t := range n.Terms {
			out = customTerms(t, out)
		}
	case searchquery.Not:
		out = customTerms(n.Term, out)
	case searchquery.Term:
		if n.Custom != "" {
			out = append(out, n)
		}
	}
	return out
}

// ResolveCustom is resolveCustom for a caller that builds its own search
// (cmd/benchsearch -explain).
func ResolveCustom(ctx context.Context, q store.Querier, sr *searchdb.Search) error {
	return resolveCustom(ctx, q, sr)
}

// resolveCustom looks up the org's fields the query's cf.<key> terms name
// and checks each value against its field's type: an unknown key or a
// value the type cannot hold is a 422 naming the term's position.
func resolveCustom(ctx context.Context, q store.Querier, sr *searchdb.Search) error {
	terms := customTerms(sr.Root, nil)
	sorted := sr.Sort.Key == searchquery.SortCustom
	if len(terms) == 0 && !sorted {
		return nil
	}
	defs, err := customfield.Load(ctx, q, sr.Env.OrgID)
	if err != nil {
		return err
	}
	sr.Env.Custom = map[string]searchdb.CustomField{}
	if sorted {
		// Only number and date fields sort: their values have one order
		// and an index of (field, value) to read it from.
		f, ok := defs[sr.Sort.Custom]
		if !ok {
			return QueryError(&searchquery.Error{Pos: sr.Sort.Pos, Msg: "sort: unknown custom field \"" + sr.Sort.Custom + "\""})
		}
		if f.Type != customfield.Number && f.Type != customfield.Date {
			return QueryError(&searchquery.Error{Pos: sr.Sort.Pos, Msg: "sort: cf." + f.Key + " is a " + f.Type + " field; only number and date fields sort"})
		}
		sr.Sort.CustomType = f.Type
		sr.Env.SortField = f.ID
	}
	for _, t := range terms {
		f, ok := defs[t.Custom]
		if !ok {
			return &searchquery.Error{Pos: t.Pos, Msg: "unknown custom field \"" + t.Custom + "\""}
		}
		if msg := checkCustomValue(f, t); msg != "" {
			return &searchquery.Error{Pos: t.Pos, Msg: t.Field + ": " + msg}
		}
		cf := searchdb.CustomField{ID: f.ID, Type: f.Type, Options: map[string][]uuid.UUID{}}
		for _, o := range f.Options {
			k := strings.ToLower(o.Name)
			cf.Options[k] = append(cf.Options[k], o.ID)
		}
		sr.Env.Custom[t.Custom] = cf
	}
	return nil
}

// numberRE is a plain decimal, as PostgreSQL's numeric reads it.
var numberRE = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

func checkCustomValue(f customfield.Field, t searchquery.Term) string {
	if t.None {
		if t.Op != "" {
			return "none does not compare"
		}
		return ""
	}
	ordered := f.Type == customfield.Number || f.Type == customfield.Date
	if t.Op != "" && !ordered {
		return "does not take " + t.Op + " (only number and date fields compare)"
	}
	switch f.Type {
	case customfield.Number:
		if _, err := strconv.ParseFloat(t.Value, 64); err != nil || !numberRE.MatchString(t.Value) {
			return "must be a number"
		}
	case customfield.Date:
		if _, err := time.Parse(time.DateOnly, t.Value); err != nil {
			return "must be a date (2026-12-01)"
		}
	case customfield.Checkbox:
		if !strings.EqualFold(t.Value, "true") && !strings.EqualFold(t.Value, "false") {
			return "must be true or false"
		}
	}
	return ""
}
