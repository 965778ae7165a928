package importdb

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/ticketdb"
)

// RaiseCounters lifts each project's ticket_counter to at least the given
// number, locking the projects until the batch commits: a ticket created
// meanwhile through the API then numbers above every imported ticket.
func RaiseCounters(ctx context.Context, q store.Querier, projectIDs []uuid.UUID, numbers []int) error {
	_, err := q.Exec(ctx, `UPDATE projects p SET ticket_counter = GREATEST(p.ticket_counter, v.n)
	    FROM unnest($1::uuid[], $2::int[]) AS v(id, n) WHERE p.id = v.id`, projectIDs, numbers)
	return store.Translate(err)
}

// Allocate takes n new numbers from a project's counter and returns the
// first.
func Allocate(ctx context.Context, q store.Querier, projectID uuid.UUID, n int) (int, error) {
	var last int
	err := q.QueryRow(ctx, `UPDATE projects SET ticket_counter = ticket_counter + $2 WHERE id = $1 RETURNING ticket_counter`,
		projectID, n).Scan(&last)
	return last - n + 1, store.Translate(err)
}

// Existing is a ticket that holds a number an imported ticket asked for.
type Existing struct {
	ProjectID uuid.UUID `db:"project_id"`
	Number    int       `db:"ticket_number"`
	ID        uuid.UUID `db:"id"`
	CreatedAt time.Time `db:"created_at"`
}

// ExistingTickets reads the tickets holding the given (project, number)
// pairs, deleted ones included (their numbers stay taken).
func ExistingTickets(ctx context.Context, q store.Querier, projectIDs []uuid.UUID, numbers []int) ([]Existing, error) {
	return store.SelectRaw[Existing](ctx, q, `SELECT t.project_id, t.ticket_number, t.id, t.created_at
	    FROM unnest($1::uuid[], $2::int[]) AS v(project, num), LATERAL (
	        SELECT project_id, ticket_number, id, created_at FROM tickets
	        WHERE project_id = v.project AND ticket_number = v.num LIMIT 1) AS t`, projectIDs, numbers)
}

// InsertTicketLabels links tickets to labels.
func InsertTicketLabels(ctx context.Context, q store.Querier, orgID uuid.UUID, ticketIDs, labelIDs []uuid.UUID, at time.Time) error {
	if len(ticketIDs) == 0 {
		return nil
	}
	_, err := q.Exec(ctx, `INSERT INTO ticket_labels (org_id, ticket_id, label_id, created_at)
	    SELECT $1, u.t, u.l, $4 FROM unnest($2::uuid[], $3::uuid[]) AS u(t, l) ON CONFLICT DO NOTHING`,
		orgID, ticketIDs, labelIDs, at)
	return store.Translate(err)
}

// Email is a user's email (the importing admin's, whom an import records
// as approver).
func Email(ctx context.Context, q store.Querier, userID uuid.UUID) (string, error) {
	var email string
	err := q.QueryRow(ctx, `SELECT email FROM users WHERE id = $1`, userID).Scan(&email)
	return email, store.Translate(err)
}

// TicketRef is a ticket of a document: its project's key, its number and
// its created_at (nil when the document has none).
type TicketRef struct {
	ProjectKey string
	Number     int
	CreatedAt  *time.Time
}

// Present tells, for each ticket of a document, whether an import of it
// into org from source would skip it as already there: imported from the
// same source before (the key map), or its number in the live project of
// its key held by a ticket created at the same instant (the same ticket,
// deleted or not), as the batch step matches them.
func Present(ctx context.Context, q store.Querier, orgID uuid.UUID, source string, refs []TicketRef) ([]bool, error) {
	out := make([]bool, len(refs))
	if len(refs) == 0 {
		return out, nil
	}
	keys, nums, created := make([]string, len(refs)), make([]int, len(refs)), make([]*time.Time, len(refs))
	for i, r := range refs {
		keys[i], nums[i], created[i] = r.ProjectKey, r.Number, r.CreatedAt
	}
	rows, err := q.Query(ctx, `SELECT u.i FROM unnest($3::text[], $4::int[], $5::timestamptz[]) WITH ORDINALITY AS u(pkey, num, created, i)
	    WHERE EXISTS (SELECT 1 FROM import_key_map k WHERE k.org_id = $1 AND k.source = $2 AND k.kind = 'ticket'
	            AND k.source_key = upper(u.pkey) || '-' || u.num)
	        OR EXISTS (SELECT 1 FROM projects p JOIN tickets t ON t.project_id = p.id
	            WHERE p.org_id = $1 AND p.deleted_at IS NULL AND upper(p.key) = upper(u.pkey) AND t.ticket_number = u.num
	            AND t.created_at > u.created - interval '1 microsecond' AND t.created_at < u.created + interval '1 microsecond')`,
		orgID, source, keys, nums, created)
	if err != nil {
		return nil, store.Translate(err)
	}
	found, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	for _, i := range found {
		out[i-1] = true
	}
	return out, store.Translate(err)
}

// Refresh is what a re-import of another tracker's file sets on a ticket
// it imported before.
type Refresh struct {
	ID         uuid.UUID
	Content    ticketdb.Content
	AssigneeID *uuid.UUID
	SprintID   *uuid.UUID
	UpdatedAt  time.Time
}

// RefreshTickets sets the values of live tickets whose values differ and
// returns the ids it changed.
func RefreshTickets(ctx context.Context, q store.Querier, orgID uuid.UUID, rs []Refresh) (map[uuid.UUID]bool, error) {
	changed := map[uuid.UUID]bool{}
	for _, r := range rs {
		c := r.Content
		var id uuid.UUID
		err := q.QueryRow(ctx, `UPDATE tickets SET title = $3, description = $4, status = $5, priority = $6,
		        due_date = $7, estimate = $8, assignee_id = $9, sprint_id = $10, updated_at = greatest(updated_at, $11)
		    WHERE org_id = $1 AND id = $2 AND deleted_at IS NULL
		      AND (title, description, status, priority, due_date, estimate, assignee_id, sprint_id)
		          IS DISTINCT FROM ($3, $4, $5, $6, $7::date, $8::numeric, $9::uuid, $10::uuid)
		    RETURNING id`, orgID, r.ID, c.Title, c.Description, c.Status, c.Priority, c.DueDate, c.Estimate,
			r.AssigneeID, r.SprintID, r.UpdatedAt).Scan(&id)
		if errors.Is(store.Translate(err), store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, store.Translate(err)
		}
		changed[id] = true
	}
	return changed, nil
}

// CommentKeys are the comments of the tickets as author, time (to the
// second) and body: what tells a comment a re-import brings again.
func CommentKeys(ctx context.Context, q store.Querier, ticketIDs []uuid.UUID) (map[string]bool, error) {
	out := map[string]bool{}
	if len(ticketIDs) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, `SELECT ticket_id, author_id, date_trunc('second', created_at), body FROM comments
	    WHERE ticket_id = ANY($1)`, ticketIDs)
	if err != nil {
		return nil, store.Translate(err)
	}
	defer rows.Close()
	for rows.Next() {
		var t, a uuid.UUID
		var at time.Time
		var body string
		if err := rows.Scan(&t, &a, &at, &body); err != nil {
			return nil, store.Translate(err)
		}
		out[CommentKey(t, a, at, body)] = true
	}
	return out, store.Translate(rows.Err())
}

// CommentKey names a comment by ticket, author, time and body.
func CommentKey(ticket, author uuid.UUID, at time.Time, body string) string {
	return ticket.String() + "|" + author.String() + "|" + at.UTC().Truncate(time.Second).Format(time.RFC3339) + "|" + body
}

// TreeNode is one ticket of the parent tree around an import's tickets.
type TreeNode struct {
	ID       uuid.UUID
	ParentID *uuid.UUID
	Deleted  bool
}

// ParentTree reads, in two statements, the tickets up: every ancestor of
// each (with themselves), and the live descendants of down: enough to
// check parents set among them for cycles and depth without a query per
// ticket.
func ParentTree(ctx context.Context, q store.Querier, up, down []uuid.UUID) (ancestors, descendants []TreeNode, err error) {
	ancestors, err = treeNodes(ctx, q, `WITH RECURSIVE up(id, parent_id, deleted) AS (
	        SELECT id, parent_id, deleted_at IS NOT NULL FROM tickets WHERE id = ANY($1::uuid[])
	        UNION
	        SELECT t.id, t.parent_id, t.deleted_at IS NOT NULL FROM tickets t JOIN up ON t.id = up.parent_id)
	    SELECT id, parent_id, deleted FROM up`, up)
	if err != nil {
		return nil, nil, err
	}
	descendants, err = treeNodes(ctx, q, `WITH RECURSIVE down(id, parent_id) AS (
	        SELECT id, parent_id FROM tickets WHERE parent_id = ANY($1::uuid[]) AND deleted_at IS NULL
	        UNION
	        SELECT t.id, t.parent_id FROM tickets t JOIN down ON t.parent_id = down.id WHERE t.deleted_at IS NULL)
	    SELECT id, parent_id, false FROM down`, down)
	return ancestors, descendants, err
}

func treeNodes(ctx context.Context, q store.Querier, sql string, ids []uuid.UUID) ([]TreeNode, error) {
	rows, err := q.Query(ctx, sql, ids)
	if err != nil {
		return nil, store.Translate(err)
	}
	var out []TreeNode
	var n TreeNode
	_, err = pgx.ForEachRow(rows, []any{&n.ID, &n.ParentID, &n.Deleted}, func() error {
		out = append(out, n)
		n = TreeNode{}
		return nil
	})
	return out, store.Translate(err)
}

// Orphans are the live tickets of ids without a parent: those a parent
// may still be set on.
func Orphans(ctx context.Context, q store.Querier, ids []uuid.UUID) (map[uuid.UUID]bool, error) {
	rows, err := q.Query(ctx, `SELECT id FROM tickets WHERE id = ANY($1::uuid[]) AND parent_id IS NULL AND deleted_at IS NULL`, ids)
	if err != nil {
		return nil, store.Translate(err)
	}
	out := map[uuid.UUID]bool{}
	var id uuid.UUID
	_, err = pgx.ForEachRow(rows, []any{&id}, func() error {
		out[id] = true
		return nil
	})
	return out, store.Translate(err)
}

// SetParents sets parents[i] as the parent of children[i] on each child
// without a parent, and returns how many it set.
func SetParents(ctx context.Context, q store.Querier, children, parents []uuid.UUID) (int, error) {
	if len(children) == 0 {
		return 0, nil
	}
	tag, err := q.Exec(ctx, `UPDATE tickets t SET parent_id = u.parent
	    FROM unnest($1::uuid[], $2::uuid[]) AS u(child, parent)
	    WHERE t.id = u.child AND t.parent_id IS NULL AND t.deleted_at IS NULL`, children, parents)
	if err != nil {
		return 0, store.Translate(err)
	}
	return int(tag.RowsAffected()), nil
}
