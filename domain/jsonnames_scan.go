package domain

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// nameScan walks a valid JSON text once.
type nameScan struct {
	b        []byte
	i        int
	caseless bool
	path     []pathStep // where the walk is, for the problem's path
	err      error
}

type pathStep struct {
	name  []byte // a member; nil for an array element
	index int
}

func (s *nameScan) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// peek is the byte at s.i, 0 at the end (the text is valid JSON, so only a
// caller that did not check it reaches the end early; the walk then stops).
func (s *nameScan) peek() byte {
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// str reads the string at s.i (its opening quote) and returns its content
// as written, and whether it holds an escape.
func (s *nameScan) str() ([]byte, bool) {
	start := s.i + 1
	i, escaped := start, false
	for i <= len(s.b) {
		q := bytes.IndexByte(s.b[i:], '"')
		if q < 0 {
			break
		}
		bs := bytes.IndexByte(s.b[i:i+q], '\\')
		if bs < 0 {
			s.i = i + q + 1
			return s.b[start : i+q], escaped
		}
		escaped = true
		i += bs + 2 // the backslash and the character it escapes
	}
	s.i = len(s.b)
	return nil, escaped
}

func (s *nameScan) value(sh *shape) {
	s.ws()
	switch s.peek() {
	case 0:
	case '{':
		s.object(sh)
	case '[':
		s.array(sh)
	case '"':
		s.str()
	default: // a number, true, false or null
		for s.i < len(s.b) {
			switch s.b[s.i] {
			case ',', ']', '}', ' ', '\t', '\n', '\r':
				return
			}
			s.i++
		}
	}
}

func (s *nameScan) array(sh *shape) {
	var elem *shape
	if sh != nil && !sh.isMap && sh.fields == nil {
		elem = shapeOf(sh.elem)
	}
	s.i++ // [
	s.path = append(s.path, pathStep{})
	defer func() { s.path = s.path[:len(s.path)-1] }()
	for n := 0; s.err == nil; n++ {
		s.ws()
		switch s.peek() {
		case 0:
			return
		case ']':
			s.i++
			return
		case ',':
			s.i++
		}
		s.path[len(s.path)-1].index = n
		s.value(elem)
	}
}

// smallObject is how many names an object keeps in a list before a map.
const smallObject = 16

func (s *nameScan) object(sh *shape) {
	s.i++ // {
	// The names seen, as strings over the body's bytes (never copied: the
	// body outlives the walk): in a list while they are few, so the usual
	// body allocates nothing, in a map past that.
	var (
		small [smallObject]string
		names = small[:0]
		many  map[string]bool
		fold  [64]byte
	)
	s.path = append(s.path, pathStep{})
	defer func() { s.path = s.path[:len(s.path)-1] }()
	for s.err == nil {
		s.ws()
		switch s.peek() {
		case 0:
			return
		case '}':
			s.i++
			return
		case ',':
			s.i++
			s.ws()
		}
		raw, escaped := s.str()
		name := raw
		if escaped {
			var dec string
			if json.Unmarshal(s.b[s.i-len(raw)-2:s.i], &dec) == nil {
				name = []byte(dec)
			}
		}
		s.path[len(s.path)-1].name = name
		key := unsafe.String(unsafe.SliceData(name), len(name))
		if s.caseless {
			key = string(foldName(nil, name))
		}
		if many == nil && len(names) == smallObject {
			many = make(map[string]bool, 4*smallObject)
			for _, n := range names {
				many[n] = true
			}
		}
		dup := false
		if many != nil {
			dup = many[key]
			many[key] = true
		} else {
			dup = slices.Contains(names, key)
			names = append(names, key)
		}
		if dup {
			s.fail("duplicate member name (names must be unique: I-JSON, RFC 7493)")
			return
		}
		var sub *shape
		switch {
		case sh == nil:
		case sh.isMap:
			sub = shapeOf(sh.elem)
		case sh.fields != nil:
			if t, ok := sh.fields[key]; ok {
				sub = shapeOf(t)
			} else if exact, ok := sh.folded[string(foldName(fold[:0], name))]; ok {
				s.fail("must be spelled " + strconv.Quote(exact) + " (member names are case-sensitive)")
				return
			}
		}
		s.ws()
		s.i++ // :
		s.value(sub)
	}
}

// fail records the problem of the member the walk is at.
func (s *nameScan) fail(problem string) {
	var path strings.Builder
	for _, st := range s.path {
		if st.name == nil {
			path.WriteString("[" + strconv.Itoa(st.index) + "]")
			continue
		}
		if path.Len() > 0 {
			path.WriteByte('.')
		}
		path.Write(st.name)
	}
	s.err = Invalid(path.String() + ": " + problem)
}
