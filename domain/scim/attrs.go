package scim

import (
	"encoding/json"
	"fmt"
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// stripURN removes the core schema's URN prefix from an attribute name;
// ok is false for another schema's attribute (an extension this service
// does not keep).
func stripURN(name, schema string) (string, bool) {
	if len(name) > len(schema) && strings.EqualFold(name[:len(schema)], schema) {
		rest := name[len(schema):]
		if rest[0] == ':' {
			return rest[1:], true
		}
	}
	if strings.HasPrefix(strings.ToLower(name), "urn:") {
		return "", false
	}
	return name, true
}

// parsePath parses a PATCH path (or a no-path value's key) into a lower-case
// attribute name, an optional value filter and an optional lower-case
// sub-attribute; ok is false for an extension attribute.
func parsePath(raw, schema string) (attr string, vf filter.Expression, sub string, ok bool, err error) {
	raw = strings.TrimSpace(raw)
	name, ok := stripURN(raw, schema)
	if !ok {
		return "", nil, "", false, nil
	}
	if len(name) > MaxFilterLength {
		return "", nil, "", false, invalidPath("the path is too long")
	}
	defer func() {
		if r := recover(); r != nil {
			err = invalidPath("the path does not parse")
		}
	}()
	p, perr := filter.ParsePath([]byte(name))
	if perr != nil {
		return "", nil, "", false, invalidPath(fmt.Sprintf("the path %q does not parse", raw))
	}
	attr = strings.ToLower(p.AttributePath.AttributeName)
	if p.AttributePath.SubAttribute != nil {
		sub = strings.ToLower(*p.AttributePath.SubAttribute)
	}
	if p.SubAttribute != nil {
		sub = strings.ToLower(*p.SubAttribute)
	}
	return attr, p.ValueExpression, sub, true, nil
}

// match evaluates a value filter (emails[type eq "work"], members[value eq
// "…"]) against one element, read by lower-case sub-attribute name.
func match(e filter.Expression, get func(attr string) any) (bool, error) {
	switch e := e.(type) {
	case *filter.LogicalExpression:
		l, err := match(e.Left, get)
		if err != nil {
			return false, err
		}
		r, err := match(e.Right, get)
		if err != nil {
			return false, err
		}
		if strings.EqualFold(string(e.Operator), "or") {
			return l || r, nil
		}
		return l && r, nil
	case *filter.NotExpression:
		v, err := match(e.Expression, get)
		return !v, err
	case *filter.AttributeExpression:
		name := strings.ToLower(e.AttributePath.AttributeName)
		if e.AttributePath.SubAttribute != nil {
			name += "." + strings.ToLower(*e.AttributePath.SubAttribute)
		}
		v := get(name)
		op := strings.ToLower(string(e.Operator))
		if op == "pr" {
			return v != nil && v != "", nil
		}
		switch want := e.CompareValue.(type) {
		case bool:
			b, _ := v.(bool)
			switch op {
			case "eq":
				return b == want, nil
			case "ne":
				return b != want, nil
			}
		case string:
			s, _ := v.(string)
			s, w := strings.ToLower(s), strings.ToLower(want)
			switch op {
			case "eq":
				return s == w, nil
			case "ne":
				return s != w, nil
			case "co":
				return strings.Contains(s, w), nil
			case "sw":
				return strings.HasPrefix(s, w), nil
			case "ew":
				return strings.HasSuffix(s, w), nil
			}
		}
		return false, invalidFilter("unsupported comparison in a value filter: " + op)
	}
	return false, invalidFilter("unsupported value filter")
}

// Projection is a request's attributes / excludedAttributes, as sent
// (comma-separated; read against the resource's schema when applied).
type Projection struct {
	Attributes, Excluded string
}

// NewProjection reads the comma-separated attribute lists.
func NewProjection(attributes, excluded string) Projection {
	return Projection{Attributes: attributes, Excluded: excluded}
}

// wants reports whether a top-level attribute (lower case) is returned:
// id and schemas always are.
func (p Projection) wants(attr, schema string) bool {
	if attr == "id" || attr == "schemas" {
		return true
	}
	if attrs := splitAttrs(p.Attributes, schema); len(attrs) > 0 {
		for _, a := range attrs {
			if a == attr || strings.HasPrefix(a, attr+".") {
				return true
			}
		}
		return false
	}
	for _, a := range splitAttrs(p.Excluded, schema) {
		if a == attr {
			return false
		}
	}
	return true
}

// apply keeps the attributes a client asked for, narrowing complex ones
// by their "attr.sub" entries.
func (p Projection) apply(res map[string]any, schema string) map[string]any {
	attrs, excl := splitAttrs(p.Attributes, schema), splitAttrs(p.Excluded, schema)
	if len(attrs) == 0 && len(excl) == 0 {
		return res
	}
	out := map[string]any{}
	for k, v := range res {
		lk := strings.ToLower(k)
		if !p.wants(lk, schema) {
			continue
		}
		if sub, isObj := v.(map[string]any); isObj {
			v = projectSub(sub, lk, attrs, excl)
		}
		out[k] = v
	}
	return out
}

// projectSub narrows a complex attribute by "attr.sub" entries.
func projectSub(obj map[string]any, attr string, attrs, excl []string) map[string]any {
	var only []string
	for _, a := range attrs {
		if a == attr {
			only = nil
			break
		}
		if s, ok := strings.CutPrefix(a, attr+"."); ok {
			only = append(only, s)
		}
	}
	out := map[string]any{}
	for k, v := range obj {
		lk := strings.ToLower(k)
		keep := len(only) == 0
		for _, s := range only {
			keep = keep || s == lk
		}
		for _, e := range excl {
			if e == attr+"."+lk {
				keep = false
			}
		}
		if keep {
			out[k] = v
		}
	}
	return out
}

// lowerKeys reads a JSON object's keys case-insensitively (SCIM attribute
// names are case-insensitive).
func lowerKeys(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[strings.ToLower(k)] = v
	}
	return out
}

// str reads an optional string value: nil clears, a string sets.
func str(v any, field string) (*string, error) {
	switch v := v.(type) {
	case nil:
		return nil, nil
	case string:
		return &v, nil
	}
	return nil, invalidValue(field + " must be a string")
}

// boolValue reads a boolean given as JSON true/false or, as Entra's legacy
// clients send it, the strings "True"/"False" in any case.
func boolValue(v any, field string) (bool, error) {
	switch v := v.(type) {
	case bool:
		return v, nil
	case string:
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
	}
	return false, invalidValue(field + " must be true or false")
}

// decodeObject reads a request body as a JSON object.
func decodeObject(body []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(body, &m); err != nil || m == nil {
		return nil, invalidSyntax("the body must be a JSON object")
	}
	return m, nil
}

// splitAttrs reads a comma-separated attribute list into lower-case names
// without the schema's URN prefix (other schemas' names are dropped).
func splitAttrs(s, schema string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if n, ok := stripURN(a, schema); ok {
			out = append(out, strings.ToLower(n))
		}
	}
	return out
}
