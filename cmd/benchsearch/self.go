package main

import (
	"context"

	"tracker/api"
	"tracker/api/projects"
	"tracker/api/tickets"
	"tracker/cmd/internal/benchkit"
	"tracker/domain"
	"tracker/domain/project"
	"tracker/domain/search"
	"tracker/domain/ticket"
	"tracker/store"
)

// startSelf creates the dedicated database (or opens the reused one) and
// serves the API (accounts, projects, tickets) on a loopback port.
func startSelf(ctx context.Context, c *config) (func(), error) {
	s, err := benchkit.Serve(ctx, c.Reuse, c.Keep, func(db *store.DB, clock domain.Clock) []api.Module {
		return []api.Module{projects.New(project.New(db, clock)), tickets.New(ticket.New(db, clock), search.New(db, clock))}
	})
	if err != nil {
		return nil, err
	}
	c.URL, c.DB = s.URL, s.DBURL
	return s.Stop, nil
}
