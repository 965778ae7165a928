package exportdb

import "github.com/google/uuid"

// binIDs passes ids to pgx as raw 16-byte values: uuid.UUID is a
// driver.Valuer, which pgx would render as text and parse back, one id at
// a time (a quarter of an export's CPU before this).
func binIDs(ids []uuid.UUID) [][16]byte {
	out := make([][16]byte, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}
