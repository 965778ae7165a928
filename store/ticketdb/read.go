package ticketdb

import (
	"context"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/store"
	"tracker/store/customfielddb"
	"tracker/store/notificationdb"
)

// The hot paths' SQL, built once.
var (
	getWithAccessSQL = `SELECT ` + prefixed("t") + `, ` + accessCols("$2") + `, ` + notificationdb.WatchingColumn("t.id", "$2") + `
	        FROM tickets t JOIN projects p ON p.id = t.project_id
	        WHERE t.id = $1 AND ` + visible
	projectForCreateSQL = `SELECT ` + store.Cols(store.AccessColumns("p.org_id", "p.id", "$2")) + `, ` + workflowCols + `,
	          ($3::uuid IS NULL OR EXISTS (SELECT 1 FROM memberships m WHERE m.org_id = p.org_id AND m.user_id = $3 AND m.suspended_at IS NULL)) AS assignee_ok
	        FROM projects p` + workflowJoin + `
	        WHERE p.id = $1 AND p.deleted_at IS NULL`
)

// Accessed is a visible ticket with the caller's access to it, and whether
// the caller watches it.
type Accessed struct {
	Row
	store.AccessRow
	Watching bool
}

// GetWithAccess reads a visible ticket and the caller's access in one query
// (the hot read path: scanned by position, see rowScan).
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID) (Accessed, error) {
	sql := getWithAccessSQL
	var (
		rs    = newRowScan()
		acc   accessScan
		found bool
	)
	rows, err := q.Query(ctx, sql, id, userID)
	if err != nil {
		return Accessed{}, store.Translate(err)
	}
	var watching bool
	targets := append(append(rs.next(), acc.targets()...), &watching)
	if err := scanAll(rows, func() ([]any, func()) { return targets, func() { found = true } }); err != nil {
		return Accessed{}, err
	}
	if !found {
		return Accessed{}, store.ErrNotFound
	}
	return Accessed{Row: rs.r, AccessRow: acc.access(), Watching: watching}, nil
}

// ForChange is a visible ticket with the caller's access, its project's key
// and the workflow that governs its moves.
type ForChange struct {
	Row
	store.AccessRow
	WorkflowRow
	ProjectKey string `db:"project_key"`
}

func forChangeSQL(where string, lock bool) string {
	sql := `SELECT ` + prefixed("t") + `, ` + accessCols("$2") + `, ` + workflowCols + `, p.key AS project_key
	        FROM tickets t JOIN projects p ON p.id = t.project_id` + workflowJoin + `
	        WHERE ` + where + ` AND ` + visible
	if lock {
		// Locked in id order, so two batches over the same tickets cannot
		// deadlock; a concurrent change of one ticket waits for this one.
		sql += ` ORDER BY t.id FOR UPDATE OF t`
	}
	return sql
}

// GetForChange reads a visible ticket for a change (row-locked when lock is
// set) with everything the change is checked against, in one query.
func GetForChange(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock bool) (ForChange, error) {
	return store.GetRaw[ForChange](ctx, q, forChangeSQL("t.id = $1", lock), id, userID)
}

// GetForChangeWithFields is GetForChange with the live custom field
// definitions of the ticket's org and the ticket's values (with their live
// fields), read in the same round trip (the three queries go as one batch):
// a change of custom values is checked against the first and compared with
// the second. The caller authorizes the access before it uses them.
func GetForChangeWithFields(ctx context.Context, q store.Querier, id, userID uuid.UUID, lock bool) (ForChange, []customfielddb.Row, []customfielddb.FieldValue, error) {
	b := &pgx.Batch{}
	b.Queue(forChangeSQL("t.id = $1", lock), id, userID)
	b.Queue(customfielddb.OfTicketOrgSQL, id)
	b.Queue(customfielddb.OfTicketSQL, id)
	br := q.SendBatch(ctx, b)
	defer br.Close()
	rows, err := br.Query()
	if err != nil {
		return ForChange{}, nil, nil, store.Translate(err)
	}
	t, err := pgx.CollectExactlyOneRow(rows, pgx.RowToStructByName[ForChange])
	if err != nil {
		return ForChange{}, nil, nil, store.Translate(err)
	}
	if rows, err = br.Query(); err != nil {
		return ForChange{}, nil, nil, store.Translate(err)
	}
	defs, err := pgx.CollectRows(rows, pgx.RowToStructByName[customfielddb.Row])
	if err != nil {
		return ForChange{}, nil, nil, store.Translate(err)
	}
	if rows, err = br.Query(); err != nil {
		return ForChange{}, nil, nil, store.Translate(err)
	}
	values, err := customfielddb.ScanLive(rows)
	if err != nil {
		return ForChange{}, nil, nil, err
	}
	return t, defs, values, store.Translate(br.Close())
}

// ManyForChange is GetForChange for several tickets; invisible ids are
// simply absent from the result.
func ManyForChange(ctx context.Context, q store.Querier, ids []uuid.UUID, userID uuid.UUID, lock bool) ([]ForChange, error) {
	return store.SelectRaw[ForChange](ctx, q, forChangeSQL("t.id = ANY($1)", lock), ids, userID)
}

// ProjectForCreate is a live project with the caller's access, the workflow
// new tickets are checked against, and whether the proposed assignee is a
// member of the project's org.
type ProjectForCreate struct {
	store.AccessRow
	WorkflowRow
	AssigneeOK bool `db:"assignee_ok"`
}

// GetProjectForCreate reads what creating a ticket in projectID needs, in one
// query; assigneeID may be nil.
func GetProjectForCreate(ctx context.Context, q store.Querier, projectID, userID uuid.UUID, assigneeID *uuid.UUID) (ProjectForCreate, error) {
	return store.GetRaw[ProjectForCreate](ctx, q, projectForCreateSQL, projectID, userID, assigneeID)
}

// IsOrgMember reports whether userID is a member of orgID (assignees must be).
func IsOrgMember(ctx context.Context, q store.Querier, orgID, userID uuid.UUID) (bool, error) {
	return store.Scalar[bool](ctx, q, store.SQL.Select().
		Column("EXISTS (SELECT 1 FROM memberships WHERE org_id = ? AND user_id = ? AND suspended_at IS NULL)", orgID, userID))
}

// SprintProject is the project of a live sprint of orgID.
func SprintProject(ctx context.Context, q store.Querier, orgID, sprintID uuid.UUID) (uuid.UUID, error) {
	return store.Scalar[uuid.UUID](ctx, q, store.SQL.Select("s.project_id").From("sprints s").
		Join("projects p ON p.id = s.project_id").
		Where("s.org_id = ? AND s.id = ? AND s.deleted_at IS NULL AND p.deleted_at IS NULL", orgID, sprintID))
}
