package export

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
)

// WriteJSON streams the scope's export document to w: each element is
// encoded as it is read, so memory holds one batch of tickets at a time.
// The top-level keys come in the order version, source, exported_at,
// users, workflows, labels, teams, fields, projects (the largest last).
func (s *Service) WriteJSON(ctx context.Context, sc Scope, w io.Writer) error {
	bw := bufio.NewWriterSize(w, 256<<10)
	js := &jsonSink{w: bw}
	if err := s.walk(ctx, sc, js); err != nil {
		return err
	}
	return bw.Flush()
}

type jsonSink struct {
	w        *bufio.Writer
	projects int // projects written so far
	tickets  int // tickets written in the current project
}

func (j *jsonSink) raw(s string) error {
	_, err := j.w.WriteString(s)
	return err
}

func (j *jsonSink) value(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = j.w.Write(b)
	return err
}

func (j *jsonSink) field(name string, v any, first bool) error {
	sep := ","
	if first {
		sep = ""
	}
	if err := j.raw(sep + `"` + name + `":`); err != nil {
		return err
	}
	return j.value(v)
}

func (j *jsonSink) header(h Header) error {
	if err := j.raw("{"); err != nil {
		return err
	}
	if err := j.field("version", h.Version, true); err != nil {
		return err
	}
	if err := j.field("source", h.Source, false); err != nil {
		return err
	}
	return j.field("exported_at", h.ExportedAt, false)
}

func (j *jsonSink) users(u []User) error         { return j.field("users", u, false) }
func (j *jsonSink) workflows(w []Workflow) error { return j.field("workflows", w, false) }

func (j *jsonSink) labels(l []Label) error { return j.field("labels", l, false) }

func (j *jsonSink) teams(t []Team) error { return j.field("teams", t, false) }

// fields writes the custom field definitions (left out when there are
// none) and opens the projects array.
func (j *jsonSink) fields(f []CustomField) error {
	if len(f) > 0 {
		if err := j.field("fields", f, false); err != nil {
			return err
		}
	}
	return j.raw(`,"projects":[`)
}

// project writes the project's fields and opens its tickets array:
// tickets is the last field of Project, so the project encoded without
// tickets ends in `"tickets":null}`, whose null becomes the open array.
func (j *jsonSink) project(p Project) error {
	if j.projects > 0 {
		if err := j.raw(","); err != nil {
			return err
		}
	}
	j.projects++
	j.tickets = 0
	p.Tickets = nil
	b, err := json.Marshal(p)
	if err != nil {
		return err
	}
	if !bytes.HasSuffix(b, openTickets) {
		return errors.New("export: project encoding does not end with its tickets")
	}
	if _, err := j.w.Write(b[:len(b)-len("null}")]); err != nil {
		return err
	}
	return j.raw("[")
}

var openTickets = []byte(`"tickets":null}`)

func (j *jsonSink) ticket(_ string, t Ticket) error {
	if j.tickets > 0 {
		if err := j.raw(","); err != nil {
			return err
		}
	}
	j.tickets++
	return j.value(t)
}

// endProject closes the project and hands what is buffered to the client.
func (j *jsonSink) endProject() error {
	if err := j.raw("]}"); err != nil {
		return err
	}
	return j.w.Flush()
}

func (j *jsonSink) end() error { return j.raw("]}") }
