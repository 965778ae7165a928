package statusflow

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/statusflowdb"
)

// Service runs the workflow use cases (create, read, update, delete).
type Service struct {
	DB    *store.DB
	clock domain.Clock
}

// New builds the service on db, telling the time by clock.
func New(db *store.DB, clock domain.Clock) *Service { return &Service{DB: db, clock: clock} }

func (s *Service) now() time.Time { return s.clock.Now() }

// Workflow is a workflow as the API renders it.
type Workflow struct {
	ID          uuid.UUID    `json:"id"`
	OrgID       uuid.UUID    `json:"org_id"`
	Name        string       `json:"name"`
	Statuses    []Status     `json:"statuses"`
	Transitions []Transition `json:"transitions"`
	Enforcement string       `json:"enforcement"`
	CreatedAt   time.Time    `json:"created_at"`
	UpdatedAt   time.Time    `json:"updated_at"`
	// Version is the row's version, sent as the ETag (not in the body).
	Version int64 `json:"-"`
}

// RowVersion is the workflow's ETag version (domain.Versioned).
func (w Workflow) RowVersion() int64 { return w.Version }

// IsDefault reports whether w is its org's Default workflow, which every
// project without a workflow of its own follows.
func (w Workflow) IsDefault() bool { return w.Name == DefaultName }

// FromRow decodes a workflows row.
func FromRow(r statusflowdb.Row) (Workflow, error) {
	w := Workflow{ID: r.ID, OrgID: r.OrgID, Name: r.Name, Enforcement: r.Enforcement,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC(), Version: r.RowVersion}
	if err := json.Unmarshal(r.Statuses, &w.Statuses); err != nil {
		return Workflow{}, fmt.Errorf("decode statuses of workflow %s: %w", r.ID, err)
	}
	if err := json.Unmarshal(r.Transitions, &w.Transitions); err != nil {
		return Workflow{}, fmt.Errorf("decode transitions of workflow %s: %w", r.ID, err)
	}
	if w.Statuses == nil {
		w.Statuses = []Status{}
	}
	if w.Transitions == nil {
		w.Transitions = []Transition{}
	}
	return w, nil
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // statuses and transitions are plain structs of strings
	}
	return string(b)
}
