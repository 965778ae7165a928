package sources

import (
	"bytes"
	"io"
	"sort"
	"strings"

	"tracker/domain"
	"tracker/domain/exchange/export"
)

// Opener opens the file from its start. A CSV conversion reads the file
// twice (an index of keys, then the tickets), so it never holds the file,
// nor its converted tickets, in memory.
type Opener func() (io.ReadCloser, error)

// Emit receives each converted ticket with the key of its target project,
// in file order; an error stops the conversion and is returned.
type Emit func(project string, t export.Ticket) error

// Converted is what a streamed conversion answers besides its tickets:
// the catalog (the document without tickets: users, labels, custom field
// definitions, projects with their sprints and ticket counters, the
// source) and the report.
type Converted struct {
	Catalog export.Document
	Report  Report
}

// Convert converts a file of format (any of Formats but tracker_json),
// passing each ticket to emit. CSV formats stream: memory holds the index
// cross-row resolution needs (keys, parents, links, people, the report's
// tallies), never the file. github_json is read whole (its comments are
// joined to issues listed before them).
func Convert(format string, open Opener, m Mapping, t Target, emit Emit) (Converted, error) {
	switch format {
	case "jira_csv":
		return convertCSV(open, m, t, dialect{format: "jira_csv"}, emit)
	case "linear_csv":
		return convertCSV(open, m, t, linearDialect, emit)
	case "csv":
		if err := csvNeeds(m, t); err != nil {
			return Converted{}, err
		}
		return convertCSV(open, m, t, genericDialect, emit)
	case "github_json":
		rc, err := open()
		if err != nil {
			return Converted{}, err
		}
		defer rc.Close()
		res, err := GitHub(rc, m, t)
		if err != nil {
			return Converted{}, err
		}
		return split(res, emit)
	}
	return Converted{}, domain.Invalid("format: must be one of " + strings.Join(Formats, ", "))
}

// split passes a whole document's tickets to emit and answers the rest.
func split(res Result, emit Emit) (Converted, error) {
	cat := res.Doc
	cat.Projects = make([]export.Project, len(res.Doc.Projects))
	for i, p := range res.Doc.Projects {
		for _, tk := range p.Tickets {
			if err := emit(p.Key, tk); err != nil {
				return Converted{}, err
			}
		}
		p.Tickets = []export.Ticket{}
		cat.Projects[i] = p
	}
	return Converted{Catalog: cat, Report: res.Report}, nil
}

// collect runs a streamed conversion into one document, each project's
// tickets in number order: the whole-file form (tests, small files).
func collect(in io.Reader, format string, m Mapping, t Target) (Result, error) {
	open, err := reopen(in)
	if err != nil {
		return Result{}, err
	}
	byProject := map[string][]export.Ticket{}
	c, err := Convert(format, open, m, t, func(p string, tk export.Ticket) error {
		byProject[p] = append(byProject[p], tk)
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	doc := c.Catalog
	for i := range doc.Projects {
		tks := byProject[doc.Projects[i].Key]
		sort.SliceStable(tks, func(a, b int) bool { return tks[a].Number < tks[b].Number })
		if tks == nil {
			tks = []export.Ticket{}
		}
		doc.Projects[i].Tickets = tks
	}
	return Result{Doc: doc, Report: c.Report}, nil
}

// reopen rewinds a seekable reader for each pass; anything else is read
// once into memory.
func reopen(in io.Reader) (Opener, error) {
	if rs, ok := in.(io.ReadSeeker); ok {
		return func() (io.ReadCloser, error) {
			if _, err := rs.Seek(0, io.SeekStart); err != nil {
				return nil, err
			}
			return io.NopCloser(rs), nil
		}, nil
	}
	b, err := io.ReadAll(in)
	if err != nil {
		return nil, domain.BadRequest("could not read the file")
	}
	return func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }, nil
}
