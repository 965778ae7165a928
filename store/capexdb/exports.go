package capexdb

import (
	"context"
	"time"

	sq "github.com/Masterminds/squirrel"
	"github.com/google/uuid"

	"tracker/store"
)

// Export is a capitalization_exports row without its file.
type Export struct {
	ID          uuid.UUID  `db:"id"`
	OrgID       uuid.UUID  `db:"org_id"`
	Period      string     `db:"period"`
	Trigger     string     `db:"trigger"`
	Status      string     `db:"status"`
	SizeBytes   *int64     `db:"size_bytes"`
	XLSXSize    *int64     `db:"xlsx_size_bytes"`
	Error       *string    `db:"error"`
	RequestedBy *uuid.UUID `db:"requested_by"`
	CreatedAt   time.Time  `db:"created_at"`
	FinishedAt  *time.Time `db:"finished_at"`
}

// ExportColumns is the column list of Export (the file is read apart).
func ExportColumns() []string {
	return []string{"id", "org_id", "period", "trigger", "status", "size_bytes", "xlsx_size_bytes", "error", "requested_by", "created_at", "finished_at"}
}

// InsertExport records a run; an id that exists already is left as it is,
// so a retried activity does not fail on its own earlier insert.
func InsertExport(ctx context.Context, q store.Querier, e Export) error {
	_, err := store.Exec(ctx, q, store.SQL.Insert("capitalization_exports").
		Columns("id", "org_id", "period", "trigger", "status", "requested_by", "created_at").
		Values(e.ID, e.OrgID, e.Period, e.Trigger, e.Status, e.RequestedBy, e.CreatedAt).
		Suffix("ON CONFLICT (id) DO NOTHING"))
	return err
}

// ExportByID reads a run of any org; the caller authorizes against its org.
func ExportByID(ctx context.Context, q store.Querier, id uuid.UUID) (Export, error) {
	return store.Get[Export](ctx, q, store.SQL.Select(ExportColumns()...).From("capitalization_exports").Where(sq.Eq{"id": id}))
}

// ExportFile reads the stored CSV of a run.
func ExportFile(ctx context.Context, q store.Querier, id uuid.UUID) ([]byte, error) {
	return store.Scalar[[]byte](ctx, q, store.SQL.Select("csv").From("capitalization_exports").Where(sq.Eq{"id": id}))
}

// ExportXLSX reads the stored XLSX of a run (nil for a run completed before
// XLSX files were stored).
func ExportXLSX(ctx context.Context, q store.Querier, id uuid.UUID) ([]byte, error) {
	return store.Scalar[[]byte](ctx, q, store.SQL.Select("xlsx").From("capitalization_exports").Where(sq.Eq{"id": id}))
}

// SetStatus moves a run that has not completed to status (Running, Failed),
// with errMsg for a failure. A completed run is never changed.
func SetStatus(ctx context.Context, q store.Querier, id uuid.UUID, status string, errMsg *string, at time.Time) error {
	b := store.SQL.Update("capitalization_exports").Set("status", status).Set("error", errMsg).
		Where(sq.Eq{"id": id}).Where(sq.NotEq{"status": "Completed"})
	if status == "Failed" {
		b = b.Set("finished_at", at)
	}
	_, err := store.Exec(ctx, q, b)
	return err
}

// Complete stores the files of a run, the CSV and the XLSX, in one
// statement: a completed run has both.
func Complete(ctx context.Context, q store.Querier, id uuid.UUID, csv, xlsx []byte, at time.Time) error {
	n, err := store.Exec(ctx, q, store.SQL.Update("capitalization_exports").Set("status", "Completed").
		Set("csv", csv).Set("size_bytes", len(csv)).Set("xlsx", xlsx).Set("xlsx_size_bytes", len(xlsx)).
		Set("error", nil).Set("finished_at", at).
		Where(sq.Eq{"id": id}))
	if err == nil && n == 0 {
		err = store.ErrNotFound
	}
	return err
}

// ListExports pages an org's runs by id, optionally of one period.
func ListExports(ctx context.Context, q store.Querier, orgID uuid.UUID, period string, p store.Page) (store.Paged[Export], error) {
	b := store.SQL.Select(ExportColumns()...).From("capitalization_exports").Where(sq.Eq{"org_id": orgID})
	if period != "" {
		b = b.Where(sq.Eq{"period": period})
	}
	return store.SelectPage(ctx, q, b, "id", p, func(e Export) uuid.UUID { return e.ID })
}

// OrgIDs pages every organization's id (the monthly run covers them all).
func OrgIDs(ctx context.Context, q store.Querier, after uuid.UUID, limit int) ([]uuid.UUID, error) {
	type row struct {
		ID uuid.UUID `db:"id"`
	}
	rows, err := store.Select[row](ctx, q, store.SQL.Select("id").From("organizations").
		Where(sq.Gt{"id": after}).OrderBy("id").Limit(uint64(limit)))
	if err != nil {
		return nil, err
	}
	out := make([]uuid.UUID, len(rows))
	for i, r := range rows {
		out[i] = r.ID
	}
	return out, nil
}
