package notification

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/notificationdb"
)

// Hub wakes this process's live streams whose person has new
// notifications, whichever API replica wrote them: every transaction that
// writes notifications also writes their outbox rows, and the store
// NOTIFYs the outbox channel after such a commit (coalesced,
// store/notify.go), which every replica's hub LISTENs to. On each NOTIFY,
// every Backstop besides (a lost connection), and every Waiting while rows
// wait behind an older transaction (whose end need not NOTIFY), the hub runs one
// query for all its subscribers: who has rows whose transactions are
// below the oldest running one now but were not at its previous look
// (notificationdb.EndedSince), and wakes their streams; each woken stream
// then reads its own new rows. A stream subscribed since the previous look
// is woken at its first look whatever it finds, so nothing between its
// own first read and that look's horizon is left unread.
type Hub struct {
	db       *store.DB
	clock    domain.Clock
	log      *slog.Logger
	backstop time.Duration

	mu sync.Mutex
	// subs holds each person's stream channels, true once a look that
	// began after the subscription has ended.
	subs    map[uuid.UUID]map[chan struct{}]bool
	any     map[chan struct{}]struct{}
	horizon *uint64 // the previous look's xmin; nil before the first
	start   sync.Once
	cancel  context.CancelFunc
	poke    chan struct{}
}

// Backstop is how often the hub looks for new rows without a NOTIFY.
const Backstop = 2 * time.Second

// Waiting is how soon the hub looks again while some subscriber has rows
// committed behind an older transaction still running: that transaction
// may end without a NOTIFY (it wrote no outbox row, or ran in another
// database of the cluster), and its end is what makes them readable.
const Waiting = 25 * time.Millisecond

// NewHub builds a hub on db; it listens from the first subscription until
// Close.
func NewHub(db *store.DB, clock domain.Clock, log *slog.Logger) *Hub {
	return &Hub{db: db, clock: clock, log: log, backstop: Backstop, subs: map[uuid.UUID]map[chan struct{}]bool{},
		any: map[chan struct{}]struct{}{}, poke: make(chan struct{}, 1)}
}

// Subscribe returns a channel that fires (coalesced) when user may have
// new notifications, and its cancel.
func (h *Hub) Subscribe(user uuid.UUID) (<-chan struct{}, func()) {
	h.start.Do(h.run)
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	if h.subs[user] == nil {
		h.subs[user] = map[chan struct{}]bool{}
	}
	h.subs[user][ch] = false
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.subs[user], ch)
		if len(h.subs[user]) == 0 {
			delete(h.subs, user)
		}
		h.mu.Unlock()
	}
}

// SubscribeAny returns a channel that fires (coalesced) whenever any outbox
// row may have been committed (a NOTIFY, or the backstop), and its cancel:
// the wake of streams that read the outbox's events rather than one
// person's notifications.
func (h *Hub) SubscribeAny() (<-chan struct{}, func()) {
	h.start.Do(h.run)
	ch := make(chan struct{}, 1)
	h.mu.Lock()
	h.any[ch] = struct{}{}
	h.mu.Unlock()
	return ch, func() {
		h.mu.Lock()
		delete(h.any, ch)
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

func (h *Hub) wake() {
	select {
	case h.poke <- struct{}{}:
	default:
	}
}

func (h *Hub) wakeAny() {
	h.mu.Lock()
	defer h.mu.Unlock()
	for ch := range h.any {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// check runs the one query and wakes the streams whose person has
// something new, and those it looks at for the first time; it reports
// whether rows wait on an older transaction.
func (h *Hub) check(ctx context.Context) bool {
	h.mu.Lock()
	users := make([]uuid.UUID, 0, len(h.subs))
	type sub struct {
		user uuid.UUID
		ch   chan struct{}
	}
	var fresh []sub
	for u, chs := range h.subs {
		users = append(users, u)
		for ch, looked := range chs {
			if !looked {
				fresh = append(fresh, sub{u, ch})
			}
		}
	}
	since := h.horizon
	h.mu.Unlock()
	if len(users) == 0 {
		return false
	}
	ended, err := notificationdb.EndedSince(ctx, h.db.Q(), users, since)
	if err != nil {
		if ctx.Err() == nil && !h.db.Closed() {
			h.log.Warn("notification hub: reading new notifications failed", "error", err)
		}
		return false
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.horizon = &ended.Horizon
	poke := func(ch chan struct{}) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
	for _, f := range fresh {
		if _, ok := h.subs[f.user][f.ch]; ok {
			h.subs[f.user][f.ch] = true
			poke(f.ch)
		}
	}
	for _, u := range ended.Users {
		for ch := range h.subs[u] {
			poke(ch)
		}
	}
	return ended.Waiting
}

func (h *Hub) run() {
	ctx, cancel := context.WithCancel(context.Background())
	h.mu.Lock()
	h.cancel = cancel
	h.mu.Unlock()
	go func() {
		t := time.NewTicker(h.backstop)
		defer t.Stop()
		var soon <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-soon:
			case <-h.poke:
			}
			h.wakeAny()
			soon = nil
			if h.check(ctx) {
				soon = time.After(Waiting)
			}
		}
	}()
	go func() {
		for ctx.Err() == nil {
			// listening: look at once, for what was written while nobody
			// listened.
			err := store.Listen(ctx, h.db, store.OutboxChannel, h.wake, h.wake)
			if ctx.Err() != nil {
				return
			}
			if errors.Is(err, store.ErrClosed) {
				// The process closed its pool before the hub (a test's
				// cleanup, a shutdown): stop, quietly.
				cancel()
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
