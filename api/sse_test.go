package api

import (
	"bufio"
	"bytes"
	"testing"
)

func TestSSEWritesTheFormat(t *testing.T) {
	var b bytes.Buffer
	s := SSE{w: bufio.NewWriter(&b)}
	if err := s.Event("id\n1", "note", []byte("{\"a\":1}\n{\"b\":2}\r\n")); err != nil {
		t.Fatal(err)
	}
	if err := s.Comment("beat\r\nbeat"); err != nil {
		t.Fatal(err)
	}
	want := "id: id 1\nevent: note\ndata: {\"a\":1}\ndata: {\"b\":2}\ndata: \n\n: beat  beat\n\n"
	if b.String() != want {
		t.Errorf("wrote %q\nwant  %q", b.String(), want)
	}
}
