package notification

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"tracker/store"
)

// Hub wakes this process's live streams when notifications may have been
// written, by any API replica: every transaction that writes notifications
// also writes their outbox rows, and the store NOTIFYs the outbox channel
// after such a commit (coalesced, store/notify.go), which every replica's
// hub LISTENs to. A wake carries no recipient, so each stream reads its own
// caller's new rows; a poll every Backstop covers a lost connection.
type Hub struct {
	db       *store.DB
	log      *slog.Logger
	backstop time.Duration

	mu     sync.Mutex
	subs   map[chan struct{}]struct{}
	start  sync.Once
	cancel context.CancelFunc
}

// Backstop is how often streams look for new rows without a wake.
const Backstop = 2 * time.Second

// NewHub builds a hub on db; it listens from the first subscription until
// Close.
func NewHub(db *store.DB, log *slog.Logger) *Hub {
	return &Hub{db: db, log: log, backstop: Backstop, subs: map[chan struct{}]struct{}{}}
}

// Subscribe returns a channel that fires (coalesced) when new notifications
// may exist, and its cancel.
func (h *Hub) Subscribe() (<-chan struct{}, func()) {
	h.start.Do(h.run)
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.subs[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs, ch)
		h.mu.Unlock()
	}
}

// Close stops listening.
func (h *Hub) Close() {
	h.start.Do(func() {}) // a hub never started stays stopped
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.cancel != nil {
		h.cancel()
	}
}

func (h *Hub) wakeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.subs {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (h *Hub) run() {
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	h.cancel = cancel
	h.mu.Unlock()
	go func() {
		t := time.NewTicker(h.backstop)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				h.wakeAll()
			}
		}
	}()
	go func() {
		for ctx.Err() == nil {
			// listening: wake everyone, for what was written while nobody
			// listened.
			err := store.Listen(ctx, h.db, store.OutboxChannel, h.wakeAll, h.wakeAll)
			if ctx.Err() != nil {
				return
			}
			h.log.Warn("notification hub: LISTEN ended; listening again", "error", err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(time.Second):
			}
		}
	}()
}
