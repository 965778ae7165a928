package attachment

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/domain/ticket"
	"tracker/store"
	"tracker/store/attachmentdb"
	"tracker/store/objectstore"
	"tracker/store/ticketdb"
)

// PendingTTL is how long a pending attachment waits for its object before
// the verification job removes it.
const PendingTTL = 24 * time.Hour

// TopicVerify is the outbox topic of the verification of a pending
// attachment (written by a confirm that found no object yet).
const TopicVerify = "job.attachment_verify"

// VerifyJob is the payload of a TopicVerify row: which attachment, and
// until when its object may arrive.
type VerifyJob struct {
	OrgID        uuid.UUID `json:"org_id"`
	AttachmentID uuid.UUID `json:"attachment_id"`
	Deadline     time.Time `json:"deadline"`
}

// Outcomes of a verification.
const (
	OutcomePending = "pending" // no object yet: look again later
	OutcomeReady   = "ready"   // the object is there as confirmed
	OutcomeRemoved = "removed" // a wrong object, or none by the deadline: the attachment is gone
	OutcomeGone    = "gone"    // deleted meanwhile (by a user or a purge): nothing to do
)

// Verification is what one verification found.
type Verification struct {
	Outcome string `json:"outcome"`
	Reason  string `json:"reason,omitempty"`
}

// ReasonNeverUploaded is the reason of the removal of an attachment whose
// object never arrived (on the activity entry; a wrong object's reason
// names the field that differs).
const ReasonNeverUploaded = "no object was uploaded within 24 hours of the confirm"

// mismatch tells how obj differs from the announced size and type ("" when
// it does not).
func mismatch(obj objectstore.Object, size int64, ct string) string {
	switch {
	case obj.Size != size:
		return "size_bytes: does not match the uploaded object"
	case obj.ContentType != ct:
		return "content_type: does not match the uploaded object"
	}
	return ""
}

// Verify looks for a pending attachment's object: there as confirmed, the
// attachment turns ready; there but another size or type, the attachment
// is removed (with its object) and the removal is an entry of the ticket's
// activity. Not there: pending, unless final (the deadline has passed),
// when the attachment is removed the same way. A storage that does not
// answer is an error (retried): nothing is removed on a guess. Repeating
// a verification changes nothing more.
func (s *Service) Verify(ctx context.Context, job VerifyJob, final bool) (Verification, error) {
	r, err := attachmentdb.GetForVerify(ctx, s.db.Q(), job.OrgID, job.AttachmentID)
	if errors.Is(err, store.ErrNotFound) {
		return Verification{Outcome: OutcomeGone}, nil
	}
	if err != nil {
		return Verification{}, err
	}
	if r.State == attachmentdb.StateReady {
		return Verification{Outcome: OutcomeReady}, nil
	}
	var reason string
	obj, err := s.objects.Head(ctx, r.StorageKey)
	switch {
	case errors.Is(err, objectstore.ErrNotFound):
		if !final {
			return Verification{Outcome: OutcomePending}, nil
		}
		reason = ReasonNeverUploaded
	case err != nil:
		return Verification{}, err
	default:
		reason = mismatch(obj, r.SizeBytes, r.ContentType)
	}
	return s.settle(ctx, job, reason)
}

// settle turns the attachment ready (reason "") or removes it for reason,
// under the row's lock so that a concurrent delete or verification wins
// or loses whole.
func (s *Service) settle(ctx context.Context, job VerifyJob, reason string) (Verification, error) {
	var out Verification
	err := s.db.InTx(ctx, func(q store.Querier) error {
		r, err := attachmentdb.GetForVerify(ctx, q, job.OrgID, job.AttachmentID)
		switch {
		case errors.Is(err, store.ErrNotFound):
			out.Outcome = OutcomeGone
			return nil
		case err != nil:
			return err
		case r.State == attachmentdb.StateReady:
			out.Outcome = OutcomeReady
			return nil
		case reason == "":
			out.Outcome = OutcomeReady
			return attachmentdb.SetReady(ctx, q, r.OrgID, r.ID)
		}
		out = Verification{Outcome: OutcomeRemoved, Reason: reason}
		// The key is spent: the upload cannot be confirmed again.
		if err := attachmentdb.Delete(ctx, q, r.OrgID, r.ID); err != nil {
			return err
		}
		if err := attachmentdb.DeleteUpload(ctx, q, r.StorageKey); err != nil {
			return err
		}
		// The object, when there is one (or one arrives late), goes too.
		if err := domain.Enqueue(ctx, q, r.OrgID, domain.NewID(), TopicDeleteObjects,
			DeleteJob{OrgID: r.OrgID, Keys: []string{r.StorageKey}}, s.clock.Now()); err != nil {
			return err
		}
		t, err := ticketdb.GetWithAccess(ctx, q, r.TicketID, uuid.Nil)
		if errors.Is(err, store.ErrNotFound) {
			return nil // the ticket is gone: its trail is no longer shown
		}
		if err != nil {
			return err
		}
		data, err := ticket.RenderOne(ctx, q, t.Row)
		if err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: r.OrgID, EntityType: "ticket",
			EntityID: r.TicketID, Action: ActionRemoved,
			Changes: []domain.FieldChange{{Field: "attachment", Old: summary(r), New: nil}},
			Via:     map[string]any{"job": "attachment_verify", "reason": reason},
			Events:  []string{domain.EventTicketUpdated}, Data: data})
	})
	return out, err
}

// Uploaded is told by the local store that key now holds an object: its
// pending attachment, if any, is verified at once. The verification job
// stays the authority; an error here only leaves the work to it.
func (s *Service) Uploaded(ctx context.Context, key string) error {
	r, err := attachmentdb.PendingByKey(ctx, s.db.Q(), key)
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	_, err = s.Verify(ctx, VerifyJob{OrgID: r.OrgID, AttachmentID: r.ID}, false)
	return err
}
