package capex

import (
	"context"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/capexdb"
)

// Export statuses and triggers.
const (
	ExportPending   = "Pending"
	ExportRunning   = "Running"
	ExportCompleted = "Completed"
	ExportFailed    = "Failed"

	TriggerSchedule = "schedule"
	TriggerManual   = "manual"
)

// ExportJob is one org's run of one period; ExportID is fixed by whoever
// starts it, so a retried run writes the same row.
type ExportJob struct {
	ExportID    uuid.UUID  `json:"export_id"`
	OrgID       uuid.UUID  `json:"org_id"`
	Period      string     `json:"period"`
	Trigger     string     `json:"trigger"`
	RequestedBy *uuid.UUID `json:"requested_by,omitempty"`
}

// TopicExport is the outbox topic of an on-demand run: the worker's relay
// starts its workflow, so a request is accepted while Temporal is down.
const TopicExport = "job.capex_export"

// Export is one stored run as the API renders it.
type Export struct {
	ID        uuid.UUID `json:"id"`
	OrgID     uuid.UUID `json:"org_id"`
	Period    string    `json:"period"`
	Trigger   string    `json:"trigger"`
	Status    string    `json:"status"`
	SizeBytes *int64    `json:"size_bytes"`
	// XLSXSizeBytes is the size of the stored XLSX (null until Completed,
	// and for runs completed before XLSX files were stored).
	XLSXSizeBytes *int64     `json:"xlsx_size_bytes"`
	Error         *string    `json:"error"`
	RequestedBy   *uuid.UUID `json:"requested_by"`
	CreatedAt     time.Time  `json:"created_at"`
	FinishedAt    *time.Time `json:"finished_at"`
}

func toExport(e capexdb.Export) Export {
	out := Export{ID: e.ID, OrgID: e.OrgID, Period: e.Period, Trigger: e.Trigger, Status: e.Status,
		SizeBytes: e.SizeBytes, XLSXSizeBytes: e.XLSXSize, Error: e.Error, RequestedBy: e.RequestedBy, CreatedAt: e.CreatedAt.UTC()}
	if e.FinishedAt != nil {
		t := e.FinishedAt.UTC()
		out.FinishedAt = &t
	}
	return out
}

// RequestExport records a Pending run of period for orgID (default: the
// session org) and, in the same transaction, the job that the worker starts
// it from (Admin). A period that has not begun is a 422. Each request is a
// new run; earlier files of the period are kept.
func (s *Service) RequestExport(ctx context.Context, p domain.Principal, orgID uuid.UUID, period string) (Export, error) {
	per, err := ParsePeriod("period", period)
	if err != nil {
		return Export{}, err
	}
	now := s.now()
	if per.Start().After(now) {
		return Export{}, domain.Invalid("period: must not be in the future")
	}
	if orgID == uuid.Nil {
		orgID = p.OrgID
	}
	row := capexdb.Export{ID: domain.NewID(), OrgID: orgID, Period: per.String(), Trigger: TriggerManual,
		Status: ExportPending, RequestedBy: &p.UserID, CreatedAt: now}
	job := ExportJob{ExportID: row.ID, OrgID: orgID, Period: row.Period, Trigger: TriggerManual, RequestedBy: &p.UserID}
	err = s.DB.InTx(ctx, func(q store.Querier) error {
		if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
			return err
		}
		if err := capexdb.InsertExport(ctx, q, row); err != nil {
			return err
		}
		if err := domain.Enqueue(ctx, q, orgID, domain.NewID(), TopicExport, job, now); err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.now(), OrgID: orgID, ActorID: &p.UserID, EntityType: "capitalization_export",
			EntityID: row.ID, Action: "requested", Data: toExport(row)})
	})
	if err != nil {
		return Export{}, err
	}
	return toExport(row), nil
}

// RunExport renders and stores the CSV and the XLSX of one job, with no
// caller (the workflow's activity). It is idempotent: the row is created if
// the job's id is new, a completed run is not rendered again, and both
// files are stored by one statement.
func (s *Service) RunExport(ctx context.Context, job ExportJob) (Export, error) {
	per, err := ParsePeriod("period", job.Period)
	if err != nil {
		return Export{}, err
	}
	q := s.DB.Q()
	now := s.now()
	if err := capexdb.InsertExport(ctx, q, capexdb.Export{ID: job.ExportID, OrgID: job.OrgID, Period: per.String(),
		Trigger: job.Trigger, Status: ExportRunning, RequestedBy: job.RequestedBy, CreatedAt: now}); err != nil {
		return Export{}, err
	}
	cur, err := capexdb.ExportByID(ctx, q, job.ExportID)
	if err != nil {
		return Export{}, err
	}
	if cur.Status == ExportCompleted {
		return toExport(cur), nil
	}
	if err := capexdb.SetStatus(ctx, q, job.ExportID, ExportRunning, nil, now); err != nil {
		return Export{}, err
	}
	if job.Trigger == TriggerSchedule {
		if err := s.autoClose(ctx, job.OrgID, per); err != nil {
			return Export{}, err
		}
	}
	qr := Query{OrgID: job.OrgID, Period: per}
	data, err := renderCSV(ctx, q, qr, filterOf(qr), now)
	if err != nil {
		return Export{}, err
	}
	book, err := renderXLSX(ctx, q, qr, filterOf(qr), now)
	if err != nil {
		return Export{}, err
	}
	if err := capexdb.Complete(ctx, q, job.ExportID, data, book, s.now()); err != nil {
		return Export{}, err
	}
	done, err := capexdb.ExportByID(ctx, q, job.ExportID)
	return toExport(done), err
}

// FailExport marks a run that did not complete as Failed with msg; a run
// that failed before its row was written gets a row, so every run of the
// schedule leaves a record.
func (s *Service) FailExport(ctx context.Context, job ExportJob, msg string) error {
	now := s.now()
	return s.DB.InTx(ctx, func(q store.Querier) error {
		if err := capexdb.InsertExport(ctx, q, capexdb.Export{ID: job.ExportID, OrgID: job.OrgID, Period: job.Period,
			Trigger: job.Trigger, Status: ExportFailed, RequestedBy: job.RequestedBy, CreatedAt: now}); err != nil {
			return err
		}
		return capexdb.SetStatus(ctx, q, job.ExportID, ExportFailed, &msg, now)
	})
}

// OrgIDs pages every org's id for the monthly run.
func (s *Service) OrgIDs(ctx context.Context, after uuid.UUID, limit int) ([]uuid.UUID, error) {
	return capexdb.OrgIDs(ctx, s.DB.Q(), after, limit)
}

// ListExports pages orgID's runs (default: the session org), optionally of
// one period.
func (s *Service) ListExports(ctx context.Context, p domain.Principal, orgID uuid.UUID, period string, page domain.Page) (domain.Paged[Export], error) {
	if period != "" {
		per, err := ParsePeriod("period", period)
		if err != nil {
			return domain.Paged[Export]{}, err
		}
		period = per.String()
	}
	if orgID == uuid.Nil {
		orgID = p.OrgID
	}
	q := s.DB.Q()
	if _, err := domain.OrgAccess(ctx, q, p, orgID, MinRole, "organization"); err != nil {
		return domain.Paged[Export]{}, err
	}
	rows, err := capexdb.ListExports(ctx, q, orgID, period, page)
	if err != nil {
		return domain.Paged[Export]{}, err
	}
	return domain.MapPage(rows, toExport), nil
}

// GetExport reads one run.
func (s *Service) GetExport(ctx context.Context, p domain.Principal, id uuid.UUID) (Export, error) {
	q := s.DB.Q()
	e, err := capexdb.ExportByID(ctx, q, id)
	if err != nil {
		return Export{}, domain.NotFoundAs(err, "export")
	}
	if _, err := domain.OrgAccess(ctx, q, p, e.OrgID, MinRole, "export"); err != nil {
		return Export{}, err
	}
	return toExport(e), nil
}

// Download returns a completed run and its file, the CSV or (xlsx) the
// XLSX; a run that has not completed is a 409 naming its status, and so is
// asking for the XLSX of a run completed before XLSX files were stored.
func (s *Service) Download(ctx context.Context, p domain.Principal, id uuid.UUID, xlsx bool) (Export, []byte, error) {
	e, err := s.GetExport(ctx, p, id)
	if err != nil {
		return Export{}, nil, err
	}
	if e.Status != ExportCompleted {
		return e, nil, domain.Conflict("export is "+e.Status+": only a Completed export can be downloaded", "status: "+e.Status)
	}
	if !xlsx {
		data, err := capexdb.ExportFile(ctx, s.DB.Q(), id)
		return e, data, err
	}
	if e.XLSXSizeBytes == nil {
		return e, nil, domain.Conflict("export has no XLSX file: it was completed before XLSX files were stored", "format: xlsx")
	}
	data, err := capexdb.ExportXLSX(ctx, s.DB.Q(), id)
	return e, data, err
}
