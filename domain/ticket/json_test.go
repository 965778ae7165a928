package ticket

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/store/ticketdb"
)

// plain has Ticket's fields without its AppendJSON, so encoding/json renders
// it by reflection: the reference AppendJSON must match byte for byte.
type plain Ticket

var tricky = []string{"", "plain", `quote " and \ backslash`, "<script>&amp;</script>", "tab\tnl\ncr\r", "bs\bff\f",
	"\x00\x01\x1f\x7f", "é ü 漢字 🎉", "line\u2028sep\u2029", "bad \xff\xfe utf8", strings.Repeat("x", 500)}

func randomTicket(r *rand.Rand) Ticket {
	pick := func() string { return tricky[r.IntN(len(tricky))] }
	id := func() *uuid.UUID {
		if r.IntN(2) == 0 {
			return nil
		}
		u := uuid.New()
		return &u
	}
	t := Ticket{ID: uuid.New(), ProjectID: uuid.New(), TicketNumber: r.Int32(),
		Content: ticketdb.Content{Title: pick(), Status: pick(), Priority: pick()}, AssigneeID: id(), ReporterID: uuid.New(), SprintID: id(), ParentID: id(),
		CreatedAt: time.Unix(r.Int64N(4e9), r.Int64N(1e9)).UTC(), UpdatedAt: time.Unix(r.Int64N(4e9), 0).UTC()}
	if r.IntN(2) == 0 {
		d := pick()
		t.Description = &d
	}
	return t
}

func TestAppendJSONMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 2000 {
		tk := randomTicket(r)
		want, err := json.Marshal(plain(tk))
		if err != nil {
			t.Fatal(err)
		}
		if got := tk.AppendJSON(nil); !bytes.Equal(got, want) {
			t.Fatalf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}

func BenchmarkAppendJSON(b *testing.B) {
	tk := randomTicket(rand.New(rand.NewPCG(3, 4)))
	buf := make([]byte, 0, 1024)
	for b.Loop() {
		buf = tk.AppendJSON(buf[:0])
	}
}
