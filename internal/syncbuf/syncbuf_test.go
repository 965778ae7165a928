package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

func TestBufferKeepsEverythingFromConcurrentWriters(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if n, err := b.Write([]byte("ab")); n != 2 || err != nil {
					t.Errorf("Write: %d %v", n, err)
				}
			}
		}()
	}
	wg.Wait()
	if got := b.String(); len(got) != 8*100*2 || strings.Count(got, "ab") != 800 {
		t.Fatalf("kept %d bytes, %d pairs", len(got), strings.Count(got, "ab"))
	}
}

func TestBufferKeepsTheFirstLimitBytes(t *testing.T) {
	b := Buffer{Limit: 5}
	for _, w := range []string{"abc", "def", "ghi"} {
		if n, err := b.Write([]byte(w)); n != len(w) || err != nil {
			t.Fatalf("Write(%q): %d %v, want the whole write reported", w, n, err)
		}
	}
	if got := b.String(); got != "abcde" {
		t.Fatalf("kept %q, want %q", got, "abcde")
	}
}
