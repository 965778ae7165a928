package main

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"tracker/cmd/internal/benchkit"
	"tracker/domain/notification"
)

// inboxCheck is one read of a recipient's inbox right after a change.
type inboxCheck struct {
	found bool
	took  time.Duration // from the change's answer to the read's
}

// load makes rate changes a second for the duration; changes of one ticket
// never overlap (each waits for the previous one's answer).
func (b *bench) load(ctx context.Context, tix []uuid.UUID, watchers map[uuid.UUID][]uuid.UUID) ([]change, []time.Duration, error) {
	type state struct {
		mu       sync.Mutex
		n        int // changes so far
		status   string
		assignee int // index into the watchers
	}
	states := make([]*state, len(tix))
	for i := range states {
		states[i] = &state{status: "Backlog", assignee: -1}
	}
	total := b.c.Rate * int(b.c.Duration.Seconds())
	var (
		mu      sync.Mutex
		changes = make([]change, 0, total)
		apiLat  = make([]time.Duration, 0, total)
		checks  []inboxCheck
		seq     atomic.Int64
	)
	jobs := make(chan int)
	errs := make(chan error, b.c.Clients)
	var wg sync.WaitGroup
	for range b.c.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				t := tix[i%len(tix)]
				st := states[i%len(tix)]
				st.mu.Lock()
				ch := change{ticket: t}
				var method, path string
				var body map[string]any
				ws := watchers[t]
				switch st.n % 3 {
				case 0:
					next := map[string]string{"Backlog": "Todo", "Todo": "Backlog"}[st.status]
					method, path, body = "PATCH", "/api/v1/tickets/"+t.String(), map[string]any{"status": next}
					ch.typ, ch.to = notification.TypeStatusChanged, ws
					st.status = next
				case 1:
					method, path = "POST", "/api/v1/tickets/"+t.String()+"/comments"
					body = map[string]any{"body": fmt.Sprintf("bench comment %d", seq.Add(1))}
					ch.typ, ch.to = notification.TypeCommented, ws
				default:
					st.assignee = (st.assignee + 1) % len(ws)
					method, path = "PATCH", "/api/v1/tickets/"+t.String()
					body = map[string]any{"assignee_id": ws[st.assignee]}
					ch.typ, ch.to = notification.TypeAssigned, ws[st.assignee:st.assignee+1]
				}
				sent := time.Now()
				_, _, err := benchkit.Send(ctx, b.url, method, path, b.actor.token, body)
				ch.answered, ch.n = time.Now(), st.n
				st.n++
				st.mu.Unlock()
				if err != nil {
					errs <- err
					return
				}
				var check *inboxCheck
				if i%10 == 0 {
					found, err := b.inboxHas(ctx, b.person(ch.to[0]), t, ch.typ, sent)
					if err != nil {
						errs <- err
						return
					}
					check = &inboxCheck{found: found, took: time.Since(ch.answered)}
				}
				mu.Lock()
				changes = append(changes, ch)
				apiLat = append(apiLat, ch.answered.Sub(sent))
				if check != nil {
					checks = append(checks, *check)
				}
				mu.Unlock()
			}
		}()
	}
	start := time.Now()
	var err error
loop:
	for i := range total {
		time.Sleep(time.Until(start.Add(time.Duration(i) * time.Second / time.Duration(b.c.Rate))))
		select {
		case jobs <- i:
		case err = <-errs:
			break loop
		case <-ctx.Done():
			err = ctx.Err()
			break loop
		}
	}
	close(jobs)
	wg.Wait()
	took := time.Since(start)
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	if err != nil {
		return nil, nil, err
	}
	found := 0
	for _, c := range checks {
		if c.found {
			found++
		}
	}
	reads := make([]time.Duration, len(checks))
	for i, c := range checks {
		reads[i] = c.took
	}
	slices.Sort(reads)
	fmt.Printf("%d changes in %.1f s (%.0f/s; status, comment, assignment in turn), %d clients at most\n",
		len(changes), took.Seconds(), float64(len(changes))/took.Seconds(), b.c.Clients)
	if len(reads) > 0 {
		fmt.Printf("inbox: %d of %d reads right after a change's answer already listed its notification (read p50 %.1f ms, p99 %.1f ms)\n",
			found, len(checks), benchkit.Ms(benchkit.Pct(reads, 50)), benchkit.Ms(benchkit.Pct(reads, 99)))
	}
	if found != len(checks) {
		b.missedInbox = len(checks) - found
	}
	return changes, apiLat, nil
}

func (b *bench) person(id uuid.UUID) person {
	for _, p := range b.people {
		if p.id == id {
			return p
		}
	}
	return person{}
}

// inboxHas reads p's newest notifications and says whether one of ticket
// of type typ written since (the request's start; one clock in process) is
// among them.
func (b *bench) inboxHas(ctx context.Context, p person, ticket uuid.UUID, typ string, since time.Time) (bool, error) {
	var out struct {
		Items []struct {
			Type      string    `json:"type"`
			CreatedAt time.Time `json:"created_at"`
			Ticket    *struct {
				ID uuid.UUID `json:"id"`
			} `json:"ticket"`
		} `json:"items"`
	}
	if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/notifications?limit=50", p.token, nil, &out); err != nil {
		return false, err
	}
	for _, n := range out.Items {
		if n.Type == typ && n.Ticket != nil && n.Ticket.ID == ticket && !n.CreatedAt.Before(since) {
			return true, nil
		}
	}
	return false, nil
}
