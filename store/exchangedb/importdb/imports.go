// Package importdb holds the SQL of imports: the imports rows (status,
// progress, the stored document), the staged items, the key map from
// source keys to created rows, and the bulk inserts of a batch.
package importdb

import (
	"context"
	"strings"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Statuses of an import.
const (
	StatusPending   = "pending"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Stages of a running import, in order.
const (
	StageQueued  = "queued"
	StageStaged  = "staged"
	StageCatalog = "catalog"
	StageTickets = "tickets"
	StageDone    = "done"
)

// Counts are the summary's eight counts and the tickets skipped because
// they exist already (re-imports).
type Counts struct {
	UsersCreated       int `json:"users_created"`
	WorkflowsCreated   int `json:"workflows_created"`
	LabelsCreated      int `json:"labels_created"`
	ProjectsCreated    int `json:"projects_created"`
	SprintsCreated     int `json:"sprints_created"`
	TicketsCreated     int `json:"tickets_created"`
	CommentsCreated    int `json:"comments_created"`
	TimeEntriesCreated int `json:"time_entries_created"`
	TicketsSkipped     int `json:"tickets_skipped"`
	TeamsCreated       int `json:"teams_created"`
	LinksCreated       int `json:"links_created"`
	ParentsSet         int `json:"parents_set"`
	// TicketsUpdated are tickets a re-import of another tracker's file
	// found imported before and changed.
	TicketsUpdated int `json:"tickets_updated"`
	// FieldsCreated counts the custom field definitions the import added.
	FieldsCreated int `json:"fields_created"`
}

// Add sums two counts.
func (c Counts) Add(o Counts) Counts {
	return Counts{c.UsersCreated + o.UsersCreated, c.WorkflowsCreated + o.WorkflowsCreated,
		c.LabelsCreated + o.LabelsCreated, c.ProjectsCreated + o.ProjectsCreated, c.SprintsCreated + o.SprintsCreated,
		c.TicketsCreated + o.TicketsCreated, c.CommentsCreated + o.CommentsCreated,
		c.TimeEntriesCreated + o.TimeEntriesCreated, c.TicketsSkipped + o.TicketsSkipped, c.TeamsCreated + o.TeamsCreated,
		c.LinksCreated + o.LinksCreated, c.ParentsSet + o.ParentsSet, c.TicketsUpdated + o.TicketsUpdated, c.FieldsCreated + o.FieldsCreated}
}

// Row is an imports row without its document.
type Row struct {
	ID            uuid.UUID  `db:"id"`
	OrgID         uuid.UUID  `db:"org_id"`
	RequestedBy   *uuid.UUID `db:"requested_by"`
	RequesterRole string     `db:"requester_role"`
	Status        string     `db:"status"`
	Source        string     `db:"source"`
	SizeBytes     int64      `db:"size_bytes"`
	Stage         string     `db:"stage"`
	TicketsTotal  int        `db:"tickets_total"`
	NextSeq       int        `db:"next_seq"`
	Counts        Counts     `db:"counts"`
	Errors        []string   `db:"errors"`
	CreatedAt     time.Time  `db:"created_at"`
	StartedAt     *time.Time `db:"started_at"`
	FinishedAt    *time.Time `db:"finished_at"`
	// Format is the file's format (tracker_json: an export document);
	// Report the conversion's report of a file in another format (JSON).
	Format string `db:"format"`
	Report []byte `db:"report"`
	// File names the uploaded file in the object store and the
	// conversion's inputs (JSON; nil for a Tracker document).
	File []byte `db:"file"`
}

func columns(alias string) []string {
	cols := []string{"id", "org_id", "requested_by", "requester_role", "status", "source", "size_bytes", "stage",
		"tickets_total", "next_seq", "counts", "errors", "created_at", "started_at", "finished_at", "format", "report", "file"}
	if alias != "" {
		for i, c := range cols {
			cols[i] = alias + "." + c
		}
	}
	return cols
}

// Insert stores a new import with its document, or (document nil) with
// its file (r.File, r.SizeBytes).
func Insert(ctx context.Context, q store.Querier, r Row, document []byte) error {
	if r.Format == "" {
		r.Format = "tracker_json"
	}
	size := r.SizeBytes
	if document != nil {
		size = int64(len(document))
	}
	_, err := q.Exec(ctx, `INSERT INTO imports (id, org_id, requested_by, requester_role, status, source, document,
	        size_bytes, created_at, format, report, file) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		r.ID, r.OrgID, r.RequestedBy, r.RequesterRole, StatusPending, r.Source, document, size, r.CreatedAt,
		r.Format, r.Report, r.File)
	return store.Translate(err)
}

// WithAccess is an import and the caller's standing in its org.
type WithAccess struct {
	Row
	store.AccessRow
}

// GetWithAccess reads an import with the caller's membership in its org.
func GetWithAccess(ctx context.Context, q store.Querier, id, userID uuid.UUID) (WithAccess, error) {
	return store.GetRaw[WithAccess](ctx, q, `SELECT `+strings.Join(columns("i"), ", ")+`, `+
		strings.Join(store.AccessColumns("i.org_id", "", "$2"), ", ")+` FROM imports i WHERE i.id = $1`, id, userID)
}

// Get reads an import.
func Get(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.GetRaw[Row](ctx, q, `SELECT `+strings.Join(columns(""), ", ")+` FROM imports WHERE id = $1`, id)
}

// Lock reads an import and locks its row until the transaction ends: every
// step of an import runs under this lock, so a step retried while its
// first attempt still commits waits and then finds the work done.
func Lock(ctx context.Context, q store.Querier, id uuid.UUID) (Row, error) {
	return store.GetRaw[Row](ctx, q, `SELECT `+strings.Join(columns(""), ", ")+` FROM imports WHERE id = $1 FOR UPDATE`, id)
}

// Document reads the stored document (nil once the import completed).
func Document(ctx context.Context, q store.Querier, id uuid.UUID) ([]byte, error) {
	var b []byte
	err := q.QueryRow(ctx, `SELECT document FROM imports WHERE id = $1`, id).Scan(&b)
	return b, store.Translate(err)
}

// Progress records a step's result: the stage reached, the next staged
// ticket and the counts so far; a first step also marks the import running.
func Progress(ctx context.Context, q store.Querier, id uuid.UUID, stage string, total, nextSeq int, c Counts, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE imports SET stage = $2, tickets_total = $3, next_seq = $4, counts = $5,
	        status = CASE WHEN status = 'pending' THEN 'running' ELSE status END,
	        started_at = COALESCE(started_at, $6) WHERE id = $1`, id, stage, total, nextSeq, c, at)
	return store.Translate(err)
}

// Complete marks an import completed and drops its document and staged
// items, which are no longer needed.
func Complete(ctx context.Context, q store.Querier, id uuid.UUID, at time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM import_items WHERE import_id = $1`, id); err != nil {
		return store.Translate(err)
	}
	_, err := q.Exec(ctx, `UPDATE imports SET status = 'completed', stage = 'done', document = NULL,
	        finished_at = COALESCE(finished_at, $2) WHERE id = $1`, id, at)
	return store.Translate(err)
}

// Fail marks an import failed with its errors; the document is kept for
// diagnosis.
func Fail(ctx context.Context, q store.Querier, id uuid.UUID, errs []string, at time.Time) error {
	_, err := q.Exec(ctx, `UPDATE imports SET status = 'failed', errors = $2, finished_at = COALESCE(finished_at, $3)
	    WHERE id = $1 AND status NOT IN ('completed', 'cancelled')`, id, errs, at)
	return store.Translate(err)
}

// StatusCancelled is an import an Admin cancelled.
const StatusCancelled = "cancelled"

// Finished tells whether an import's status is final.
func Finished(status string) bool {
	return status == StatusCompleted || status == StatusFailed || status == StatusCancelled
}

// List pages an org's imports by id (oldest first).
func List(ctx context.Context, q store.Querier, orgID uuid.UUID, p store.Page) (store.Paged[Row], error) {
	b := store.SQL.Select(columns("")...).From("imports").Where(sq.Eq{"org_id": orgID})
	return store.SelectPage(ctx, q, b, "id", p, func(r Row) uuid.UUID { return r.ID })
}

// Cancel marks an import cancelled and drops its document and staged
// items: what it imported so far stays (every batch committed whole), and
// a new import of the same document completes it.
func Cancel(ctx context.Context, q store.Querier, id uuid.UUID, by *uuid.UUID, at time.Time) error {
	if _, err := q.Exec(ctx, `DELETE FROM import_items WHERE import_id = $1`, id); err != nil {
		return store.Translate(err)
	}
	_, err := q.Exec(ctx, `UPDATE imports SET status = 'cancelled', document = NULL, cancelled_by = $2,
	        finished_at = COALESCE(finished_at, $3) WHERE id = $1`, id, by, at)
	return store.Translate(err)
}
