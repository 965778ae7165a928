package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"time"
)

// expect is what an import of the generated file must write.
type expect struct {
	Tickets, Comments, Parents, Links int
}

// writeJira writes a Jira "Export CSV (all fields)" of n issues in the shape
// of the real samples (domain/exchange/sources' benchmark writes the same):
// 30 columns (the repeated Labels and Comment among them), three comments an
// issue, parents (mostly earlier in the file, a tenth later) and each seventh
// issue blocking the one before.
func writeJira(w io.Writer, n int) (expect, error) {
	cw := csv.NewWriter(w)
	_ = cw.Write([]string{"Summary", "Issue key", "Issue id", "Issue Type", "Status", "Project key", "Project name", "Priority",
		"Resolution", "Assignee", "Assignee Id", "Reporter", "Reporter Id", "Created", "Updated", "Resolved", "Due date",
		"Description", "Labels", "Labels", "Sprint", "Custom field (Story Points)", "Custom field (Rank)", "Parent",
		"Outward issue link (Blocks)", "Comment", "Comment", "Comment", "Status Category", "Status Category Changed"})
	statuses := []string{"To Do", "In Progress", "Done"}
	e := expect{Tickets: n, Comments: 3 * n}
	for i := 1; i <= n; i++ {
		parent := ""
		if i%10 != 1 {
			// The tenth of a group names the next group's first: a parent
			// further down the file (the last issue's is not in it).
			p := i - i%10 + 1
			parent = fmt.Sprint(10000 + p)
			if p <= n {
				e.Parents++
			}
		}
		link := ""
		if i > 1 && i%7 == 0 {
			link = fmt.Sprintf("BIG-%d", i-1)
			e.Links++
		}
		at := time.Date(2025, 1, 1, 9, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute).Format("02/Jan/06 3:04 PM")
		if err := cw.Write([]string{fmt.Sprintf("Issue %d: make the thing work on every platform", i), fmt.Sprintf("BIG-%d", i),
			fmt.Sprint(10000 + i), "Story", statuses[i%3], "BIG", "Big project", "Medium", "", "Ada Lovelace", "acc-1",
			"Grace Hopper", "acc-2", at, at, "", "", "A description\nover two lines of the work to be done.", "backend", "api",
			fmt.Sprintf("Sprint %d", i%20), "3.0", "0|i001wn:", parent, link,
			at + ";acc-1;A first comment on the issue", at + ";acc-2;A second comment, with a, comma",
			at + ";acc-1;\"Quoted\" third comment\nover two lines", statuses[i%3], at}); err != nil {
			return e, err
		}
	}
	cw.Flush()
	return e, cw.Error()
}

// mapping names the file's people (Jira Cloud writes display names and
// account ids) by email.
const mapping = `{"users": {"acc-1": "ada@example.com", "acc-2": "grace@example.com",
	"Ada Lovelace": "ada@example.com", "Grace Hopper": "grace@example.com"}}`
