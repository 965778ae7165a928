package worker

import (
	"context"
	"sync"
	"time"
)

// groupCommit writes items in shared statements: an item that arrives while
// a statement runs waits for the next one, which takes every item waiting.
// A lone item is written at once; under load one statement carries many.
type groupCommit[T any] struct {
	mu      sync.Mutex
	pending []T
	waiters []chan error
	running bool
}

// do has item written by flush, with the items arriving around it, and
// returns the statement's error (or ctx's, if it ends first).
func (g *groupCommit[T]) do(ctx context.Context, item T, flush func(context.Context, []T) error) error {
	ch := make(chan error, 1)
	g.mu.Lock()
	g.pending = append(g.pending, item)
	g.waiters = append(g.waiters, ch)
	if !g.running {
		g.running = true
		go g.run(flush)
	}
	g.mu.Unlock()
	select {
	case err := <-ch:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (g *groupCommit[T]) run(flush func(context.Context, []T) error) {
	for {
		g.mu.Lock()
		items, waiters := g.pending, g.waiters
		g.pending, g.waiters = nil, nil
		if len(items) == 0 {
			g.running = false
			g.mu.Unlock()
			return
		}
		g.mu.Unlock()
		// Not one caller's work: a caller that gives up leaves the others.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err := flush(ctx, items)
		cancel()
		for _, w := range waiters {
			w <- err
		}
	}
}
