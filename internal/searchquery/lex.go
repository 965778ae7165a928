// Package searchquery is the ticket search language: a hand-written lexer and
// recursive-descent parser producing an AST. It is pure (no database, no
// clock): store/searchdb compiles the AST to SQL with every value bound as a
// parameter.
//
// Grammar (documented in docs/behaviour/search.md):
//
//	query   = or
//	or      = and { "OR" and }
//	and     = unary { unary }            adjacent terms are ANDed
//	unary   = [ "-" ] primary             "-" negates a field term or a group
//	primary = "(" or ")" | field | word | phrase
//	field   = name ":" [ op ] ( word | phrase )
//	op      = ">=" | "<=" | ">" | "<" | "="
//	phrase  = '"' { char | '\"' | '\\' } '"'
//
// sort:<key>[-asc|-desc] may appear once, at the top level.
package searchquery

import (
	"fmt"
	"unicode/utf8"
)

// Error is a syntax or value error at a 1-based character position.
type Error struct {
	Pos int
	Msg string
}

func (e *Error) Error() string { return fmt.Sprintf("at %d: %s", e.Pos, e.Msg) }

func errAt(pos int, format string, args ...any) *Error {
	return &Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

type kind int

const (
	tEOF kind = iota
	tLParen
	tRParen
	tOr
	tNot
	tField // name:op value
	tText  // a free word or a quoted phrase
)

type token struct {
	kind   kind
	pos    int // 1-based character position
	name   string
	op     string
	value  string
	quoted bool
}

// MaxLength is the longest query accepted, in bytes.
const MaxLength = 1000

type lexer struct {
	src  string
	i    int // byte offset
	char int // characters consumed before i
}

func (l *lexer) peek() (rune, int) {
	if l.i >= len(l.src) {
		return 0, 0
	}
	return utf8.DecodeRuneInString(l.src[l.i:])
}

func (l *lexer) advance(size int) {
	l.i += size
	l.char++
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v' || r == 0xa0 || r == 0x3000
}

// stops ends a bare word.
func stops(r rune) bool { return isSpace(r) || r == '(' || r == ')' || r == '"' }

func (l *lexer) skipSpace() {
	for {
		r, n := l.peek()
		if n == 0 || !isSpace(r) {
			return
		}
		l.advance(n)
	}
}

// phrase reads a quoted string whose opening quote is at l.i.
func (l *lexer) phrase() (string, error) {
	start := l.char + 1
	l.advance(1)
	var b []byte
	for {
		r, n := l.peek()
		switch {
		case n == 0:
			return "", errAt(start, "unterminated quoted string")
		case r == '"':
			l.advance(n)
			return string(b), nil
		case r == '\\':
			l.advance(n)
			r2, n2 := l.peek()
			if n2 == 0 {
				return "", errAt(start, "unterminated quoted string")
			}
			if r2 != '"' && r2 != '\\' {
				return "", errAt(l.char+1, `only \" and \\ are escapes in a quoted string`)
			}
			b = utf8.AppendRune(b, r2)
			l.advance(n2)
		case r == utf8.RuneError && n == 1:
			return "", errAt(l.char+1, "the query is not valid UTF-8")
		default:
			b = append(b, l.src[l.i:l.i+n]...)
			l.advance(n)
		}
	}
}

// word reads a bare word from l.i.
func (l *lexer) word() (string, error) {
	from := l.i
	for {
		r, n := l.peek()
		if n == 0 || stops(r) {
			return l.src[from:l.i], nil
		}
		if r == utf8.RuneError && n == 1 {
			return "", errAt(l.char+1, "the query is not valid UTF-8")
		}
		if r < 0x20 || r == 0x7f {
			return "", errAt(l.char+1, "control characters are not allowed")
		}
		l.advance(n)
	}
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	if key, ok := CustomKey(s); ok {
		return isCustomKey(key)
	}
	for _, c := range []byte(s) {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
			return false
		}
	}
	return true
}

func splitOp(v string) (op, rest string) {
	for _, o := range []string{">=", "<=", ">", "<", "="} {
		if len(v) >= len(o) && v[:len(o)] == o {
			return o, v[len(o):]
		}
	}
	return "", v
}

// next reads one token.
func (l *lexer) next() (token, error) {
	l.skipSpace()
	r, n := l.peek()
	pos := l.char + 1
	switch {
	case n == 0:
		return token{kind: tEOF, pos: pos}, nil
	case r == '(':
		l.advance(n)
		return token{kind: tLParen, pos: pos}, nil
	case r == ')':
		l.advance(n)
		return token{kind: tRParen, pos: pos}, nil
	case r == '"':
		s, err := l.phrase()
		return token{kind: tText, pos: pos, value: s, quoted: true}, err
	case r == '-':
		// A minus directly before a term negates it; alone (or before a
		// space) it is a word.
		if l.i+1 < len(l.src) {
			r2, _ := utf8.DecodeRuneInString(l.src[l.i+1:])
			if !isSpace(r2) && r2 != ')' && r2 != '-' {
				l.advance(n)
				return token{kind: tNot, pos: pos}, nil
			}
		}
	}
	w, err := l.word()
	if err != nil {
		return token{}, err
	}
	if w == "OR" {
		return token{kind: tOr, pos: pos}, nil
	}
	for i := 0; i < len(w); i++ {
		if w[i] != ':' {
			continue
		}
		name := w[:i]
		if !isName(name) {
			break // "a.b:c", "::": a plain word
		}
		op, v := splitOp(w[i+1:])
		t := token{kind: tField, pos: pos, name: name, op: op, value: v}
		if v == "" {
			if r, n := l.peek(); n > 0 && r == '"' {
				s, err := l.phrase()
				if err != nil {
					return token{}, err
				}
				t.value, t.quoted = s, true
			}
		}
		return t, nil
	}
	return token{kind: tText, pos: pos, value: w}, nil
}
