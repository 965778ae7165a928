package testfactory

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
)

// NumberValue gives ticketID (of orgID) the value v of the org's number
// field key, creating the field (every project) when the org lacks it; it
// returns the field's id.
func NumberValue(t testing.TB, db *store.DB, orgID, ticketID uuid.UUID, key string, v float64) uuid.UUID {
	t.Helper()
	ctx := context.Background()
	var id uuid.UUID
	err := db.Pool.QueryRow(ctx, `WITH f AS (
	        INSERT INTO custom_fields (id, org_id, key, name, type) VALUES ($1, $2, $3, $3, 'number')
	        ON CONFLICT (org_id, key) WHERE deleted_at IS NULL DO UPDATE SET key = EXCLUDED.key RETURNING id)
	    INSERT INTO ticket_custom_values (ticket_id, field_id, org_id, num_value) SELECT $4, f.id, $2, $5 FROM f
	    ON CONFLICT (ticket_id, field_id) DO UPDATE SET num_value = EXCLUDED.num_value RETURNING field_id`,
		domain.NewID(), orgID, key, ticketID, v).Scan(&id)
	if err != nil {
		t.Fatalf("testfactory.NumberValue: %v", err)
	}
	if _, err := db.Pool.Exec(ctx, `UPDATE tickets SET custom_fields = ticket_custom_fields_json(id) WHERE id = $1`, ticketID); err != nil {
		t.Fatalf("testfactory.NumberValue: %v", err)
	}
	return id
}
