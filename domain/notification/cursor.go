package notification

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/notificationdb"
)

// Cursor is where a live stream is in its caller's notifications: a
// (writing transaction, id) position, read only below the oldest running
// transaction (notificationdb.After), so a notification whose transaction
// commits after a later one was sent still comes, once.
type Cursor struct {
	pos notificationdb.Position
	// skip is what a stream that started now had committed before it
	// began yet lies after its position; each is dropped once passed.
	skip map[uuid.UUID]struct{}
}

// StartCursor places a stream: after the caller's notification lastID
// (Last-Event-ID), or, for uuid.Nil or an id that is not one of theirs,
// now (the inbox has the rest).
func (s *Service) StartCursor(ctx context.Context, p domain.Principal, lastID uuid.UUID) (*Cursor, error) {
	if lastID != uuid.Nil {
		pos, err := notificationdb.At(ctx, s.db.Q(), p.UserID, lastID)
		if err == nil {
			return &Cursor{pos: pos}, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
	}
	pos, committed, err := notificationdb.Now(ctx, s.db.Q(), p.UserID)
	if err != nil {
		return nil, err
	}
	c := &Cursor{pos: pos, skip: make(map[uuid.UUID]struct{}, len(committed))}
	for _, id := range committed {
		c.skip[id] = struct{}{}
	}
	return c, nil
}

// Next reads the caller's notifications after the cursor, in stream order,
// at most limit, and moves the cursor past them.
func (s *Service) Next(ctx context.Context, p domain.Principal, c *Cursor, limit int) ([]Notification, error) {
	rows, err := notificationdb.After(ctx, s.db.Q(), filter(p, Query{}), c.pos, limit+len(c.skip))
	if err != nil {
		return nil, err
	}
	out := make([]Notification, 0, limit)
	for _, r := range rows {
		if _, ok := c.skip[r.ID]; !ok && len(out) == limit {
			break
		}
		pos, err := r.Position()
		if err != nil {
			return nil, err
		}
		c.pos = pos
		if _, ok := c.skip[r.ID]; ok {
			delete(c.skip, r.ID)
			continue
		}
		out = append(out, toNotification(r.Row))
	}
	return out, nil
}
