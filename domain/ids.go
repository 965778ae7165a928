package domain

import "github.com/google/uuid"

// NewID is a UUIDv7: time-ordered, so keyset pagination by id follows
// creation order.
func NewID() uuid.UUID { return uuid.Must(uuid.NewV7()) }
