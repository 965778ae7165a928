// Package commentdb holds the SQL of comments. A comment is visible while its
// ticket and the ticket's project are live (deleted_at IS NULL).
package commentdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Content are a comment's own values: what a create sets and a PATCH
// changes. The API's comment (domain/comment.Comment) and the export
// document's (export.Comment) embed it, so a new field of comments is a
// field here; its `db` tags are the columns, its `json` tags the API's and
// the document's keys.
type Content struct {
	Body string `db:"body" json:"body"`
}

// ContentFields is Content's column list (the export's SQLite table).
var ContentFields = store.FieldsOf[Content]()

// Row is a comments row: the one definition of its columns, which the
// column list, the scans, InsertMany (an API's create, an import's batch),
// Update and the export read are built from.
type Row struct {
	ID       uuid.UUID `db:"id"`
	OrgID    uuid.UUID `db:"org_id"`
	TicketID uuid.UUID `db:"ticket_id"`
	AuthorID uuid.UUID `db:"author_id"`
	Content
	ParentCommentID *uuid.UUID `db:"parent_comment_id"`
	CreatedAt       time.Time  `db:"created_at"`
	UpdatedAt       time.Time  `db:"updated_at"`
	// RowVersion counts the row's changes (a trigger bumps it): the ETag.
	// A new row is at 1, the column's default.
	RowVersion int64 `db:"row_version"`
}

var fields = store.FieldsOf[Row]()

// Columns is the column list of Row.
func Columns() []string { return fields.Names() }

func prefixed(p string) []string { return store.Prefixed(p, Columns()) }

// WithAccess is a comment and the caller's standing toward its ticket's project.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads a visible comment with the caller's access, taking
// the row lock lock.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock Lock) (WithAccess, error) {
	sql := `SELECT ` + store.Cols(prefixed("c")) + `, ` + store.Cols(store.AccessColumns("t.org_id", "t.project_id", "$2")) + `
	        FROM comments c
	        JOIN tickets t ON t.id = c.ticket_id
	        JOIN projects p ON p.id = t.project_id
	        WHERE c.id = $1 AND t.deleted_at IS NULL AND p.deleted_at IS NULL`
	if lock != NoLock {
		sql += " " + string(lock) + " OF c"
	}
	return store.GetRaw[WithAccess](ctx, q, sql, id, userID)
}

// Get reads one comment of org by id (no visibility rule: callers have
// already checked the ticket).
func Get(ctx context.Context, q store.Querier, orgID, id uuid.UUID) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Select(Columns()...).From("comments").
		Where(sq.Eq{"org_id": orgID, "id": id}))
}

// Insert creates a comment.
func Insert(ctx context.Context, q store.Querier, r Row) error { return InsertMany(ctx, q, []Row{r}) }

// InsertMany creates comments (a parent may be in the same call).
func InsertMany(ctx context.Context, q store.Querier, rs []Row) error {
	return fields.InsertMany(ctx, q, "comments", rs)
}

// ListByTicket pages a ticket's comments by id (creation order).
func ListByTicket(ctx context.Context, q store.Querier, orgID, ticketID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(Columns()...).From("comments").Where(sq.Eq{"org_id": orgID, "ticket_id": ticketID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Update writes the columns set (a domain.Changeset's) and updated_at of a
// comment while it is at one of the versions v names (If-Match) and returns
// the row; no such row is store.ErrNotFound.
func Update(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions, set map[string]any, at time.Time) (Row, error) {
	return store.Get[Row](ctx, q, store.SQL.Update("comments").SetMap(set).Set("updated_at", at).
		Where(sq.Eq{"org_id": orgID, "id": id}).Where(v.Where("row_version")).Suffix("RETURNING "+store.Cols(Columns())))
}

// DeleteThread hard-deletes a comment at one of the versions v names (If-Match)
// and every reply below it in one statement (the parent foreign key is
// checked at the statement's end), and returns the deleted ids, the root
// first; none when the comment is at another version.
func DeleteThread(ctx context.Context, q store.Querier, orgID, id uuid.UUID, v store.Versions) ([]uuid.UUID, error) {
	return store.Column[uuid.UUID](ctx, q, `WITH RECURSIVE thread AS (
		    SELECT id, 0 AS depth FROM comments
		    WHERE org_id = $1 AND id = $2 AND ($3::bigint[] IS NULL OR row_version = ANY($3))
		    UNION ALL
		    SELECT c.id, thread.depth + 1 FROM comments c JOIN thread ON c.parent_comment_id = thread.id
		), gone AS (
		    DELETE FROM comments WHERE id IN (SELECT id FROM thread) RETURNING id
		)
		SELECT thread.id FROM thread JOIN gone ON gone.id = thread.id ORDER BY thread.depth, thread.id`, orgID, id, v.Arg())
}

// OthersInThread counts the comments below id (its replies, at any depth)
// written by someone other than authorID.
func OthersInThread(ctx context.Context, q store.Querier, orgID, id, authorID uuid.UUID) (int64, error) {
	var n int64
	err := q.QueryRow(ctx, `WITH RECURSIVE thread AS (
		    SELECT id, author_id FROM comments WHERE org_id = $1 AND parent_comment_id = $2
		    UNION ALL
		    SELECT c.id, c.author_id FROM comments c JOIN thread ON c.parent_comment_id = thread.id
		)
		SELECT count(*) FROM thread WHERE author_id <> $3`, orgID, id, authorID).Scan(&n)
	return n, store.Translate(err)
}

// Lock is the row lock a read for change takes.
type Lock string

// Row locks.
const (
	NoLock Lock = ""
	// ForChange blocks other changes of the row but not new references to it.
	ForChange Lock = "FOR NO KEY UPDATE"
	// ForDelete also blocks new references (foreign keys) to the row.
	ForDelete Lock = "FOR UPDATE"
)
