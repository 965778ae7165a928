package notification

import (
	"bytes"
	"context"
	"encoding/binary"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store/notificationdb"
)

// Lookback is how far behind the newest notification it has sent a live
// stream looks again. Ids are UUIDv7 taken before the commit, so a
// transaction that took its id earlier can commit after a later id was
// sent; one that takes longer than this between taking the id and
// committing would be missed by an open stream (not by the inbox).
const Lookback = 5 * time.Second

// Cursor is where a live stream is in its caller's notifications: it never
// goes back before where the stream started (Last-Event-ID, or the newest
// notification when it opened), and sends each notification once.
type Cursor struct {
	start, newest uuid.UUID
	sent          map[uuid.UUID]time.Time
}

// NewCursor starts after id (uuid.Nil: from the first notification).
func NewCursor(id uuid.UUID) *Cursor {
	return &Cursor{start: id, newest: id, sent: map[uuid.UUID]time.Time{}}
}

// idTime is the time a UUIDv7 was made, to the millisecond.
func idTime(id uuid.UUID) time.Time {
	var b [8]byte
	copy(b[2:], id[:6])
	return time.UnixMilli(int64(binary.BigEndian.Uint64(b[:])))
}

// floorOf is the smallest UUIDv7 of instant t (ids compare as bytes).
func floorOf(t time.Time) uuid.UUID {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(t.UnixMilli()))
	var id uuid.UUID
	copy(id[:6], b[2:])
	return id
}

func after(a, b uuid.UUID) bool { return bytes.Compare(a[:], b[:]) > 0 }

// Next reads the caller's notifications the stream has not sent, oldest
// first, at most limit, and moves the cursor past them.
func (s *Service) Next(ctx context.Context, p domain.Principal, c *Cursor, limit int) ([]Notification, error) {
	from := c.start
	if c.newest != uuid.Nil {
		if lb := floorOf(idTime(c.newest).Add(-Lookback)); after(lb, from) {
			from = lb
		}
	}
	rows, err := notificationdb.After(ctx, s.db.Q(), filter(p, Query{}), from, limit+len(c.sent))
	if err != nil {
		return nil, err
	}
	out := make([]Notification, 0, len(rows))
	for _, r := range rows {
		if _, ok := c.sent[r.ID]; ok {
			continue
		}
		if len(out) == limit {
			break
		}
		out = append(out, toNotification(r))
		c.sent[r.ID] = idTime(r.ID)
		if after(r.ID, c.newest) {
			c.newest = r.ID
		}
	}
	old := idTime(c.newest).Add(-2 * Lookback)
	for id, t := range c.sent {
		if t.Before(old) {
			delete(c.sent, id)
		}
	}
	return out, nil
}
