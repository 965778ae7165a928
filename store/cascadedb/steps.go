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
	Type  string // project, sprint, ticket, label, custom_field
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
	StepFieldValues    = "ticket_custom_values" // a custom field's values on tickets
	StepRoot           = "root"
)

var plans = map[string][]string{
	"project": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets, StepTombstones,
		StepSprints, StepProjectMembers, StepRoot},
	"sprint": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets, StepTombstones, StepRoot},
	// A ticket is its own ticket scope: the tickets step removes the root.
	"ticket": {StepDetachReplies, StepComments, StepTicketLabels, StepTimeEntries, StepAttachments, StepTickets},
	"label":  {StepLabelLinks, StepRoot},
	// A custom field held by many tickets (small ones go inline).
	"custom_field": {StepFieldValues, StepRoot},
}

// Plan lists the steps that purge a root of type t.
func Plan(t string) ([]string, error) {
	p, ok := plans[t]
	if !ok {
		return nil, fmt.Errorf("cascade: unknown root type %q", t)
	}
	return append([]string(nil), p...), nil
}

// Batched reports whether a step works in batches of a limit (run until a
// batch changes nothing, see StepDone) rather than in one statement. Only the root's own step, one row, is not.
func Batched(step string) bool {
	return step != StepRoot
}

var rootTables = map[string]string{"project": "projects", "sprint": "sprints", "ticket": "tickets", "label": "labels",
	"custom_field": "custom_fields"}

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

// StepDone reports whether a batch of step that changed n rows leaves
// nothing the step may change. Under the root's lock (see Run) a batch's
// statement sees everything committed before it and no other batch of the
// root runs beside it, so a batch that changes nothing proves that nothing
// changeable remains. (Fewer than the limit proves nothing: a reply's
// parent becomes deletable only after the reply went, in a later batch.)
func StepDone(step string, n int64) bool {
	return !Batched(step) || n == 0
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

// Lock takes the root's purge lock for the rest of q's transaction: batches
// of one root never run side by side (a retried activity attempt beside a
// zombie one), so each batch's statement starts after the previous batch
// committed and sees every row that is still left. Without it a batch
// blocked on rows a concurrent batch deleted finds 0 rows and a step would
// end with rows left behind.
func Lock(ctx context.Context, q store.Querier, r Root) error {
	_, err := q.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`,
		"cascade:"+r.OrgID.String()+":"+r.ID.String())
	return store.Translate(err)
}

// Run runs one batch of a step (at most limit rows) and returns the number
// of rows it deleted or changed. q must be a transaction: Run takes the
// root's lock first (see Lock), so a batch that changes nothing proves the
// step is done (StepDone).
func Run(ctx context.Context, q store.Querier, r Root, step string, limit int) (int64, error) {
	if err := Lock(ctx, q, r); err != nil {
		return 0, err
	}
	query, err := stepSQL(ctx, q, r, step)
	if err != nil || query == "" {
		return 0, err
	}
	args := []any{r.OrgID, r.ID}
	if Batched(step) {
		args = append(args, max(limit, 1))
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
// (they delete the rows' entity tags, or rewrite the tickets' rendered
// copies, in the same statement).
func isCount(step string) bool {
	return step == StepTimeEntries || step == StepTickets || step == StepRoot || step == StepAttachments ||
		step == StepFieldValues
}
