package domain

import (
	"encoding"
	"encoding/json"
	"reflect"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
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
