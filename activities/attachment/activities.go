// Package attachmentact holds the side effects of the attachment workflows:
// removing the objects of deleted attachments, one page of the cleanup of
// unconfirmed uploads, and one look for a pending attachment's object.
package attachmentact

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"

	"tracker/domain/attachment"
)

// Prefix is prepended to the activity method names at registration, so they
// cannot collide with other features' activities on the shared worker.
const Prefix = "Attachments."

// Registered activity names (the workflows call them by name).
const (
	DeleteObjectsName = Prefix + "DeleteObjects"
	SweepPageName     = Prefix + "SweepPage"
	VerifyName        = Prefix + "Verify"
)

// Activities holds the dependencies of the attachment activities.
type Activities struct {
	Attachments *attachment.Service
}

// DeleteObjects removes the job's objects (idempotent: missing is success),
// heartbeating the count done.
func (a *Activities) DeleteObjects(ctx context.Context, job attachment.DeleteJob) error {
	return a.Attachments.DeleteObjects(ctx, job.Keys, func(done int) { activity.RecordHeartbeat(ctx, done) })
}

// SweepInput asks for one page of the cleanup.
type SweepInput struct {
	After  string    `json:"after"`
	Cutoff time.Time `json:"cutoff"`
	Limit  int       `json:"limit"`
}

// SweepPage cleans one page of unconfirmed uploads older than the cutoff.
func (a *Activities) SweepPage(ctx context.Context, in SweepInput) (attachment.SweepPage, error) {
	return a.Attachments.SweepUnconfirmed(ctx, in.After, in.Cutoff, in.Limit)
}

// VerifyInput asks for one look at a pending attachment; Final removes it
// when its object is still missing (the deadline has passed).
type VerifyInput struct {
	Job   attachment.VerifyJob `json:"job"`
	Final bool                 `json:"final"`
}

// Verify turns a pending attachment ready, or removes it, or reports it
// still pending (idempotent: a settled attachment stays as it is).
func (a *Activities) Verify(ctx context.Context, in VerifyInput) (attachment.Verification, error) {
	return a.Attachments.Verify(ctx, in.Job, in.Final)
}
