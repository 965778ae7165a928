package notification

import (
	"fmt"
	"testing"

	"github.com/google/uuid"
)

func TestParseMentions(t *testing.T) {
	id := uuid.MustParse("0195f3a2-7c41-7d2e-9b7a-3f1c2d4e5a6b")
	for _, c := range []struct {
		text   string
		emails []string
		ids    []uuid.UUID
	}{
		{"hi @Ann@Example.com!", []string{"Ann@Example.com"}, nil},
		{"@ann@example.com at the start, <@" + id.String() + "> and <@" + id.String() + "> again", []string{"ann@example.com"}, []uuid.UUID{id}},
		{"write to bob@example.com or x@ann@example.com", nil, nil},
		{"(@ann@example.com) and @ann@example.com", []string{"ann@example.com"}, nil},
		{"<@not-a-uuid> @ @nobody", nil, nil},
		{"ann@example.com's @carol@example.org.", []string{"carol@example.org"}, nil},
	} {
		emails, ids := ParseMentions(c.text)
		if fmt.Sprint(emails) != fmt.Sprint(c.emails) || fmt.Sprint(ids) != fmt.Sprint(c.ids) {
			t.Errorf("%q: %v %v, want %v %v", c.text, emails, ids, c.emails, c.ids)
		}
	}
}

func TestTellKeepsTheMostSpecificType(t *testing.T) {
	u := uuid.New()
	var e Event
	e.Tell(u, TypeCommented)
	e.Tell(u, TypeAssigned)
	e.Tell(u, TypeMentioned)
	e.Tell(u, TypeReplied)
	if e.To[u] != TypeMentioned {
		t.Errorf("type %q, want mentioned", e.To[u])
	}
	if rank(TypeReplied) <= rank(TypeAssigned) || rank(TypeAssigned) <= rank(TypeStatusChanged) {
		t.Error("ranks out of order")
	}
}
