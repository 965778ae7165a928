// Package statusflow holds the rules of ticket-status workflows (the API's
// "workflows"; named statusflow so it is never taken for a Temporal
// workflow): statuses, transitions and their enforcement.
package statusflow

import (
	"context"
	"encoding/json"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/statusflowdb"
)

// Status categories.
const (
	CategoryTodo       = "todo"
	CategoryInProgress = "in_progress"
	CategoryDone       = "done"
	CategoryCancelled  = "cancelled"
)

// Enforcement values.
const (
	EnforceNone   = "none"
	EnforceWarn   = "warn"
	EnforceStrict = "strict"
)

// DefaultName is the name of the workflow every org receives on creation.
const DefaultName = "Default"

// Status is one status of a workflow.
type Status struct {
	Name     string `json:"name"`
	Category string `json:"category"`
}

// Transition is an allowed move between two status names.
type Transition struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// DefaultStatuses are the statuses of the Default workflow.
func DefaultStatuses() []Status {
	return []Status{
		{"Backlog", CategoryTodo}, {"Todo", CategoryTodo}, {"InProgress", CategoryInProgress},
		{"InReview", CategoryInProgress}, {"Done", CategoryDone}, {"Cancelled", CategoryCancelled},
	}
}

// DefaultTransitions are the usual forward and backward moves of the Default
// workflow; with enforcement none they are advisory (they feed
// /available-transitions).
func DefaultTransitions() []Transition {
	return []Transition{
		{"Backlog", "Todo"}, {"Todo", "InProgress"}, {"InProgress", "InReview"}, {"InReview", "Done"},
		{"InReview", "InProgress"}, {"InProgress", "Todo"}, {"Todo", "Backlog"},
		{"Backlog", "Cancelled"}, {"Todo", "Cancelled"}, {"InProgress", "Cancelled"}, {"InReview", "Cancelled"},
		{"Done", "Todo"}, {"Cancelled", "Backlog"},
	}
}

// CreateDefault gives a new org its Default workflow (enforcement none),
// created at now.
func CreateDefault(ctx context.Context, q store.Querier, orgID uuid.UUID, now time.Time) error {
	st, _ := json.Marshal(DefaultStatuses())
	tr, _ := json.Marshal(DefaultTransitions())
	return statusflowdb.Insert(ctx, q, statusflowdb.Row{
		ID: domain.NewID(), OrgID: orgID, Name: DefaultName, Statuses: st, Transitions: tr,
		Enforcement: EnforceNone, CreatedAt: now, UpdatedAt: now,
	})
}
