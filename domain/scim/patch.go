package scim

import (
	"encoding/json"
	"strings"

	filter "github.com/scim2/filter-parser/v2"
)

// MaxOperations bounds a PATCH request.
const MaxOperations = 100

// operation is one PATCH operation, op lower-cased (Entra sends "Replace").
type operation struct {
	Op    string
	Path  string
	Value any
	has   bool // value present
}

// readPatch reads a PatchOp body.
func readPatch(body []byte) ([]operation, error) {
	m, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	raw, ok := lowerKeys(m)["operations"].([]any)
	if !ok || len(raw) == 0 {
		return nil, invalidSyntax("Operations must be a non-empty array")
	}
	if len(raw) > MaxOperations {
		return nil, invalidSyntax("at most 100 operations per request")
	}
	ops := make([]operation, 0, len(raw))
	for _, r := range raw {
		o, ok := r.(map[string]any)
		if !ok {
			return nil, invalidSyntax("each operation must be an object")
		}
		o = lowerKeys(o)
		opName, _ := o["op"].(string)
		op := operation{Op: strings.ToLower(strings.TrimSpace(opName))}
		if op.Op != "add" && op.Op != "replace" && op.Op != "remove" {
			return nil, invalidSyntax(`op must be "add", "replace" or "remove"`)
		}
		if p, present := o["path"]; present && p != nil {
			ps, isStr := p.(string)
			if !isStr {
				return nil, invalidPath("path must be a string")
			}
			op.Path = strings.TrimSpace(ps)
		}
		op.Value, op.has = o["value"]
		if op.Path == "" && op.Op == "remove" {
			return nil, noTarget("remove needs a path")
		}
		if op.Path == "" && op.Op != "remove" {
			if _, isObj := op.Value.(map[string]any); !isObj {
				return nil, invalidValue("an operation without a path needs an object value")
			}
		}
		ops = append(ops, op)
	}
	return ops, nil
}

// pathOps expands an operation into (path, value) pairs: a path-less add or
// replace addresses each key of its object value (keys may themselves be
// paths such as "name.givenName" or `emails[type eq "work"].value`).
func pathOps(op operation) [][2]any {
	if op.Path != "" {
		return [][2]any{{op.Path, op.Value}}
	}
	var out [][2]any
	for k, v := range op.Value.(map[string]any) {
		out = append(out, [2]any{k, v})
	}
	return out
}

// userAttrs are the User attributes this service keeps.
var userAttrs = map[string]bool{"username": true, "displayname": true, "externalid": true, "active": true, "name": true, "emails": true}

// patchUser applies one operation to a user's state.
func patchUser(st *userState, op operation) error {
	for _, pv := range pathOps(op) {
		attr, vf, sub, ok, err := parsePath(pv[0].(string), UserSchema)
		if err != nil {
			return err
		}
		if !ok {
			continue // an extension attribute: not kept
		}
		v := pv[1]
		if !userAttrs[attr] {
			continue // phoneNumbers, addresses, title, …: accepted, not kept
		}
		if attr == "emails" && (vf != nil || op.Op != "replace") {
			if err := patchEmails(st, op.Op, vf, sub, v); err != nil {
				return err
			}
			continue
		}
		if vf != nil {
			return invalidPath("value filters apply to emails and members only")
		}
		if op.Op == "remove" {
			switch attr {
			case "username":
				return mutability("userName is required and cannot be removed")
			case "active":
				return mutability("active cannot be removed")
			}
			v = nil
		}
		if attr == "name" && sub == "" && op.Op == "add" {
			// add merges into the complex attribute.
			if m, isObj := v.(map[string]any); isObj {
				for k, x := range lowerKeys(m) {
					if err := setUserAttr(st, "name", k, x); err != nil {
						return err
					}
				}
				continue
			}
		}
		if err := setUserAttr(st, attr, sub, v); err != nil {
			return err
		}
	}
	return nil
}

// patchEmails applies add/replace/remove to the emails, optionally through
// a value filter and a sub-attribute.
func patchEmails(st *userState, op string, vf filter.Expression, sub string, v any) error {
	get := func(e email) func(string) any {
		return func(a string) any {
			switch a {
			case "value":
				return e.Value
			case "type":
				return e.Type
			case "primary":
				return e.Primary
			}
			return nil
		}
	}
	if vf == nil {
		switch op {
		case "remove":
			if sub != "" {
				return noTarget("remove emails." + sub + " needs a value filter")
			}
			st.Emails = nil
			return nil
		case "add":
			if sub != "" {
				return invalidPath("add to emails." + sub + " needs a value filter")
			}
			list, err := readEmails(v)
			if err != nil {
				return err
			}
			for _, e := range list {
				dup := false
				for _, x := range st.Emails {
					dup = dup || strings.EqualFold(x.Value, e.Value)
				}
				if !dup {
					st.Emails = append(st.Emails, e)
				}
			}
			return nil
		}
	}
	var kept []email
	matched := 0
	for _, e := range st.Emails {
		ok := true
		if vf != nil {
			var err error
			if ok, err = match(vf, get(e)); err != nil {
				return err
			}
		}
		if !ok {
			kept = append(kept, e)
			continue
		}
		matched++
		if op == "remove" {
			if sub != "" {
				if err := setEmailSub(&e, sub, nil); err != nil {
					return err
				}
				kept = append(kept, e)
			}
			continue
		}
		if err := replaceEmail(&e, sub, v); err != nil {
			return err
		}
		kept = append(kept, e)
	}
	if matched == 0 && op != "remove" {
		// Nothing matched: add the email the filter describes.
		var e email
		if ex, isExpr := vf.(*filter.AttributeExpression); isExpr && strings.EqualFold(ex.AttributePath.AttributeName, "type") {
			e.Type, _ = ex.CompareValue.(string)
		}
		if err := replaceEmail(&e, sub, v); err != nil {
			return err
		}
		if len(kept) == 0 {
			e.Primary = true
		}
		kept = append(kept, e)
	}
	st.Emails = kept
	return nil
}

func replaceEmail(e *email, sub string, v any) error {
	if sub != "" {
		return setEmailSub(e, sub, v)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return invalidValue("an email must be an object")
	}
	n, err := readEmail(lowerKeys(m))
	if err != nil {
		return err
	}
	*e = n
	return nil
}

func setEmailSub(e *email, sub string, v any) error {
	switch sub {
	case "value", "type":
		s, err := str(v, "emails."+sub)
		if err != nil {
			return err
		}
		if sub == "value" {
			e.Value = deref(s)
		} else {
			e.Type = deref(s)
		}
	case "primary":
		if v == nil {
			e.Primary = false
			return nil
		}
		b, err := boolValue(v, "emails.primary")
		if err != nil {
			return err
		}
		e.Primary = b
	default:
		return invalidPath("emails has no sub-attribute " + sub)
	}
	return nil
}

// memberIDs reads members values: an array of {"value": id} objects (or one).
func memberIDs(v any) ([]string, error) {
	if v == nil {
		return nil, nil
	}
	items, ok := v.([]any)
	if !ok {
		if one, isObj := v.(map[string]any); isObj {
			items = []any{one}
		} else {
			return nil, invalidValue(`members must be an array of {"value": id} objects`)
		}
	}
	out := make([]string, 0, len(items))
	for _, it := range items {
		m, ok := it.(map[string]any)
		if !ok {
			return nil, invalidValue(`members must be an array of {"value": id} objects`)
		}
		id, ok := lowerKeys(m)["value"].(string)
		if !ok {
			return nil, invalidValue("members.value must be a string")
		}
		out = append(out, id)
	}
	return out, nil
}

var _ = json.Marshal
