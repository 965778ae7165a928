package domain

import (
	"bytes"
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
	"unsafe"
)

// JSONNames checks the member names of every object in a valid JSON text
// (json.Valid) against the Go type into it decodes into (nil: any):
//
//   - no object names a member twice (I-JSON, RFC 7493 §2.3): readers keep
//     one of the values, and which one differs from reader to reader (Go's
//     the last, others the first or an error), so a proxy, a validator and
//     the service would each see another request;
//   - a member whose name matches a field of a struct only ignoring case
//     (encoding/json matches names case-insensitively, so {"Title": …}
//     set title) is refused: names match exactly. A member that matches no
//     field is ignored, as before.
//
// Names are compared as decoded (`"ti\u0074le"` is title). The walk is
// one pass over the bytes that allocates only for escaped names, objects of
// more than a few members and the problem it reports (a 422 naming the
// member by its JSON path). Bind, the import document and the signed
// integration payloads read bodies through it; SCIM through
// JSONNamesCaseless.
func JSONNames(b []byte, into reflect.Type) error {
	s := nameScan{b: b}
	s.value(shapeOf(into))
	return s.err
}

// JSONNamesCaseless is JSONNames for SCIM, whose attribute names are
// case-insensitive (RFC 7643 §2.1): names differing only in case name the
// same attribute, so they are duplicates; their spelling is free.
func JSONNamesCaseless(b []byte) error {
	s := nameScan{b: b, caseless: true}
	s.value(nil)
	return s.err
}

// JSONInner is implemented by a type that decodes itself from the JSON of
// another type (domain.Opt[T] from T's), so JSONNames checks the names
// inside it as that type's.
type JSONInner interface {
	JSONInner() reflect.Type
}

// shape is what JSONNames knows of a type: a struct's fields by exact name
// and by folded name, or a map's or slice's element; nil is any JSON.
type shape struct {
	fields map[string]reflect.Type
	folded map[string]string // folded name → field name
	isMap  bool
	elem   reflect.Type // map values, slice elements
}

var shapes sync.Map // reflect.Type → *shape (nil for any JSON)

func shapeOf(t reflect.Type) *shape {
	if t == nil {
		return nil
	}
	if sh, ok := shapes.Load(t); ok {
		return sh.(*shape)
	}
	sh := newShape(t)
	shapes.Store(t, sh)
	return sh
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonInner       = reflect.TypeFor[JSONInner]()
)

func newShape(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	pt := reflect.PointerTo(t)
	if pt.Implements(jsonInner) {
		return shapeOf(reflect.New(t).Interface().(JSONInner).JSONInner())
	}
	if pt.Implements(jsonUnmarshaler) || pt.Implements(textUnmarshaler) {
		return nil // decodes itself: its names are its own
	}
	switch t.Kind() {
	case reflect.Struct:
		sh := &shape{fields: jsonFields(t), folded: map[string]string{}}
		for name := range sh.fields {
			sh.folded[string(foldName(nil, []byte(name)))] = name
		}
		return sh
	case reflect.Map:
		return &shape{isMap: true, elem: t.Elem()}
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return nil // base64 text
		}
		return &shape{elem: t.Elem()}
	}
	return nil
}

// JSONFields are the JSON members of struct type t as jsonFields names
// them, found once per type (nil for a type that decodes itself).
func JSONFields(t reflect.Type) map[string]reflect.Type {
	if sh := shapeOf(t); sh != nil {
		return sh.fields
	}
	return nil
}

// jsonFields are the JSON members of struct type t as encoding/json names
// them: the tag's name, else the field's; the fields of an untagged
// embedded struct promoted; of one name, the shallowest field wins, and a
// tagged one among equals; equals otherwise cancel out.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	type field struct {
		typ    reflect.Type
		depth  int
		tagged bool
		count  int
	}
	found := map[string]*field{}
	level := []reflect.Type{t}
	seen := map[reflect.Type]bool{}
	for depth := 0; len(level) > 0; depth++ {
		var next []reflect.Type
		for _, st := range level {
			if seen[st] {
				continue
			}
			seen[st] = true
			for i := 0; i < st.NumField(); i++ {
				f := st.Field(i)
				tag := f.Tag.Get("json")
				if tag == "-" {
					continue
				}
				name, _, _ := strings.Cut(tag, ",")
				if f.Anonymous && name == "" {
					ft := f.Type
					if ft.Kind() == reflect.Pointer {
						ft = ft.Elem()
					}
					if ft.Kind() == reflect.Struct {
						next = append(next, ft)
						continue
					}
				}
				if !f.IsExported() {
					continue
				}
				if name == "" {
					name = f.Name
				}
				tagged := name != f.Name || tag != ""
				switch cur := found[name]; {
				case cur == nil || depth < cur.depth:
					found[name] = &field{typ: f.Type, depth: depth, tagged: tagged, count: 1}
				case depth == cur.depth && tagged && !cur.tagged:
					*cur = field{typ: f.Type, depth: depth, tagged: true, count: 1}
				case depth == cur.depth && tagged == cur.tagged:
					cur.count++
				}
			}
		}
		level = next
	}
	out := make(map[string]reflect.Type, len(found))
	for name, f := range found {
		if f.count == 1 {
			out[name] = f.typ
		}
	}
	return out
}

// foldName appends name folded as encoding/json folds names to match
// them: ASCII upper case, and every other rune to the smallest rune of its
// case-folding orbit (so the Kelvin sign matches k).
func foldName(dst, name []byte) []byte {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		for {
			r2 := unicode.SimpleFold(r)
			if r2 <= r {
				r = r2
				break
			}
			r = r2
		}
		dst = utf8.AppendRune(dst, r)
		i += n
	}
	return dst
}

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
