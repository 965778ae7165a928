// Package capexact holds the side effects of the CapitalizationExport
// workflow: listing the orgs of the monthly run, rendering and storing one
// org's CSV, and recording a run that failed.
package capexact

import (
	"context"
	"errors"

	"github.com/google/uuid"
	"go.temporal.io/sdk/temporal"

	"tracker/domain"
	"tracker/domain/capex"
)

// Prefix is prepended to the activity method names at registration, so they
// cannot collide with other features' activities on the shared worker.
const Prefix = "CapitalizationExport."

// Registered activity names (the workflow calls them by name).
const (
	ListOrgsName   = Prefix + "ListOrgs"
	ExportOrgName  = Prefix + "ExportOrg"
	MarkFailedName = Prefix + "MarkFailed"
)

// Activities holds the dependencies of the export activities.
type Activities struct {
	Exports *capex.Service
}

// ListOrgsInput asks for one page of org ids after After.
type ListOrgsInput struct {
	After uuid.UUID `json:"after"`
	Limit int       `json:"limit"`
}

// ListOrgs pages every org's id.
func (a *Activities) ListOrgs(ctx context.Context, in ListOrgsInput) ([]uuid.UUID, error) {
	return a.Exports.OrgIDs(ctx, in.After, in.Limit)
}

// ExportResult is one stored run.
type ExportResult struct {
	ExportID  uuid.UUID `json:"export_id"`
	SizeBytes int64     `json:"size_bytes"`
}

// ExportOrg renders and stores one org's CSV of one period. It is
// idempotent (the job's id names the row), so retries are safe; an invalid
// job is not retried.
func (a *Activities) ExportOrg(ctx context.Context, job capex.ExportJob) (ExportResult, error) {
	e, err := a.Exports.RunExport(ctx, job)
	if err != nil {
		var de *domain.Error
		if errors.As(err, &de) && de.Kind == domain.KindValidation {
			return ExportResult{}, temporal.NewNonRetryableApplicationError(de.Error(), "InvalidExportJob", err)
		}
		return ExportResult{}, err
	}
	out := ExportResult{ExportID: e.ID}
	if e.SizeBytes != nil {
		out.SizeBytes = *e.SizeBytes
	}
	return out, nil
}

// MarkFailedInput names a run and why it failed.
type MarkFailedInput struct {
	Job   capex.ExportJob `json:"job"`
	Error string          `json:"error"`
}

// MarkFailed records that a run gave up, so it does not stay Running.
func (a *Activities) MarkFailed(ctx context.Context, in MarkFailedInput) error {
	return a.Exports.FailExport(ctx, in.Job, in.Error)
}
