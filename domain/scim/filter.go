package scim

import (
	"fmt"
	"strings"

	sq "github.com/Masterminds/squirrel"
	filter "github.com/scim2/filter-parser/v2"

	"tracker/store/scimdb"
)

// MaxFilterLength bounds a filter's text (an identity provider's filters
// are one or two comparisons).
const MaxFilterLength = 2048

// colKind is how a filterable attribute compares.
type colKind int

const (
	kindString colKind = iota
	kindBool
	kindID
)

// column is a filterable attribute: a SQL expression of this package's
// constant text (never the client's), or, when set is true, a one-column
// subquery of its values (multi-valued attributes).
type column struct {
	expr      string
	kind      colKind
	caseExact bool
	set       bool
}

// userColumns are the filterable User attributes, by lower-case name.
var userColumns = map[string]column{
	"id":              {expr: scimdb.UserIDCol, kind: kindID},
	"username":        {expr: scimdb.UserNameCol},
	"displayname":     {expr: scimdb.UserDisplayCol},
	"externalid":      {expr: scimdb.UserExternalCol, caseExact: true},
	"name.givenname":  {expr: scimdb.UserGivenCol},
	"name.familyname": {expr: scimdb.UserFamilyCol},
	"active":          {expr: scimdb.UserActiveCol, kind: kindBool},
	"emails":          {expr: "(SELECT " + scimdb.UserNameCol + " UNION ALL " + scimdb.UserEmailValueSQL[1:], set: true},
	"emails.value":    {expr: "(SELECT " + scimdb.UserNameCol + " UNION ALL " + scimdb.UserEmailValueSQL[1:], set: true},
}

// groupColumns are the filterable Group attributes.
var groupColumns = map[string]column{
	"id":            {expr: scimdb.GroupIDCol, kind: kindID},
	"displayname":   {expr: scimdb.GroupNameCol},
	"externalid":    {expr: scimdb.GroupExternalCol, caseExact: true},
	"members":       {expr: scimdb.GroupMemberSQL, kind: kindID, set: true},
	"members.value": {expr: scimdb.GroupMemberSQL, kind: kindID, set: true},
}

func errFilterSyntax() error {
	return invalidFilter(`the filter is not valid SCIM filter syntax (RFC 7644 section 3.4.2.2), for example userName eq "name@example.com"`)
}

// compileFilter parses a SCIM filter (RFC 7644 §3.4.2.2) and translates it
// into a parameterized SQL condition over cols; nil for an empty filter.
// Unknown attributes, unsupported operators and malformed text are 400
// invalidFilter.
func compileFilter(text string, cols map[string]column, schema string) (cond sq.Sqlizer, err error) {
	text = strings.TrimSpace(text)
	if text == "" {
		return nil, nil
	}
	if len(text) > MaxFilterLength {
		return nil, invalidFilter(fmt.Sprintf("the filter is longer than %d characters", MaxFilterLength))
	}
	defer func() {
		if r := recover(); r != nil {
			cond, err = nil, errFilterSyntax()
		}
	}()
	// The parser's own message names its grammar's internals (and may cut
	// a character in half): the client gets a plain one.
	expr, perr := filter.ParseFilter([]byte(text))
	if perr != nil {
		return nil, errFilterSyntax()
	}
	c := compiler{cols: cols, schema: schema}
	sql, args, err := c.expr(expr, "", 0)
	if err != nil {
		return nil, err
	}
	return sq.Expr(sql, args...), nil
}

type compiler struct {
	cols   map[string]column
	schema string
}

func (c compiler) expr(e filter.Expression, prefix string, depth int) (string, []any, error) {
	if depth > 50 {
		return "", nil, invalidFilter("the filter nests too deeply")
	}
	switch e := e.(type) {
	case *filter.LogicalExpression:
		l, la, err := c.expr(e.Left, prefix, depth+1)
		if err != nil {
			return "", nil, err
		}
		r, ra, err := c.expr(e.Right, prefix, depth+1)
		if err != nil {
			return "", nil, err
		}
		op := " AND "
		if strings.EqualFold(string(e.Operator), "or") {
			op = " OR "
		}
		return "(" + l + op + r + ")", append(la, ra...), nil
	case *filter.NotExpression:
		s, a, err := c.expr(e.Expression, prefix, depth+1)
		if err != nil {
			return "", nil, err
		}
		return "(NOT COALESCE(" + s + ", false))", a, nil
	case *filter.ValuePath:
		name, err := c.attrName(e.AttributePath)
		if err != nil {
			return "", nil, err
		}
		return c.expr(e.ValueFilter, name+".", depth+1)
	case *filter.AttributeExpression:
		return c.compare(e, prefix)
	}
	return "", nil, invalidFilter("unsupported filter expression")
}

func (c compiler) attrName(p filter.AttributePath) (string, error) {
	if p.URIPrefix != nil && !strings.EqualFold(*p.URIPrefix, c.schema) {
		return "", invalidFilter("unsupported schema in the filter: " + *p.URIPrefix)
	}
	name := strings.ToLower(p.AttributeName)
	if p.SubAttribute != nil {
		name += "." + strings.ToLower(*p.SubAttribute)
	}
	return name, nil
}

func (c compiler) compare(e *filter.AttributeExpression, prefix string) (string, []any, error) {
	name, err := c.attrName(e.AttributePath)
	if err != nil {
		return "", nil, err
	}
	name = prefix + name
	col, ok := c.cols[name]
	if !ok {
		return "", nil, invalidFilter("the filter names an attribute that cannot be filtered: " + name)
	}
	x := col.expr
	if col.set {
		x = "v.x"
	}
	sql, args, err := comparison(x, col, strings.ToLower(string(e.Operator)), e.CompareValue, name)
	if err != nil {
		return "", nil, err
	}
	if col.set {
		sql = "EXISTS (SELECT 1 FROM " + col.expr + " AS v(x) WHERE " + sql + ")"
	}
	return sql, args, nil
}

// likeEscape escapes LIKE's wildcards (backslash is PostgreSQL's default
// escape character).
func likeEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

func comparison(x string, col column, op string, value any, name string) (string, []any, error) {
	if op == "pr" {
		if col.kind == kindBool {
			return "(" + x + " IS NOT NULL)", nil, nil
		}
		return "(" + x + " IS NOT NULL AND " + x + " <> '')", nil, nil
	}
	switch col.kind {
	case kindBool:
		b, ok := value.(bool)
		if !ok {
			if s, isStr := value.(string); isStr && (strings.EqualFold(s, "true") || strings.EqualFold(s, "false")) {
				b, ok = strings.EqualFold(s, "true"), true
			}
		}
		if !ok {
			return "", nil, invalidFilter(name + " compares with true or false")
		}
		switch op {
		case "eq":
			return "(" + x + " = ?)", []any{b}, nil
		case "ne":
			return "(" + x + " <> ?)", []any{b}, nil
		}
		return "", nil, invalidFilter("operator " + op + " does not apply to the boolean " + name)
	}
	s, ok := value.(string)
	if !ok {
		return "", nil, invalidFilter(name + " compares with a string")
	}
	lhs, val := "lower("+x+")", strings.ToLower(s)
	if col.caseExact {
		lhs, val = x, s
	}
	if col.kind == kindID {
		lhs, val = x, strings.ToLower(s)
	}
	switch op {
	case "eq":
		return "(" + lhs + " = ?)", []any{val}, nil
	case "ne":
		return "(" + x + " IS NULL OR " + lhs + " <> ?)", []any{val}, nil
	case "co":
		return "(" + lhs + " LIKE ?)", []any{"%" + likeEscape(val) + "%"}, nil
	case "sw":
		return "(" + lhs + " LIKE ?)", []any{likeEscape(val) + "%"}, nil
	case "ew":
		return "(" + lhs + " LIKE ?)", []any{"%" + likeEscape(val)}, nil
	case "gt":
		return "(" + lhs + " > ?)", []any{val}, nil
	case "ge":
		return "(" + lhs + " >= ?)", []any{val}, nil
	case "lt":
		return "(" + lhs + " < ?)", []any{val}, nil
	case "le":
		return "(" + lhs + " <= ?)", []any{val}, nil
	}
	return "", nil, invalidFilter("unsupported operator " + op)
}
