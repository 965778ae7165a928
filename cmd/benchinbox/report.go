package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5/pgxpool"

	"tracker/cmd/internal/benchkit"
	"tracker/store/notificationdb"
)

// explain prints the plan of the one query the hub runs per wake for all
// its subscribers, as it runs it: every person, from a horizon the load's
// rows are all above (the widest window a look could have).
func (b *bench) explain(ctx context.Context, dbURL string) error {
	pool, err := pgxpool.New(ctx, dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	users := make([]uuid.UUID, 0, len(b.people)+1)
	for _, p := range append([]person{b.actor}, b.people...) {
		users = append(users, p.id)
	}
	rows, err := pool.Query(ctx, "EXPLAIN (ANALYZE, BUFFERS) "+notificationdb.EndedSQL, users, "1")
	if err != nil {
		return err
	}
	defer rows.Close()
	fmt.Println("the hub's query, every person, every row of the load:")
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			return err
		}
		if len(line) > 160 { // the Filter line lists every user id
			line = line[:160] + "…"
		}
		fmt.Println("  " + line)
	}
	return rows.Err()
}

// report matches what each stream received to the changes, in order per
// recipient and ticket (a ticket's changes never overlap, and notification
// ids grow with them), prints the figures and says whether the run passed.
func (b *bench) report(ctx context.Context, c config, changes []change, apiLat []time.Duration, want int) (bool, error) {
	type key struct{ user, ticket uuid.UUID }
	expect := map[key][]change{}
	perUser := map[uuid.UUID]int{}
	for _, ch := range changes {
		for _, u := range ch.to {
			expect[key{u, ch.ticket}] = append(expect[key{u, ch.ticket}], ch)
			perUser[u]++
		}
	}
	b.mu.Lock()
	got := map[key][]arrival{}
	toActor, received := len(b.arrived[b.actor.id]), 0
	for u, as := range b.arrived {
		if u == b.actor.id {
			continue
		}
		for _, a := range as {
			got[key{u, a.ticket}] = append(got[key{u, a.ticket}], a)
			received++
		}
	}
	dups := b.dups
	b.mu.Unlock()
	var lat []time.Duration
	lost, stray, wrongType, early := 0, 0, 0, 0
	for k, chs := range expect {
		slices.SortFunc(chs, func(x, y change) int { return x.n - y.n })
		as := got[k]
		slices.SortFunc(as, func(x, y arrival) int { return strings.Compare(x.id.String(), y.id.String()) })
		for i, ch := range chs {
			if i >= len(as) {
				lost += len(chs) - i
				break
			}
			if as[i].typ != ch.typ {
				wrongType++
			}
			d := as[i].at.Sub(ch.answered)
			if d < 0 {
				early++
				d = 0
			}
			lat = append(lat, d)
		}
		if len(as) > len(chs) {
			stray += len(as) - len(chs)
		}
		delete(got, k)
	}
	for _, as := range got {
		stray += len(as)
	}
	unreadWrong := 0
	for _, p := range b.people {
		var out struct {
			Count int `json:"count"`
		}
		if err := benchkit.Call(ctx, b.url, "GET", "/api/v1/notifications/unread-count", p.token, nil, &out); err != nil {
			return false, err
		}
		if out.Count != perUser[p.id] {
			unreadWrong++
		}
	}
	slices.Sort(apiLat)
	slices.Sort(lat)
	fmt.Printf("change requests: p50 %.1f ms, p99 %.1f ms\n", benchkit.Ms(benchkit.Pct(apiLat, 50)), benchkit.Ms(benchkit.Pct(apiLat, 99)))
	fmt.Printf("notifications: %d expected, %d received on the streams (%d lost, %d duplicated, %d of another type, %d stray, %d to the actor)\n",
		want, received, lost, dups, wrongType, stray, toActor)
	if len(lat) > 0 {
		fmt.Printf("answer-to-stream latency: p50 %.1f ms, p95 %.1f ms, p99 %.1f ms, max %.1f ms (%d arrived before the client had the answer)\n",
			benchkit.Ms(benchkit.Pct(lat, 50)), benchkit.Ms(benchkit.Pct(lat, 95)), benchkit.Ms(benchkit.Pct(lat, 99)), benchkit.Ms(lat[len(lat)-1]), early)
	}
	fmt.Printf("unread counts: %d of %d people differ from what they were told\n", unreadWrong, len(b.people))
	ok := len(lat) > 0 && benchkit.Pct(lat, 99) <= c.Target && lost == 0 && dups == 0 && wrongType == 0 && stray == 0 &&
		toActor == 0 && unreadWrong == 0 && b.missedInbox == 0
	if !ok {
		fmt.Printf("FAILED: the target is stream p99 <= %s with nothing lost, duplicated, stray or to the actor, and every inbox current\n", c.Target)
	}
	return ok, nil
}
