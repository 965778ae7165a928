package main

import (
	"context"

	"tracker/api"
	capexapi "tracker/api/capex"
	"tracker/cmd/internal/benchkit"
	"tracker/domain"
	"tracker/domain/capex"
	"tracker/store"
)

// startSelf creates a temporary migrated database (or opens the one -reuse
// names) and serves the API (the account and report modules) on a loopback
// port, pointing c at both.
func startSelf(ctx context.Context, c *config) (func(), error) {
	s, err := benchkit.Serve(ctx, c.Reuse, c.Keep, func(db *store.DB, clock domain.Clock) []api.Module {
		return []api.Module{capexapi.New(capex.New(db, clock))}
	})
	if err != nil {
		return nil, err
	}
	c.URL, c.DB = s.URL, s.DBURL
	return s.Stop, nil
}
