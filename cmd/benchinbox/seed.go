package main

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/cmd/internal/benchkit"
)

// seed makes the org, its people and tickets, and the watchers.
func (b *bench) seed(ctx context.Context, dbURL string) ([]uuid.UUID, map[uuid.UUID][]uuid.UUID, error) {
	tag := uuid.NewString()[:8]
	register := func(name string) (person, error) {
		var auth struct {
			AccessToken string    `json:"access_token"`
			UserID      uuid.UUID `json:"user_id"`
		}
		err := benchkit.Call(ctx, b.url, "POST", "/api/v1/auth/register", "", map[string]any{
			"email": name + "-" + tag + "@bench.test", "password": "benchmark-password", "display_name": name}, &auth)
		return person{id: auth.UserID, token: auth.AccessToken}, err
	}
	var err error
	if b.actor, err = register("actor"); err != nil {
		return nil, nil, err
	}
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/auth/me", b.actor.token, nil, &me); err != nil {
		return nil, nil, err
	}
	var proj struct {
		ID uuid.UUID `json:"id"`
	}
	if err := benchkit.Call(ctx, b.url, "POST", "/api/v1/projects", b.actor.token,
		map[string]any{"org_id": me.OrgID, "key": "INB", "name": "Inbox bench"}, &proj); err != nil {
		return nil, nil, err
	}
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return nil, nil, err
	}
	defer pool.Close()
	b.people = make([]person, b.c.Users)
	if err := parallel(b.c.Users, 8, func(i int) error {
		p, err := register(fmt.Sprintf("user%d", i))
		if err != nil {
			return err
		}
		b.people[i] = p
		_, err = pool.Exec(ctx, `INSERT INTO memberships (org_id, user_id, role) VALUES ($1, $2, 'member')`, me.OrgID, p.id)
		return err
	}); err != nil {
		return nil, nil, err
	}
	tix := make([]uuid.UUID, b.c.Tickets)
	watchers := map[uuid.UUID][]uuid.UUID{}
	var wmu sync.Mutex
	err = parallel(b.c.Tickets, 8, func(i int) error {
		var t struct {
			ID uuid.UUID `json:"id"`
		}
		if err := benchkit.Call(ctx, b.url, "POST", "/api/v1/projects/"+proj.ID.String()+"/tickets", b.actor.token,
			map[string]any{"title": fmt.Sprintf("Inbox bench ticket %d", i)}, &t); err != nil {
			return err
		}
		tix[i] = t.ID
		// 5 distinct people, spread evenly: ticket i is watched by people
		// 5i … 5i+4 (mod users).
		ws := make([]uuid.UUID, watchersPerTicket)
		for k := range ws {
			ws[k] = b.people[(i*watchersPerTicket+k)%b.c.Users].id
			if err := benchkit.Call(ctx, b.url, "PUT", "/api/v1/tickets/"+t.ID.String()+"/watchers/"+ws[k].String(), b.actor.token, nil, nil); err != nil {
				return err
			}
		}
		wmu.Lock()
		watchers[t.ID] = ws
		wmu.Unlock()
		return nil
	})
	fmt.Printf("org of 1 actor and %d people, %d tickets watched by %d people each besides the actor\n", b.c.Users, b.c.Tickets, watchersPerTicket)
	return tix, watchers, err
}

// parallel runs f(0..n-1) on workers goroutines; the first error wins.
func parallel(n, workers int, f func(i int) error) error {
	var next atomic.Int64
	errs := make(chan error, workers)
	for range workers {
		go func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					errs <- nil
					return
				}
				if err := f(i); err != nil {
					next.Store(int64(n))
					errs <- err
					return
				}
			}
		}()
	}
	var first error
	for range workers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
