package sources

import (
	"errors"
	"strings"
	"testing"

	"tracker/domain"
)

// FuzzJira: any file is a document with its report or a domain error (a
// 4xx), never a panic nor another error.
func FuzzJira(f *testing.F) {
	for _, s := range []string{"Summary,Issue key\nA,AB-1\n", "Summary;Issue key;Comment\nA;AB-1;\"x;y;z\"\n",
		"\xEF\xBB\xBFSummary,Issue key,Parent,Inward issue link (Blocks)\nA,AB-1,AB-2,AB-1\nB,AB-2,AB-1,AB-3\n",
		"Summary,Issue key,Created,Due date\nA,AB-1,31/Feb/25,10/oct./16 11:54 AM\n", "\"", "a\x00b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		_, err := Jira(strings.NewReader(file), Mapping{}, defaultTarget())
		var de *domain.Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("%q: %v", file, err)
		}
	})
}

// FuzzGitHub: the same for GitHub's JSON.
func FuzzGitHub(f *testing.F) {
	for _, s := range []string{`[{"number":1,"title":"a"}]`, `{"issues":[{"number":1,"title":"a","pull_request":{}}],"comments":[{"issue_url":"/repos/o/r/issues/1","body":"x"}]}`,
		`[{"number":"x"}]`, `{`, `[]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, file string) {
		tg := defaultTarget()
		tg.ProjectKey = "GH"
		_, err := GitHub(strings.NewReader(file), Mapping{}, tg)
		var de *domain.Error
		if err != nil && !errors.As(err, &de) {
			t.Fatalf("%q: %v", file, err)
		}
	})
}
