package export

import "sync/atomic"

// pipe hands the sink's calls to a goroutine of their own, so reading the
// next batch from PostgreSQL overlaps with encoding the previous one (the
// machine has two cores). Calls keep their order; the buffer bounds memory.
type pipe struct {
	out  sink
	ch   chan func() error
	err  atomic.Pointer[error]
	done chan struct{}
}

func startPipe(out sink) *pipe {
	p := &pipe{out: out, ch: make(chan func() error, 512), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		for f := range p.ch {
			if p.err.Load() != nil {
				continue // drain: the producer stops at its next call
			}
			if err := f(); err != nil {
				p.err.Store(&err)
			}
		}
	}()
	return p
}

func (p *pipe) send(f func() error) error {
	if e := p.err.Load(); e != nil {
		return *e
	}
	p.ch <- f
	return nil
}

// close waits for the queued calls and returns the first error of any.
func (p *pipe) close() error {
	close(p.ch)
	<-p.done
	if e := p.err.Load(); e != nil {
		return *e
	}
	return nil
}

func (p *pipe) header(h Header) error { return p.send(func() error { return p.out.header(h) }) }
func (p *pipe) users(u []User) error  { return p.send(func() error { return p.out.users(u) }) }
func (p *pipe) workflows(w []Workflow) error {
	return p.send(func() error { return p.out.workflows(w) })
}
func (p *pipe) labels(l []Label) error { return p.send(func() error { return p.out.labels(l) }) }
func (p *pipe) teams(t []Team) error   { return p.send(func() error { return p.out.teams(t) }) }
func (p *pipe) fields(f []CustomField) error {
	return p.send(func() error { return p.out.fields(f) })
}
func (p *pipe) project(pr Project) error { return p.send(func() error { return p.out.project(pr) }) }
func (p *pipe) endProject() error        { return p.send(p.out.endProject) }
func (p *pipe) end() error               { return p.send(p.out.end) }
func (p *pipe) ticket(key string, t Ticket) error {
	return p.send(func() error { return p.out.ticket(key, t) })
}
