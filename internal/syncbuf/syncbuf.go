// Package syncbuf is a byte buffer safe for concurrent writers: what a test
// hands a child process as its stdout and stderr, and reads while the
// process still writes.
package syncbuf

import (
	"bytes"
	"sync"
)

// Buffer collects writes; Limit > 0 keeps only the first Limit bytes
// (later writes still report success). The zero value keeps everything.
type Buffer struct {
	Limit int
	mu    sync.Mutex
	b     bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.Limit <= 0 {
		return s.b.Write(p)
	}
	if room := s.Limit - s.b.Len(); room > 0 {
		s.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// String is what was kept so far.
func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
