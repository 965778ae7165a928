package searchquery

import (
	"strings"
	"time"
)

// Node is a node of the AST: And, Or, Not, Term or Text.
type Node interface{ isNode() }

// And matches what all its terms match.
type And struct{ Terms []Node }

// Or matches what any of its terms matches.
type Or struct{ Terms []Node }

// Not matches what its term does not.
type Not struct {
	Term Node
	Pos  int
}

// Text is a free word or a quoted phrase, searched in title, description
// and comments.
type Text struct {
	Value  string
	Quoted bool
	Pos    int
}

// Field names.
const (
	FieldStatus   = "status"
	FieldCategory = "category"
	FieldPriority = "priority"
	FieldAssignee = "assignee"
	FieldReporter = "reporter"
	FieldLabel    = "label"
	FieldSprint   = "sprint"
	FieldProject  = "project"
	FieldCreated  = "created"
	FieldUpdated  = "updated"
	FieldTag      = "tag"
	FieldHas      = "has"
	FieldIs       = "is"
	FieldDue      = "due"
	FieldEstimate = "estimate"
	// FieldParent is parent:ENG-12: the tickets under that ticket, at any
	// depth (its children, their children, ...).
	FieldParent = "parent"
	// FieldExternal is external:PROJ-123: the tickets imported from another
	// tracker under that key (any case).
	FieldExternal = "external"
)

// Fields lists the field names in the order docs/behaviour/search.md
// documents them.
var Fields = []string{FieldStatus, FieldCategory, FieldPriority, FieldAssignee, FieldReporter, FieldLabel,
	FieldSprint, FieldProject, FieldCreated, FieldUpdated, FieldTag, FieldHas, FieldIs, FieldDue, FieldEstimate, FieldParent, FieldExternal, "sort"}

// Term is one field term, its value checked and normalized.
type Term struct {
	Field string
	Pos   int
	// Op is "", ">", ">=", "<" or "<=" (an explicit "=" is "").
	Op string
	// Value: the status, label, sprint or project name, the email, the tag
	// key, the category (todo, in_progress, done, cancelled) or the has/is
	// word.
	Value string
	// TagValue is the tag's value; TagAny: "tag:k" matches any value.
	TagValue string
	TagAny   bool
	// Me, None, Current: assignee:me, assignee:none / sprint:none, sprint:current.
	Me, None, Current bool
	// Priority is the rank of the priority (index in Priorities).
	Priority int
	// Date (UTC midnight) or Age (relative value such as 7d) of created/updated.
	Date time.Time
	Age  time.Duration
	// Relative is set when Age is meaningful.
	Relative bool
	// Overdue: due:overdue. Days: due:<7d counts days from today.
	Overdue bool
	Days    int
	// Hundredths is an estimate's value (estimate:>3 is 300).
	Hundredths int64
	// Number is the ticket number of parent:KEY-N (Value is KEY,
	// upper-cased).
	Number int64
	// Custom is the field key of a cf.<key> term; its Value is checked
	// against the field's type once the org's fields are known
	// (domain/search), None is cf.<key>:none.
	Custom string
}

func (And) isNode()  {}
func (Or) isNode()   {}
func (Not) isNode()  {}
func (Text) isNode() {}
func (Term) isNode() {}

// Priorities in rising order, as tickets store them.
var Priorities = []string{"None", "Low", "Medium", "High", "Critical"}

// Categories of workflow statuses.
var Categories = []string{"todo", "in_progress", "done", "cancelled"}

// Sort keys.
const (
	SortID       = "id" // creation order (the default)
	SortCreated  = "created"
	SortUpdated  = "updated"
	SortPriority = "priority"
	SortNumber   = "number"
	// SortDue (soonest first) and SortEstimate (largest first) put the
	// tickets without a value last in either direction.
	SortDue      = "due"
	SortEstimate = "estimate"
	// SortRelevance ranks free-word matches (ts_rank, descending): the
	// default when the query has free words and no sort:.
	SortRelevance = "relevance"
	// SortCustom is sort:cf.<key> on a number or date field (largest
	// first), the tickets without a value last in either direction.
	SortCustom = "cf"
)

// Sort is the order of the results; ties are broken by ticket id in the
// same direction.
type Sort struct {
	Key  string
	Desc bool
	// Custom is the field key of sort:cf.<key>; CustomType its field's
	// type, set once the org's fields are resolved; Pos the term's position.
	Custom     string
	CustomType string
	Pos        int
}

// String renders the sort as the query spells it ("updated-desc").
func (s Sort) String() string {
	key := s.Key
	if s.Key == SortCustom {
		key = "cf." + s.Custom
	}
	if s.Desc {
		return key + "-desc"
	}
	return key + "-asc"
}

// ParseSort reads a sort value: created, updated, priority, number, due,
// estimate or relevance, with an optional -asc or -desc. Without a
// direction created, updated, priority, estimate and relevance sort
// descending (newest, highest first), number and due ascending.
func ParseSort(v string) (Sort, bool) {
	key, dir, _ := strings.Cut(strings.ToLower(v), "-")
	s := Sort{Key: key}
	if c, ok := strings.CutPrefix(key, "cf."); ok && c != "" {
		s.Key, s.Custom, key = SortCustom, c, SortCustom
	}
	switch key {
	case SortCustom:
		s.Desc = true
	case SortCreated, SortUpdated, SortPriority, SortEstimate:
		s.Desc = true
	case SortNumber, SortDue:
	case SortRelevance:
		s.Desc = true
	default:
		return s, false
	}
	switch dir {
	case "":
	case "asc":
		s.Desc = false
	case "desc":
		s.Desc = true
	default:
		return s, false
	}
	return s, true
}

// Query is a parsed query: Root is nil when the query has no terms (it
// matches every ticket the caller may see).
type Query struct {
	Root Node
	Sort Sort
	// HasText is set when free words take part in the query.
	HasText bool
}

// RankText is the free text of the query's positive words and phrases, as
// one websearch_to_tsquery input (alternatives joined with "or"): what
// relevance ranks by. Negated words do not count.
func (q Query) RankText() string {
	var parts []string
	var walk func(n Node)
	walk = func(n Node) {
		switch n := n.(type) {
		case And:
			for _, t := range n.Terms {
				walk(t)
			}
		case Or:
			for _, t := range n.Terms {
				walk(t)
			}
		case Text:
			v := strings.ReplaceAll(n.Value, `"`, "")
			if n.Quoted {
				v = `"` + v + `"`
			}
			parts = append(parts, v)
		}
	}
	walk(q.Root)
	return strings.Join(parts, " or ")
}
