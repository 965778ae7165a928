package sources

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

func TestGitHubOctokitIssues(t *testing.T) {
	tg := defaultTarget()
	tg.ProjectKey = "GH"
	m := Mapping{Users: map[string]string{"octokit-fixture-user-a": "a@example.com"}}
	res, err := GitHub(open(t, "github_issues_octokit.json"), m, tg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Tickets != 13 || s.UsersInvited != 1 || s.UsersUnresolved != 0 || len(res.Report.Problems) != 0 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	p := res.Doc.Projects[0]
	// The API lists newest first; tickets are numbered by issue number.
	if p.Key != "GH" || p.TicketCounter != 13 || p.Tickets[0].Title != "Test issue 1" || p.Tickets[12].Title != "Test issue 13" ||
		p.Tickets[0].Reporter != "a@example.com" || p.Tickets[0].Status != "Backlog" ||
		!p.Tickets[0].CreatedAt.Equal(time.Date(2022, 7, 19, 4, 38, 40, 0, time.UTC)) {
		t.Fatalf("tickets %+v", p.Tickets[0])
	}
	if *res.Report.Statuses["open"] != "Backlog" || res.Doc.Source != "github_json/GH" {
		t.Fatalf("statuses %v source %s", res.Report.Statuses, res.Doc.Source)
	}
}

// TestGitHubPullRequestsAndComments takes the real issues and marks the
// newest one a pull request, as the issues API lists pull requests, and
// adds comments in the comments API's shape.
func TestGitHubPullRequestsAndComments(t *testing.T) {
	raw, err := io.ReadAll(open(t, "github_issues_octokit.json"))
	if err != nil {
		t.Fatal(err)
	}
	var issues []map[string]any
	if err := json.Unmarshal(raw, &issues); err != nil {
		t.Fatal(err)
	}
	repo := issues[0]["repository_url"].(string)
	issues[0]["pull_request"] = map[string]any{"url": strings.Replace(repo, "/repos/", "/repos/", 1) + "/pulls/13"}
	issues[1]["state"], issues[1]["state_reason"] = "closed", "not_planned"
	issues[2]["state"], issues[2]["state_reason"] = "closed", "completed"
	issues[3]["labels"] = []any{map[string]any{"name": "bug", "color": "d73a4a"}, "help wanted"}
	comments := []map[string]any{
		{"id": 1, "issue_url": repo + "/issues/12", "user": map[string]any{"login": "octokit-fixture-user-b"}, "body": "second", "created_at": "2022-07-20T10:00:00Z"},
		{"id": 2, "issue_url": repo + "/issues/12", "user": map[string]any{"login": "octokit-fixture-user-a"}, "body": "first", "created_at": "2022-07-20T09:00:00Z"},
		{"id": 3, "issue_url": repo + "/issues/99", "user": map[string]any{"login": "octokit-fixture-user-a"}, "body": "elsewhere", "created_at": "2022-07-20T09:00:00Z"},
	}
	body, _ := json.Marshal(map[string]any{"issues": issues, "comments": comments})
	tg := defaultTarget()
	tg.ProjectKey = "gh"
	m := Mapping{Users: map[string]string{"octokit-fixture-user-a": "a@example.com"}}
	res, err := GitHub(strings.NewReader(string(body)), m, tg)
	if err != nil {
		t.Fatal(err)
	}
	s := res.Report.Summary
	if s.Tickets != 12 || s.Comments != 2 || s.Labels != 2 || s.UsersUnresolved != 1 {
		t.Fatalf("summary %+v problems %+v", s, res.Report.Problems)
	}
	byTitle := map[string]int{}
	for i, tk := range res.Doc.Projects[0].Tickets {
		byTitle[tk.Title] = i
	}
	tks := res.Doc.Projects[0].Tickets
	if _, ok := byTitle["Test issue 13"]; ok {
		t.Fatal("the pull request came in")
	}
	if tks[byTitle["Test issue 12"]].Status != "Cancelled" || tks[byTitle["Test issue 11"]].Status != "Done" {
		t.Fatalf("statuses %+v", res.Report.Statuses)
	}
	c := tks[byTitle["Test issue 12"]].Comments
	if len(c) != 2 || c[0].Body != "first" || c[0].Author != "a@example.com" || c[1].Author != "admin@example.com" {
		t.Fatalf("comments %+v", c)
	}
	if l := tks[byTitle["Test issue 10"]].Labels; len(l) != 2 || res.Doc.Labels[0].Name != "bug" || res.Doc.Labels[0].Color != "#d73a4a" {
		t.Fatalf("labels %v %+v", l, res.Doc.Labels)
	}
	var names []string
	for _, p := range res.Report.Problems {
		names = append(names, p.Path+": "+p.Message)
	}
	joined := strings.Join(names, "\n")
	if !strings.Contains(joined, "comments[2].issue_url: issue #99 is not in the file") ||
		!strings.Contains(joined, `comments[0].user: comment author "octokit-fixture-user-b" has no email`) {
		t.Fatalf("problems:\n%s", joined)
	}
}

func TestGitHubBadInput(t *testing.T) {
	tg := defaultTarget()
	_, err := GitHub(strings.NewReader("[]"), Mapping{}, tg)
	invalid(t, err, "project_key: required")
	tg.ProjectKey = "GH"
	_, err = GitHub(strings.NewReader("Summary,Issue key\n"), Mapping{}, tg)
	invalid(t, err, "is not JSON")
	_, err = GitHub(strings.NewReader(`[{"number": "one"}]`), Mapping{}, tg)
	invalid(t, err, "number")
	_, err = GitHub(strings.NewReader("\x00\x01binary"), Mapping{}, tg)
	invalid(t, err, "binary")
}
