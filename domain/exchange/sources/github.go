package sources

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"
	"time"

	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/store/commentdb"
	"tracker/store/labeldb"
	"tracker/store/ticketdb"
)

// ghUser is a GitHub account as the REST API embeds it.
type ghUser struct {
	Login string `json:"login"`
}

// ghIssue is the part of a REST issue object the import reads.
type ghIssue struct {
	Number        int             `json:"number"`
	Title         string          `json:"title"`
	Body          *string         `json:"body"`
	State         string          `json:"state"`
	StateReason   *string         `json:"state_reason"`
	User          *ghUser         `json:"user"`
	Assignee      *ghUser         `json:"assignee"`
	Labels        []ghLabel       `json:"labels"`
	CreatedAt     *time.Time      `json:"created_at"`
	UpdatedAt     *time.Time      `json:"updated_at"`
	ClosedAt      *time.Time      `json:"closed_at"`
	HTMLURL       string          `json:"html_url"`
	RepositoryURL string          `json:"repository_url"`
	PullRequest   json.RawMessage `json:"pull_request"`
}

// ghLabel is a label object, or the label's name alone.
type ghLabel struct {
	Name  string `json:"name"`
	Color string `json:"color"`
}

func (l *ghLabel) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &l.Name)
	}
	type plain ghLabel
	return json.Unmarshal(b, (*plain)(l))
}

// ghComment is the part of an issue comment object the import reads.
type ghComment struct {
	ID        int64      `json:"id"`
	IssueURL  string     `json:"issue_url"`
	User      *ghUser    `json:"user"`
	Body      string     `json:"body"`
	CreatedAt *time.Time `json:"created_at"`
	UpdatedAt *time.Time `json:"updated_at"`
}

var (
	ghRepoURL  = regexp.MustCompile(`/repos/([^/]+)/([^/]+)(?:/issues/([0-9]+))?$`)
	hexColour  = regexp.MustCompile(`^[0-9a-fA-F]{6}$`)
	maxGHBytes = int64(256 << 20)
)

// GitHub converts GitHub REST issues: a JSON array of issue objects (as
// GET /repos/{o}/{r}/issues?state=all returns them), or an object
// {"issues": [...], "comments": [...]} with the issue comments API's
// objects. Pull requests (issues with a pull_request member) are skipped.
// GitHub has no project key: the target's project_key is required.
func GitHub(in io.Reader, m Mapping, t Target) (Result, error) {
	if t.ProjectKey == "" {
		return Result{}, domain.Invalid("project_key: required for github_json (GitHub has no project key)")
	}
	br := bufio.NewReader(io.LimitReader(in, maxGHBytes))
	head, _ := br.Peek(512)
	if bytes.IndexByte(head, 0) >= 0 {
		return Result{}, domain.Invalid("file: is binary, not JSON")
	}
	raw, err := io.ReadAll(br)
	if err != nil {
		return Result{}, domain.BadRequest("could not read the file")
	}
	raw = bytes.TrimPrefix(raw, []byte("\xEF\xBB\xBF"))
	var issues []ghIssue
	var comments []ghComment
	trimmed := bytes.TrimSpace(raw)
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		err = json.Unmarshal(trimmed, &issues)
	case len(trimmed) > 0 && trimmed[0] == '{':
		var doc struct {
			Issues   []ghIssue   `json:"issues"`
			Comments []ghComment `json:"comments"`
		}
		err = json.Unmarshal(trimmed, &doc)
		issues, comments = doc.Issues, doc.Comments
	default:
		return Result{}, domain.Invalid("file: is not JSON: an array of issues, or {\"issues\": [...], \"comments\": [...]}")
	}
	if err != nil {
		return Result{}, domain.Invalid("file: " + jsonProblem(err))
	}
	return buildGitHub(issues, comments, m, t)
}

func jsonProblem(err error) string {
	var ute *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case asErr(err, &ute):
		return fmt.Sprintf("at %s (byte %d): %s is not %s", ute.Field, ute.Offset, ute.Value, ute.Type)
	case asErr(err, &se):
		return fmt.Sprintf("byte %d: %v", se.Offset, se)
	}
	return err.Error()
}

func buildGitHub(issues []ghIssue, comments []ghComment, m Mapping, t Target) (Result, error) {
	rep := newReport("github_json")
	for _, f := range []string{"number", "title", "body", "state", "state_reason", "user", "assignee", "labels", "created_at",
		"updated_at", "closed_at", "html_url", "comments"} {
		rep.Fields[f] = strPtr(map[string]string{"number": "external_key", "body": "description", "state": "status",
			"state_reason": "status", "user": "reporter", "html_url": "external_url", "comments": "comments",
			"closed_at": "resolved_at"}[f])
		if *rep.Fields[f] == "" {
			rep.Fields[f] = strPtr(f)
		}
	}
	rep.Fields["pull_request"] = nil
	var probs problems
	key := strings.ToUpper(t.ProjectKey)
	sm := newStatusMapper(m, t)
	ppl := newPeople(m, t)
	unresolved := map[string]bool{}
	person := func(path, login, role string) (string, bool) {
		e, ok := ppl.resolve(login, "")
		if !ok && !unresolved[login] {
			unresolved[login] = true
			probs.add(Problem{Path: path, Message: fmt.Sprintf("%s %s has no email: name them in mapping.users; %s", role, quote(login),
				map[string]string{"assignee": "left unassigned", "reporter": "the importer reports instead", "comment author": "the importer writes instead"}[role])})
		}
		return e, ok
	}
	fallback := func() string { ppl.note(strings.ToLower(t.ImporterEmail), ""); return strings.ToLower(t.ImporterEmail) }
	type kept struct {
		i   int
		iss ghIssue
		ref string
	}
	var list []kept
	seen := map[string]int{}
	for i, is := range issues {
		path := fmt.Sprintf("issues[%d]", i)
		if len(is.PullRequest) > 0 && string(is.PullRequest) != "null" {
			continue
		}
		if is.Number <= 0 || strings.TrimSpace(is.Title) == "" {
			probs.add(Problem{Path: path, Message: "an issue needs a number and a title; it is skipped"})
			continue
		}
		ref := ghRef(is)
		if first, dup := seen[ref]; dup {
			probs.add(Problem{Path: path, Message: fmt.Sprintf("%s is also issues[%d]; the later one is skipped", ref, first)})
			continue
		}
		seen[ref] = i
		list = append(list, kept{i, is, ref})
	}
	sort.SliceStable(list, func(a, b int) bool { return list[a].iss.Number < list[b].iss.Number })
	byNumber := map[int]int{} // GitHub number → position in the project
	p := export.Project{Key: key, Name: key, CreatedAt: t.Now, UpdatedAt: t.Now, Members: []string{},
		Sprints: []export.Sprint{}, Tickets: []export.Ticket{}}
	labels := map[string]string{}
	var sum Summary
	for _, k := range list {
		is, path := k.iss, fmt.Sprintf("issues[%d]", k.i)
		src := "open"
		if is.State == "closed" {
			src = "closed"
			if is.StateReason != nil && *is.StateReason == "not_planned" {
				src = "not_planned"
			}
		}
		cat := map[string]string{"open": "To Do", "closed": "Done", "not_planned": "Cancelled"}[src]
		st, why := sm.target(src, cat)
		if st == "" {
			rep.Statuses[src] = nil
			probs.add(Problem{Path: path + ".state", Message: why + "; the issue is skipped"})
			continue
		}
		rep.Statuses[src] = strPtr(st)
		ref := k.ref
		// GitHub's own number: a later export names the same tickets (pull
		// requests leave gaps).
		tk := export.Ticket{Number: is.Number, Labels: []string{}, Comments: []export.Comment{}, TimeEntries: []export.TimeEntry{},
			ExternalKey: &ref}
		if strings.HasPrefix(is.HTMLURL, "https://") && len(is.HTMLURL) <= 2048 {
			u := is.HTMLURL
			tk.ExternalURL = &u
		}
		tk.Content = ticketdb.Content{Title: is.Title, Status: st, Priority: "None"}
		rep.Priorities[""] = strPtr("None")
		tk.Title, _ = clip(tk.Title, 500)
		if is.Body != nil && strings.TrimSpace(*is.Body) != "" {
			d, _ := clip(*is.Body, domain.MaxFreeText)
			tk.Description = &d
		}
		tk.CreatedAt, tk.UpdatedAt = t.Now, t.Now
		if is.CreatedAt != nil {
			tk.CreatedAt, tk.UpdatedAt = is.CreatedAt.UTC(), is.CreatedAt.UTC()
		}
		if is.UpdatedAt != nil && !is.UpdatedAt.Before(tk.CreatedAt) {
			tk.UpdatedAt = is.UpdatedAt.UTC()
		}
		if is.State == "closed" && is.ClosedAt != nil && !is.ClosedAt.Before(tk.CreatedAt) {
			at := is.ClosedAt.UTC()
			tk.ResolvedAt = &at
		}
		tk.Reporter = ""
		if is.User != nil {
			if e, ok := person(path+".user", is.User.Login, "reporter"); ok && e != "" {
				tk.Reporter = e
			}
		}
		if tk.Reporter == "" {
			tk.Reporter = fallback()
		}
		if is.Assignee != nil {
			if e, _ := person(path+".assignee", is.Assignee.Login, "assignee"); e != "" {
				tk.Assignee = &e
			}
		}
		for _, l := range is.Labels {
			name := strings.TrimSpace(l.Name)
			if name == "" || contains(tk.Labels, name) {
				continue
			}
			tk.Labels = append(tk.Labels, name)
			if _, ok := labels[name]; !ok {
				labels[name] = "#64748b"
				if hexColour.MatchString(l.Color) {
					labels[name] = "#" + strings.ToLower(l.Color)
				}
			}
		}
		byNumber[is.Number] = len(p.Tickets)
		p.Tickets = append(p.Tickets, tk)
	}
	for i, c := range comments {
		path := fmt.Sprintf("comments[%d]", i)
		mm := ghRepoURL.FindStringSubmatch(c.IssueURL)
		if mm == nil || mm[3] == "" {
			probs.add(Problem{Path: path + ".issue_url", Message: "names no issue; the comment is skipped"})
			continue
		}
		var n int
		_, _ = fmt.Sscan(mm[3], &n)
		at, ok := byNumber[n]
		if !ok {
			probs.add(Problem{Path: path + ".issue_url", Message: fmt.Sprintf("issue #%d is not in the file; the comment is skipped", n)})
			continue
		}
		if strings.TrimSpace(c.Body) == "" {
			continue
		}
		body, _ := clip(c.Body, domain.MaxFreeText)
		cm := export.Comment{Content: commentdb.Content{Body: body}, CreatedAt: t.Now, UpdatedAt: t.Now}
		if c.CreatedAt != nil {
			cm.CreatedAt, cm.UpdatedAt = c.CreatedAt.UTC(), c.CreatedAt.UTC()
		}
		if c.UpdatedAt != nil && !c.UpdatedAt.Before(cm.CreatedAt) {
			cm.UpdatedAt = c.UpdatedAt.UTC()
		}
		if c.User != nil {
			if e, ok := person(path+".user", c.User.Login, "comment author"); ok && e != "" {
				cm.Author = e
			}
		}
		if cm.Author == "" {
			cm.Author = fallback()
		}
		tk := &p.Tickets[at]
		tk.Comments = append(tk.Comments, cm)
		sum.Comments++
	}
	for i := range p.Tickets {
		sort.SliceStable(p.Tickets[i].Comments, func(a, b int) bool {
			return p.Tickets[i].Comments[a].CreatedAt.Before(p.Tickets[i].Comments[b].CreatedAt)
		})
	}
	for _, tk := range p.Tickets {
		p.TicketCounter = max(p.TicketCounter, tk.Number)
	}
	doc := newDocument(t)
	for _, name := range sortedKeys(labels) {
		doc.Labels = append(doc.Labels, export.Label{Content: labeldb.Content{Name: name, Color: labels[name]}})
	}
	doc.Projects = append(doc.Projects, p)
	users, matched, invited := ppl.documentUsers(t.ImporterEmail)
	doc.Users = append(doc.Users, users...)
	sum.Tickets, sum.Labels = len(p.Tickets), len(labels)
	sum.UsersMatched, sum.UsersInvited, sum.UsersUnresolved = matched, invited, len(ppl.unresolved)
	doc.Source = "github_json/" + key
	rep.Summary = sum
	rep.Problems = probs.done()
	return Result{Doc: doc, Report: rep}, nil
}

// ghRef is an issue's external key, owner/repo#number.
func ghRef(is ghIssue) string {
	for _, u := range []string{is.RepositoryURL, is.HTMLURL} {
		if m := ghRepoURL.FindStringSubmatch(strings.Replace(u, "github.com/", "github.com/repos/", 1)); m != nil {
			return fmt.Sprintf("%s/%s#%d", m[1], m[2], is.Number)
		}
	}
	return fmt.Sprintf("#%d", is.Number)
}
