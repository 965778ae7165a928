package apitest

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/google/uuid"

	"tracker/domain"
)

// AuditRow is one audit row as tests read it.
type AuditRow struct {
	EntityType string
	EntityID   uuid.UUID
	Action     string
	Changes    []domain.FieldChange
}

// Audit returns the audit rows of one entity, oldest first (a ticket made
// by testfactory.Ticket starts with its "created" row).
func (e *Env) Audit(t testing.TB, entityType string, entityID uuid.UUID) []AuditRow {
	t.Helper()
	rows, err := e.DB.Pool.Query(context.Background(), `SELECT entity_type, entity_id, action, changes FROM audit_log
		WHERE entity_type = $1 AND entity_id = $2 ORDER BY created_at, id`, entityType, entityID)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []AuditRow
	for rows.Next() {
		var r AuditRow
		var b []byte
		if err := rows.Scan(&r.EntityType, &r.EntityID, &r.Action, &b); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.Changes); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// Outbox returns the payloads of the outbox rows of topic in org, oldest
// first.
func (e *Env) Outbox(t testing.TB, orgID uuid.UUID, topic string) []map[string]any {
	t.Helper()
	rows, err := e.DB.Pool.Query(context.Background(), `SELECT payload FROM outbox WHERE org_id = $1 AND topic = $2 ORDER BY id`, orgID, topic)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
