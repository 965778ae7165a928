package capex

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/search"
	"tracker/internal/searchquery"
	"tracker/store"
	"tracker/store/capexdb"
	"tracker/store/searchdb"
)

// Rule is one ticket-level rule of a policy: the tickets its match (a
// query of the ticket search language) selects are classified as it says,
// unless an earlier rule matched them first. A capex rule never
// capitalizes what the policy's framework leaves as OpEx.
type Rule struct {
	ID             string `json:"id"`
	Match          string `json:"match"`
	Classification string `json:"classification"`
	Reason         string `json:"reason"`
}

// Rule limits.
const (
	MaxRules      = 100
	MaxRuleID     = 100
	MaxRuleMatch  = 1000
	MaxRuleReason = 2000
)

// RuleOverride is the RuleID of an entry whose ticket's override decided.
const RuleOverride = "override"

// checkRules reads and checks a policy's rules, giving each rule without
// an id a new one; the problems name the rule (rules[i].field).
func checkRules(raw json.RawMessage, pr *domain.Problems) []Rule {
	r := strings.TrimSpace(string(raw))
	if r == "" || r == "null" {
		return []Rule{}
	}
	var in []struct {
		ID             *string `json:"id"`
		Match          *string `json:"match"`
		Classification *string `json:"classification"`
		Reason         *string `json:"reason"`
	}
	if err := json.Unmarshal(raw, &in); err != nil {
		pr.Add("rules", "must be an array of {id?, match, classification, reason}")
		return nil
	}
	if len(in) > MaxRules {
		pr.Add("rules", "at most "+strconv.Itoa(MaxRules)+" rules")
		return nil
	}
	out := make([]Rule, 0, len(in))
	seen := map[string]bool{}
	for i, x := range in {
		at := "rules[" + strconv.Itoa(i) + "]"
		var rule Rule
		if x.ID != nil {
			rule.ID = *x.ID
			switch {
			case rule.ID == "" || utf8.RuneCountInString(rule.ID) > MaxRuleID || strings.ContainsRune(rule.ID, 0):
				pr.Add(at+".id", "must be 1-100 characters")
			case rule.ID == RuleFramework || rule.ID == RuleOverride:
				pr.Add(at+".id", "\""+rule.ID+"\" is reserved")
			case seen[rule.ID]:
				pr.Add(at+".id", "must be unique among the policy's rules")
			}
		} else {
			rule.ID = uuid.NewString()
		}
		seen[rule.ID] = true
		if x.Match == nil || strings.TrimSpace(*x.Match) == "" {
			pr.Add(at+".match", "required: a ticket search query")
		} else if utf8.RuneCountInString(*x.Match) > MaxRuleMatch {
			pr.Add(at+".match", "must be at most 1000 characters")
		} else {
			rule.Match = *x.Match
			if _, err := searchquery.Parse(rule.Match); err != nil {
				pr.Add(at+".match", queryProblem(err))
			}
		}
		if x.Classification == nil || (*x.Classification != "capex" && *x.Classification != "opex") {
			pr.Add(at+".classification", "must be capex or opex")
		} else {
			rule.Classification = *x.Classification
		}
		if x.Reason == nil || strings.TrimSpace(*x.Reason) == "" {
			pr.Add(at+".reason", "required")
		} else if utf8.RuneCountInString(*x.Reason) > MaxRuleReason || strings.ContainsRune(*x.Reason, 0) {
			pr.Add(at+".reason", "must be at most 2000 characters, without NUL")
		} else {
			rule.Reason = *x.Reason
		}
		out = append(out, rule)
	}
	return out
}

// queryProblem renders a query's error with its position.
func queryProblem(err error) string {
	var qe *searchquery.Error
	if errors.As(err, &qe) {
		return "invalid query at position " + strconv.Itoa(qe.Pos) + ": " + qe.Msg
	}
	return err.Error()
}

// checkRuleFields checks the rules' cf.<key> terms against the org's
// custom fields.
func checkRuleFields(ctx context.Context, q store.Querier, orgID uuid.UUID, rules []Rule) error {
	var pr domain.Problems
	for i, r := range rules {
		pq, err := searchquery.Parse(r.Match)
		if err != nil || pq.Root == nil {
			continue
		}
		if err := search.CheckCustom(ctx, q, orgID, pq.Root); err != nil {
			var qe *searchquery.Error
			if !errors.As(err, &qe) {
				return err
			}
			pr.Add("rules["+strconv.Itoa(i)+"].match", queryProblem(err))
		}
	}
	return pr.Err()
}

// toClass is a rule's classification as the report spells it.
func toClass(c string) string {
	if c == "capex" {
		return CapEx
	}
	return OpEx
}

// decideTickets finds, for each ticket of orgID with approved time in per,
// the first of rules that matches it (the ticket as it is now): ticket →
// rule id. Every rule is evaluated in one query over the month's tickets,
// found once. A rule whose query no longer compiles (a custom
// field it names was deleted) is a 422 naming it.
func decideTickets(ctx context.Context, q store.Querier, orgID uuid.UUID, per Period, rules []Rule, now time.Time) (map[uuid.UUID]string, error) {
	roots := make([]searchquery.Node, len(rules))
	for i, r := range rules {
		pq, err := searchquery.Parse(r.Match)
		if err != nil {
			return nil, domain.Invalid("rules[" + strconv.Itoa(i) + "].match: " + queryProblem(err))
		}
		roots[i] = pq.Root
	}
	// The month's tickets are found from the org's tickets, each probing
	// its own entries' index (ticket, date) for one in the month: a probe
	// per ticket, where reading the month's entries for their tickets
	// costs in proportion to the entries.
	among := sq.Expr(`SELECT t.id FROM tickets t WHERE t.org_id = ? AND t.deleted_at IS NULL
		AND EXISTS (SELECT 1 FROM time_entries te WHERE te.ticket_id = t.id AND te.status = 'Approved'
			AND te.date >= ? AND te.date < ?)`, orgID, per.Start(), per.End())
	got, err := search.FirstMatching(ctx, q, orgID, roots, among, now.UTC())
	var re *searchdb.RootError
	if errors.As(err, &re) {
		var qe *searchquery.Error
		if errors.As(re.Err, &qe) {
			return nil, domain.Invalid("rules[" + strconv.Itoa(re.Index) + "].match: " + queryProblem(re.Err))
		}
		return nil, re.Err
	}
	if err != nil {
		return nil, err
	}
	out := make(map[uuid.UUID]string, len(got))
	for id, i := range got {
		out[id] = rules[i].ID
	}
	return out, nil
}

// rule is what decides ticket under pol, if anything does: its override
// (id RuleOverride), else the first rule that matched it.
func (pol *PolicyRef) rule(ticket uuid.UUID) (Rule, bool) {
	if pol == nil {
		return Rule{}, false
	}
	if o, ok := pol.Overrides[ticket]; ok {
		return Rule{ID: RuleOverride, Classification: o.Classification, Reason: o.Reason}, true
	}
	if len(pol.Tickets) == 0 {
		return Rule{}, false
	}
	id, ok := pol.Tickets[ticket]
	if !ok {
		return Rule{}, false
	}
	for _, r := range pol.Rules {
		if r.ID == id {
			return r, true
		}
	}
	return Rule{}, false
}

// opexTickets are the tickets pol's rules make OpEx whatever the framework
// says.
func (pol *PolicyRef) opexTickets() []uuid.UUID {
	if pol == nil || (len(pol.Tickets) == 0 && len(pol.Overrides) == 0) {
		return nil
	}
	opex := map[string]bool{}
	for _, r := range pol.Rules {
		opex[r.ID] = r.Classification == "opex"
	}
	var out []uuid.UUID
	for t, id := range pol.Tickets {
		if _, over := pol.Overrides[t]; opex[id] && !over {
			out = append(out, t)
		}
	}
	for t, o := range pol.Overrides {
		if o.Classification == "opex" {
			out = append(out, t)
		}
	}
	return out
}

// public is pol as a report renders it: without the per-ticket decisions,
// which only a close's snapshot keeps.
func (pol *PolicyRef) public() *PolicyRef {
	if pol == nil {
		return nil
	}
	c := *pol
	c.Tickets, c.Overrides = nil, nil
	return &c
}

// decide classifies one entry of ticket dated day in a project with
// columns l under pol: the class, what decided it and why (rule id and
// reason empty without a policy).
func (pol *PolicyRef) decide(l *capexdb.Line, ticket uuid.UUID, day time.Time) (class, ruleID, reason string) {
	fw := classOn(pol.framework(), l, day)
	if pol == nil {
		return fw, "", ""
	}
	r, ok := pol.rule(ticket)
	switch {
	case !ok:
		return fw, RuleFramework, reasonOn(pol.Framework, l, day)
	case r.Classification == "opex" || fw == CapEx:
		return toClass(r.Classification), r.ID, r.Reason
	}
	return OpEx, RuleFramework, r.Reason + "; overruled by the framework: " + reasonOn(pol.Framework, l, day)
}
