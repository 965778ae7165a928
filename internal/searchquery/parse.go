package searchquery

import "strings"

// Limits of one query.
const (
	MaxTerms = 50
	MaxDepth = 10
)

type parser struct {
	lx    lexer
	tok   token
	q     Query
	terms int
	depth int
	sort  bool
}

// Parse reads a query. Errors are *Error with the 1-based character position.
func Parse(src string) (Query, error) {
	if len(src) > MaxLength {
		return Query{}, errAt(MaxLength+1, "the query is longer than %d bytes", MaxLength)
	}
	p := &parser{lx: lexer{src: src}, q: Query{Sort: Sort{Key: SortID}}}
	if err := p.advance(); err != nil {
		return Query{}, err
	}
	if p.tok.kind == tEOF {
		return p.q, nil
	}
	root, err := p.or()
	if err != nil {
		return Query{}, err
	}
	if p.q.HasText && !p.sort {
		p.q.Sort = Sort{Key: SortRelevance, Desc: true}
	}
	if p.tok.kind != tEOF {
		if p.tok.kind == tRParen {
			return Query{}, errAt(p.tok.pos, "unmatched )")
		}
		return Query{}, errAt(p.tok.pos, "unexpected input")
	}
	p.q.Root = root
	return p.q, nil
}

func (p *parser) advance() error {
	t, err := p.lx.next()
	if err != nil {
		return err
	}
	p.tok = t
	return nil
}

func (p *parser) or() (Node, error) {
	first, err := p.and()
	if err != nil {
		return nil, err
	}
	terms := []Node{first}
	for p.tok.kind == tOr {
		pos := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		if !p.startsTerm() {
			return nil, errAt(pos, "OR needs a term on both sides")
		}
		n, err := p.and()
		if err != nil {
			return nil, err
		}
		terms = append(terms, n)
	}
	if len(terms) > 1 {
		for _, t := range terms {
			if t == nil {
				return nil, errAt(p.tok.pos, "sort: cannot be a side of OR")
			}
		}
		return Or{Terms: terms}, nil
	}
	return first, nil
}

func (p *parser) startsTerm() bool {
	switch p.tok.kind {
	case tLParen, tNot, tField, tText:
		return true
	}
	return false
}

// and reads adjacent terms; it returns nil when the only term was sort:.
func (p *parser) and() (Node, error) {
	if !p.startsTerm() {
		switch p.tok.kind {
		case tOr:
			return nil, errAt(p.tok.pos, "OR needs a term on both sides")
		case tRParen:
			return nil, errAt(p.tok.pos, "unmatched )")
		}
		return nil, errAt(p.tok.pos, "a term is expected")
	}
	var terms []Node
	for p.startsTerm() {
		if p.tok.kind == tField && strings.EqualFold(p.tok.name, "sort") {
			if err := p.sortTerm(); err != nil {
				return nil, err
			}
			continue
		}
		n, err := p.unary()
		if err != nil {
			return nil, err
		}
		terms = append(terms, n)
	}
	switch len(terms) {
	case 0:
		return nil, nil
	case 1:
		return terms[0], nil
	}
	return And{Terms: terms}, nil
}

func (p *parser) sortTerm() error {
	t := p.tok
	if p.depth > 0 {
		return errAt(t.pos, "sort: may only appear at the top level of the query")
	}
	if p.sort {
		return errAt(t.pos, "sort: may appear only once")
	}
	s, ok := ParseSort(t.value)
	if !ok || t.op != "" {
		return errAt(t.pos, "sort: must be created, updated, priority, number, due, estimate, relevance or cf.<key>, optionally with -asc or -desc")
	}
	s.Pos = t.pos
	p.sort = true
	p.q.Sort = s
	return p.advance()
}

func (p *parser) unary() (Node, error) {
	if p.tok.kind == tNot {
		pos := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tField && strings.EqualFold(p.tok.name, "sort") {
			return nil, errAt(pos, "sort: cannot be negated")
		}
		if p.tok.kind == tNot || !p.startsTerm() {
			return nil, errAt(pos, "- must be followed by a term")
		}
		n, err := p.primary()
		if err != nil {
			return nil, err
		}
		return Not{Term: n, Pos: pos}, nil
	}
	return p.primary()
}

func (p *parser) count(pos int) error {
	p.terms++
	if p.terms > MaxTerms {
		return errAt(pos, "the query has more than %d terms", MaxTerms)
	}
	return nil
}

func (p *parser) primary() (Node, error) {
	t := p.tok
	switch t.kind {
	case tLParen:
		p.depth++
		if p.depth > MaxDepth {
			return nil, errAt(t.pos, "parentheses nest deeper than %d", MaxDepth)
		}
		if err := p.advance(); err != nil {
			return nil, err
		}
		if p.tok.kind == tRParen {
			return nil, errAt(p.tok.pos, "empty parentheses")
		}
		n, err := p.or()
		if err != nil {
			return nil, err
		}
		if p.tok.kind != tRParen {
			return nil, errAt(t.pos, "unmatched (")
		}
		p.depth--
		return n, p.advance()
	case tText:
		if err := p.count(t.pos); err != nil {
			return nil, err
		}
		if strings.TrimSpace(t.value) == "" {
			return nil, errAt(t.pos, "empty quoted string")
		}
		p.q.HasText = true
		return Text{Value: t.value, Quoted: t.quoted, Pos: t.pos}, p.advance()
	case tField:
		if err := p.count(t.pos); err != nil {
			return nil, err
		}
		term, err := checkField(t)
		if err != nil {
			return nil, err
		}
		return term, p.advance()
	}
	return nil, errAt(t.pos, "a term is expected")
}
