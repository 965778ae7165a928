// Package importer imports export documents into an organization: it
// validates a document (every problem with its JSON path), records the
// import with its document, and runs it in steps — stage the document into
// rows once, import the catalog (users, workflows, labels, projects,
// sprints), then the tickets in batches — each step idempotent, so the
// Import workflow may retry or resume any of them.
package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"tracker/domain"
	"tracker/domain/export"
)

// VersionError is a document of an unsupported version; the API answers it
// with the spec's own body, where error is a plain string.
type VersionError struct {
	Received string // as the document wrote it
}

func (e *VersionError) Error() string { return "unsupported export version" }

// Details names the received and the expected version.
func (e *VersionError) Details() string {
	return fmt.Sprintf("received version %s, expected %d", e.Received, export.Version)
}

// decoded is a document read from JSON with the problems of its shape.
type decoded struct {
	doc export.Document
	// typeProblems are values of the wrong JSON type, by path.
	typeProblems []string
	typePaths    map[string]bool
	// complete is false when decoding stopped early (a malformed
	// timestamp): the rules are then not checked.
	complete bool
}

// decode reads a document: a body that is not JSON is a 400; a version
// other than 1 is a *VersionError, whatever else is wrong.
func decode(body []byte) (decoded, error) {
	var d decoded
	err := json.Unmarshal(body, &d.doc)
	var syn *json.SyntaxError
	if errors.As(err, &syn) || (err != nil && len(bytes.TrimSpace(body)) == 0) {
		return d, domain.BadRequest("malformed JSON body")
	}
	if err == nil {
		d.complete = true
		if v := d.doc.Version; v != nil && *v != export.Version {
			return d, &VersionError{Received: fmt.Sprint(*v)}
		}
		return d, nil
	}
	var ute *json.UnmarshalTypeError
	d.complete = errors.As(err, &ute)
	// Some value has the wrong type: walk the generic form of the body to
	// name every such path, not only the first one.
	var raw any
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	if err := dec.Decode(&raw); err != nil {
		return d, domain.BadRequest("malformed JSON body")
	}
	if m, ok := raw.(map[string]any); ok {
		if n, ok := m["version"].(json.Number); ok && n.String() != fmt.Sprint(export.Version) {
			return d, &VersionError{Received: n.String()}
		}
	}
	d.typePaths = map[string]bool{}
	tc := typeChecker{out: &d}
	tc.check(reflect.TypeOf(d.doc), raw, "")
	return d, nil
}

var timeType = reflect.TypeOf(time.Time{})

type typeChecker struct{ out *decoded }

func (tc typeChecker) add(path, problem string) {
	if path == "" {
		path = "body"
	}
	tc.out.typePaths[path] = true
	tc.out.typeProblems = append(tc.out.typeProblems, path+": "+problem)
}

// check compares a generic JSON value with the Go type it decodes into.
// null is accepted everywhere here: the rules report required values.
func (tc typeChecker) check(t reflect.Type, v any, path string) {
	if v == nil {
		return
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		s, ok := v.(string)
		if _, err := time.Parse(time.RFC3339Nano, s); !ok || err != nil {
			tc.add(path, "must be an RFC 3339 timestamp")
		}
	case t.Kind() == reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			tc.add(path, "must be an object")
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := strings.Split(f.Tag.Get("json"), ",")[0]
			if fv, ok := m[name]; ok && name != "" && name != "-" {
				tc.check(f.Type, fv, join(path, name))
			}
		}
	case t.Kind() == reflect.Slice:
		arr, ok := v.([]any)
		if !ok {
			tc.add(path, "must be an array")
			return
		}
		for i, e := range arr {
			tc.check(t.Elem(), e, fmt.Sprintf("%s[%d]", path, i))
		}
	case t.Kind() == reflect.String:
		if _, ok := v.(string); !ok {
			tc.add(path, "must be a string")
		}
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		n, ok := v.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			tc.add(path, "must be an integer")
		}
	}
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
