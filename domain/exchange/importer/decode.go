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
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/internal/civil"
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

// decode reads a document: a body that is not JSON is a 400; a text every
// JSON body is refused for (invalid UTF-8, NUL, a number no double holds,
// a member named twice or only ignoring case: domain.JSONText, JSONNames)
// a 422; then a version other than 1 is a *VersionError, whatever else is
// wrong. The body is
// decoded once, into the document's types; only when some value has the
// wrong type is it read again, as a stream of tokens that never builds the
// generic form of the document (a large import would take ten times its
// size in memory as map[string]any).
func decode(body []byte) (decoded, error) {
	var d decoded
	err := json.Unmarshal(body, &d.doc)
	var syn *json.SyntaxError
	if errors.As(err, &syn) || (err != nil && len(bytes.TrimSpace(body)) == 0) {
		return d, domain.BadRequest("malformed JSON body")
	}
	if err := domain.JSONText(body); err != nil {
		return d, err
	}
	if err := domain.JSONNames(body, documentType); err != nil {
		return d, err
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
	// Some value has the wrong type: walk the tokens of the body to name
	// every such path, not only the first one.
	d.typePaths = map[string]bool{}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	tc := typeChecker{out: &d, dec: dec}
	if err := tc.document(); err != nil {
		return d, err
	}
	return d, nil
}

var (
	timeType     = reflect.TypeOf(time.Time{})
	documentType = reflect.TypeOf(export.Document{})
)

type typeChecker struct {
	out *decoded
	dec *json.Decoder
}

func (tc typeChecker) add(path, problem string) {
	if path == "" {
		path = "body"
	}
	tc.out.typePaths[path] = true
	tc.out.typeProblems = append(tc.out.typeProblems, path+": "+problem)
}

// document checks the top level: an object whose version, when a number
// other than the supported one, wins over every other problem.
func (tc typeChecker) document() error {
	var version error
	err := tc.value(reflect.TypeOf(tc.out.doc), "", func(key string, tok json.Token) {
		if n, ok := tok.(json.Number); ok && key == "version" && n.String() != fmt.Sprint(export.Version) {
			version = &VersionError{Received: n.String()}
		}
	})
	if err != nil {
		return domain.BadRequest("malformed JSON body")
	}
	return version
}

// value reads the next JSON value from the stream and compares it with
// the Go type it decodes into. null is accepted everywhere here: the rules
// report required values. top, when set, sees each top-level key's first
// token.
func (tc typeChecker) value(t reflect.Type, path string, top func(string, json.Token)) error {
	tok, err := tc.dec.Token()
	if err != nil {
		return err
	}
	if tok == nil {
		return nil
	}
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == timeType:
		s, ok := tok.(string)
		if _, err := time.Parse(time.RFC3339Nano, s); !ok || err != nil {
			tc.add(path, "must be an RFC 3339 timestamp")
		}
	case t == reflect.TypeFor[civil.Date]():
		s, ok := tok.(string)
		if _, err := civil.ParseDate(s); !ok || err != nil {
			tc.add(path, "must be a date YYYY-MM-DD")
		}
	case t == reflect.TypeFor[civil.Decimal]():
		n, ok := tok.(json.Number)
		if _, err := civil.ParseDecimal(n.String()); !ok || err != nil {
			tc.add(path, "must be a number with at most two decimal places")
		}
	case t.Kind() == reflect.Struct:
		if tok != json.Delim('{') {
			tc.add(path, "must be an object")
			return tc.skip(tok)
		}
		return tc.object(t, path, top)
	case t.Kind() == reflect.Slice:
		if tok != json.Delim('[') {
			tc.add(path, "must be an array")
			return tc.skip(tok)
		}
		for i := 0; tc.dec.More(); i++ {
			if err := tc.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i), nil); err != nil {
				return err
			}
		}
		_, err = tc.dec.Token() // ]
		return err
	case t.Kind() == reflect.String:
		if _, ok := tok.(string); !ok {
			tc.add(path, "must be a string")
		}
	case t.Kind() == reflect.Int || t.Kind() == reflect.Int64:
		n, ok := tok.(json.Number)
		if _, err := n.Int64(); !ok || err != nil {
			tc.add(path, "must be an integer")
		}
	}
	return tc.skip(tok)
}

// object reads the members of an object (its { already read) against the
// fields of struct type t as encoding/json decodes them: an untagged
// embedded struct's in place (export.Ticket's ticketdb.Content), less those
// a shallower field hides (export.TimeEntry's date is text).
func (tc typeChecker) object(t reflect.Type, path string, top func(string, json.Token)) error {
	fields := domain.JSONFields(t)
	for tc.dec.More() {
		kt, err := tc.dec.Token()
		if err != nil {
			return err
		}
		key, _ := kt.(string)
		ft, ok := fields[key]
		if !ok {
			if err := tc.skipValue(); err != nil {
				return err
			}
			continue
		}
		if top != nil && key == "version" {
			if err := tc.peekVersion(ft, top); err != nil {
				return err
			}
			continue
		}
		if err := tc.value(ft, join(path, key), nil); err != nil {
			return err
		}
	}
	_, err := tc.dec.Token() // }
	return err
}

// peekVersion checks the top-level version (an integer) and hands its
// token to top.
func (tc typeChecker) peekVersion(t reflect.Type, top func(string, json.Token)) error {
	tok, err := tc.dec.Token()
	if err != nil {
		return err
	}
	top("version", tok)
	if tok == nil {
		return nil
	}
	n, ok := tok.(json.Number)
	if _, err := n.Int64(); !ok || err != nil {
		tc.add("version", "must be an integer")
	}
	return tc.skip(tok)
}

// skip reads the rest of a value whose first token was tok.
func (tc typeChecker) skip(tok json.Token) error {
	if tok != json.Delim('{') && tok != json.Delim('[') {
		return nil
	}
	for depth := 1; depth > 0; {
		t, err := tc.dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}

// skipValue reads one whole value.
func (tc typeChecker) skipValue() error {
	tok, err := tc.dec.Token()
	if err != nil {
		return err
	}
	return tc.skip(tok)
}

func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}
