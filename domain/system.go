package domain

import (
	"context"

	"tracker/schema"
	"tracker/store"
)

// System answers health questions about the service's dependencies.
type System struct {
	DB *store.DB
}

// DatabaseHealth pings the database and reads the applied migration version.
func (s System) DatabaseHealth(ctx context.Context) (healthy bool, version int32) {
	if err := s.DB.Ping(ctx); err != nil {
		return false, 0
	}
	if err := s.DB.Pool.QueryRow(ctx, schema.VersionQuery).Scan(&version); err != nil {
		return true, 0
	}
	return true, version
}
