package cascadedb

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/uuid"

	"tracker/store"
)

// Root is the soft-deleted row whose dependents are purged.
type Root struct {
	OrgID uuid.UUID
	Type  string // project, sprint, ticket, label
	ID    uuid.UUID
}

// Step names, in the order a plan runs them (leaf first).
const (
	StepDetachReplies  = "comments.detach" // replies in other tickets let go of purged parents
	StepComments       = "comments"
	StepTicketLabels   = "ticket_labels"
	StepTimeEntries    = "time_entries" // Draft and Submitted only; Approved are kept
	StepAttachments    = "attachments"  // rows go; an outbox job removes their objects
	StepTickets        = "tickets"
	StepTombstones     = "tickets.tombstone" // tickets kept: marked deleted, let go of purged sprints
	StepSprints        = "sprints"
	StepProjectMembers = "project_members"
	StepLabelLinks     = "label_links"
	StepRoot           = "root"
)

var plans = map[string][]string{
	"project": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets, StepTombstones,
		StepSprints, StepProjectMembers, StepRoot},
	"sprint": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets, StepTombstones, StepRoot},
	// A ticket is its own ticket scope: the tickets step removes the root.
	"ticket": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets},
	"label":  {StepLabelLinks, StepRoot},
}

// Plan lists the steps that purge a root of type t.
func Plan(t string) ([]string, error) {
	p, ok := plans[t]
	if !ok {
		return nil, fmt.Errorf("cascade: unknown root type %q", t)
	}
	return append([]string(nil), p...), nil
}

// Batched reports whether a step deletes in batches (run until a batch
// deletes nothing) rather than in one statement.
func Batched(step string) bool {
	return step != StepDetachReplies && step != StepTombstones && step != StepRoot
}

var rootTables = map[string]string{"project": "projects", "sprint": "sprints", "ticket": "tickets", "label": "labels"}

// RootState is the purge's precondition.
type RootState int

const (
	RootGone    RootState = iota // nothing to purge (already done)
	RootDeleted                  // soft-deleted: purge
	RootLive                     // not deleted: never purge
)

// State reads whether the root is soft-deleted, live or gone.
func State(ctx context.Context, q store.Querier, r Root) (RootState, error) {
	table, ok := rootTables[r.Type]
	if !ok {
		return RootGone, fmt.Errorf("cascade: unknown root type %q", r.Type)
	}
	var deleted bool
	err := q.QueryRow(ctx, `SELECT deleted_at IS NOT NULL FROM `+table+` WHERE org_id = $1 AND id = $2`, r.OrgID, r.ID).Scan(&deleted)
	if err = store.Translate(err); errors.Is(err, store.ErrNotFound) {
		return RootGone, nil
	} else if err != nil {
		return RootGone, err
	}
	if deleted {
		return RootDeleted, nil
	}
	return RootLive, nil
}

// ticketScope selects the ids of the root's tickets ($1 org, $2 root).
func ticketScope(t string) string {
	switch t {
	case "project":
		return `SELECT id FROM tickets WHERE org_id = $1 AND project_id = $2`
	case "sprint":
		return `SELECT id FROM tickets WHERE org_id = $1 AND sprint_id = $2 AND deleted_at IS NOT NULL`
	default:
		return `SELECT id FROM tickets WHERE org_id = $1 AND id = $2 AND deleted_at IS NOT NULL`
	}
}

// Run runs one batch of a step (at most limit rows) in q and returns the
// number of rows it deleted or changed.
func Run(ctx context.Context, q store.Querier, r Root, step string, limit int) (int64, error) {
	query, err := stepSQL(ctx, q, r, step)
	if err != nil || query == "" {
		return 0, err
	}
	args := []any{r.OrgID, r.ID}
	if Batched(step) {
		args = append(args, limit)
	}
	if isCount(step) {
		var n int64
		err := q.QueryRow(ctx, query, args...).Scan(&n)
		return n, store.Translate(err)
	}
	tag, err := q.Exec(ctx, query, args...)
	if err != nil {
		return 0, store.Translate(err)
	}
	return tag.RowsAffected(), nil
}

// isCount marks the steps written as a data-modifying CTE returning a count
// (they delete the rows' entity tags in the same statement).
func isCount(step string) bool {
	return step == StepTimeEntries || step == StepTickets || step == StepRoot || step == StepAttachments
}
