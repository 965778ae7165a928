package sources

import (
	"io"
	"strings"
	"testing"

	"tracker/domain/exchange/export"
)

// A streamed conversion emits each ticket in file order with everything
// resolved, even what names a later row (a parent, an inward link), and
// answers the catalog without tickets.
func TestConvertStreamsResolvedTickets(t *testing.T) {
	t.Parallel()
	file := "Summary,Issue key,Issue id,Parent,Inward issue link (Blocks),Status,Created,Sprint\n" +
		"child,BIG-7,107,101,,To Do,02/Jan/25 9:00 AM,S1\n" +
		"twin,BIG-7,108,,,To Do,02/Jan/25 9:00 AM,\n" +
		"parent,BIG-1,101,,BIG-7,Done,01/Jan/25 9:00 AM,S1\n"
	opened := 0
	open := func() (io.ReadCloser, error) { opened++; return io.NopCloser(strings.NewReader(file)), nil }
	type got struct {
		project string
		tk      export.Ticket
	}
	var emitted []got
	c, err := Convert("jira_csv", open, Mapping{}, defaultTarget(), func(p string, tk export.Ticket) error {
		emitted = append(emitted, got{p, tk})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if opened != 2 {
		t.Fatalf("the file was read %d times; an index pass and a ticket pass read it twice", opened)
	}
	if len(emitted) != 2 || emitted[0].tk.Number != 7 || emitted[1].tk.Number != 1 || emitted[0].project != "BIG" {
		t.Fatalf("emitted %+v", emitted)
	}
	child, parent := emitted[0].tk, emitted[1].tk
	if child.Parent == nil || *child.Parent != "BIG-1" {
		t.Fatalf("the child's parent (a later row) %v", child.Parent)
	}
	// BIG-1 is blocked by… no: BIG-1's inward Blocks names BIG-7, so BIG-7
	// blocks BIG-1, stored on BIG-7, which was emitted first.
	if len(child.Links) != 1 || child.Links[0] != (export.Link{Type: "blocks", Ticket: "BIG-1"}) || len(parent.Links) != 0 {
		t.Fatalf("links %+v %+v", child.Links, parent.Links)
	}
	if len(c.Catalog.Projects) != 1 {
		t.Fatalf("catalog %+v", c.Catalog.Projects)
	}
	p := c.Catalog.Projects[0]
	if len(p.Tickets) != 0 || p.TicketCounter != 7 || len(p.Sprints) != 1 || p.Sprints[0].Name != "S1" || p.Sprints[0].StartDate != "2025-01-01" {
		t.Fatalf("catalog project %+v", p)
	}
	s := c.Report.Summary
	if s.Tickets != 2 || s.Parents != 1 || s.Links != 1 || s.Sprints != 1 {
		t.Fatalf("summary %+v", s)
	}
	if len(c.Report.Problems) != 1 || c.Report.Problems[0].Row != 3 || !strings.Contains(c.Report.Problems[0].Message, "also row 2") {
		t.Fatalf("problems %+v", c.Report.Problems)
	}
}

// An emit error stops the conversion and comes back.
func TestConvertStopsAtEmitError(t *testing.T) {
	t.Parallel()
	open := func() (io.ReadCloser, error) {
		return io.NopCloser(strings.NewReader("Summary,Issue key\na,A-1\nb,A-2\n")), nil
	}
	stop := io.ErrShortWrite
	n := 0
	_, err := Convert("jira_csv", open, Mapping{}, defaultTarget(), func(string, export.Ticket) error { n++; return stop })
	if err != stop || n != 1 {
		t.Fatalf("%v after %d tickets", err, n)
	}
}
