package importdb

import "github.com/google/uuid"

// bin passes ids to pgx as raw 16-byte values: uuid.UUID is a
// driver.Valuer, which pgx would render as text and parse back, one id at
// a time, for arrays of thousands of ids per batch.
func bin(ids []uuid.UUID) [][16]byte {
	out := make([][16]byte, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// binOpt is bin for nullable ids.
func binOpt(ids []*uuid.UUID) []*[16]byte {
	out := make([]*[16]byte, len(ids))
	for i, id := range ids {
		if id != nil {
			b := [16]byte(*id)
			out[i] = &b
		}
	}
	return out
}
