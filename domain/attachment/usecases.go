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
	"tracker/store/ticketdb"
)

// PresignInput announces an upload.
type PresignInput struct {
	Filename    string
	ContentType string
	SizeBytes   int64
}

// Upload is the answer to presign: where to PUT, with which headers, until
// when, and the key to confirm afterwards.
type Upload struct {
	UploadURL  string            `json:"upload_url"`
	StorageKey string            `json:"storage_key"`
	Method     string            `json:"method"`
	Headers    map[string]string `json:"headers"`
	ExpiresAt  time.Time         `json:"expires_at"`
}

// ticketFor reads a visible ticket and authorizes the caller at min.
func ticketFor(ctx context.Context, q store.Querier, p domain.Principal, ticketID uuid.UUID, min domain.Role) (ticketdb.Accessed, error) {
	t, err := ticketdb.GetWithAccess(ctx, q, ticketID, p.UserID)
	if err != nil {
		return t, domain.NotFoundAs(err, "ticket")
	}
	_, err = domain.Authorize(p, domain.MembershipFrom(t.AccessRow), min, "ticket")
	return t, err
}

// Presign hands out an upload URL (Reporter, assigned to the ticket's
// project when a Reporter). The key is chosen here; the URL binds the
// content type and length.
func (s *Service) Presign(ctx context.Context, p domain.Principal, ticketID uuid.UUID, in PresignInput) (Upload, error) {
	t, err := ticketFor(ctx, s.db.Q(), p, ticketID, domain.RoleReporter)
	if err != nil {
		return Upload{}, err
	}
	if err := validFilename(in.Filename); err != nil {
		return Upload{}, err
	}
	ct, err := normalContentType(in.ContentType)
	if err != nil {
		return Upload{}, err
	}
	if err := s.validSize(in.SizeBytes); err != nil {
		return Upload{}, err
	}
	key := newKey(t.Row.OrgID, ticketID, in.Filename)
	now := s.clock.Now()
	expires := now.Add(UploadTTL)
	put, err := s.objects.PresignPut(ctx, key, ct, in.SizeBytes, UploadTTL)
	if err != nil {
		return Upload{}, err
	}
	// What was presigned, and to whom, is what confirm may record.
	if err := attachmentdb.InsertUpload(ctx, s.db.Q(), attachmentdb.Upload{StorageKey: key, OrgID: t.Row.OrgID, TicketID: ticketID,
		Filename: in.Filename, ContentType: ct, SizeBytes: in.SizeBytes, PresignedBy: p.UserID, CreatedAt: now}); err != nil {
		return Upload{}, err
	}
	return Upload{UploadURL: put.URL, StorageKey: key, Method: put.Method, Headers: put.Headers, ExpiresAt: expires.UTC()}, nil
}

// ConfirmInput records an upload (the spec's fields).
type ConfirmInput struct {
	Filename    string
	ContentType string
	SizeBytes   int64
	StorageKey  string
	UploadedBy  uuid.UUID
}

// Confirm records an upload as an attachment (Reporter, as presign):
// uploaded_by must be the caller; the key must be one the caller presigned
// for this ticket, and the filename, type and size the presigned ones
// (confirm cannot rename an upload). When a HEAD on the storage finds the
// object, its size and type must be the confirmed ones and the attachment
// is ready; when it does not, the attachment is pending until the
// verification job (TopicVerify) finds the object. Confirming a key twice
// is a 409.
func (s *Service) Confirm(ctx context.Context, p domain.Principal, ticketID uuid.UUID, in ConfirmInput) (Attachment, error) {
	t, err := ticketFor(ctx, s.db.Q(), p, ticketID, domain.RoleReporter)
	if err != nil {
		return Attachment{}, err
	}
	if err := validFilename(in.Filename); err != nil {
		return Attachment{}, err
	}
	ct, err := normalContentType(in.ContentType)
	if err != nil {
		return Attachment{}, err
	}
	if err := s.validSize(in.SizeBytes); err != nil {
		return Attachment{}, err
	}
	if in.UploadedBy != p.UserID {
		return Attachment{}, domain.Invalid("uploaded_by: must be the calling user")
	}
	if !keyOfTicket(in.StorageKey, t.Row.OrgID, ticketID) {
		return Attachment{}, domain.Invalid("storage_key: is not a key presigned for this ticket")
	}
	if err := s.matchesPresign(ctx, p, t.Row.OrgID, ticketID, in, ct); err != nil {
		return Attachment{}, err
	}
	// An object already there must be the announced one. One not there
	// yet (the upload is still on its way, or the storage did not answer)
	// is recorded as pending, and a durable job waits for it.
	state := attachmentdb.StatePending
	if obj, err := s.objects.Head(ctx, in.StorageKey); err == nil {
		if err := mismatch(obj, in.SizeBytes, ct); err != "" {
			return Attachment{}, domain.Invalid(err)
		}
		state = attachmentdb.StateReady
	}
	var out Attachment
	err = s.db.InTx(ctx, func(q store.Querier) error {
		// Re-read under the transaction: the ticket may have gone meanwhile.
		t, err := ticketFor(ctx, q, p, ticketID, domain.RoleReporter)
		if err != nil {
			return err
		}
		r := attachmentdb.Row{ID: domain.NewID(), OrgID: t.Row.OrgID, TicketID: ticketID, Filename: in.Filename,
			ContentType: ct, SizeBytes: in.SizeBytes, StorageKey: in.StorageKey, UploadedBy: p.UserID, CreatedAt: s.clock.Now(), State: state}
		if err := attachmentdb.Insert(ctx, q, r); err != nil {
			if errors.Is(err, store.ErrConflict) {
				return domain.Conflict("this upload is already confirmed", "storage_key: "+in.StorageKey)
			}
			return err
		}
		if state == attachmentdb.StatePending {
			if err := domain.Enqueue(ctx, q, r.OrgID, domain.NewID(), TopicVerify,
				VerifyJob{OrgID: r.OrgID, AttachmentID: r.ID, Deadline: r.CreatedAt.Add(PendingTTL).UTC()}, r.CreatedAt); err != nil {
				return err
			}
		}
		out = toAttachment(r)
		data, err := ticket.RenderOne(ctx, q, t.Row)
		if err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: t.Row.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: ticketID, Action: ActionAdded,
			Changes: []domain.FieldChange{{Field: "attachment", Old: nil, New: summary(r)}},
			Events:  []string{domain.EventTicketUpdated}, Data: data})
	})
	return out, err
}

// matchesPresign checks a confirm against its presign: the caller's
// upload, under the same name, type and size. A key whose record is gone
// (confirmed more than a day ago) is a 409 when it is an attachment.
func (s *Service) matchesPresign(ctx context.Context, p domain.Principal, orgID, ticketID uuid.UUID, in ConfirmInput, ct string) error {
	q := s.db.Q()
	up, err := attachmentdb.GetUpload(ctx, q, orgID, ticketID, in.StorageKey)
	if errors.Is(err, store.ErrNotFound) {
		recorded, err := attachmentdb.RecordedKeys(ctx, q, []string{in.StorageKey})
		if err != nil {
			return err
		}
		if recorded[in.StorageKey] {
			return domain.Conflict("this upload is already confirmed", "storage_key: "+in.StorageKey)
		}
		return domain.Invalid("storage_key: is not an upload presigned for this ticket in the last 24 hours")
	}
	if err != nil {
		return err
	}
	var probs domain.Problems
	if up.PresignedBy != p.UserID {
		probs.Add("storage_key", "was presigned by another user; only they can confirm it")
	}
	if up.Filename != in.Filename {
		probs.Add("filename", "must be the filename presigned for this upload")
	}
	if up.ContentType != ct {
		probs.Add("content_type", "must be the content type presigned for this upload")
	}
	if up.SizeBytes != in.SizeBytes {
		probs.Add("size_bytes", "must be the size presigned for this upload")
	}
	return probs.Err()
}

// withURL adds a fresh download URL to a ready attachment.
func (s *Service) withURL(ctx context.Context, r attachmentdb.Row) (Attachment, error) {
	a := toAttachment(r)
	if r.State != attachmentdb.StateReady {
		return a, nil
	}
	u, err := s.objects.PresignGet(ctx, r.StorageKey, r.Filename, DownloadTTL)
	if err != nil {
		return a, err
	}
	a.DownloadURL = &u
	return a, nil
}

// List pages a ticket's attachments in upload order, each with a download
// URL valid for DownloadTTL (any member who can see the ticket).
func (s *Service) List(ctx context.Context, p domain.Principal, ticketID uuid.UUID, page domain.Page) (domain.Paged[Attachment], error) {
	q := s.db.Q()
	t, err := ticketFor(ctx, q, p, ticketID, domain.RoleViewer)
	if err != nil {
		return domain.Paged[Attachment]{}, err
	}
	rows, err := attachmentdb.ListByTicket(ctx, q, t.Row.OrgID, ticketID, page)
	if err != nil {
		return domain.Paged[Attachment]{}, err
	}
	out := domain.Paged[Attachment]{Items: make([]Attachment, 0, len(rows.Items)), Next: rows.Next}
	for _, r := range rows.Items {
		a, err := s.withURL(ctx, r)
		if err != nil {
			return domain.Paged[Attachment]{}, err
		}
		out.Items = append(out.Items, a)
	}
	return out, nil
}

// Get reads one attachment with a fresh download URL.
func (s *Service) Get(ctx context.Context, p domain.Principal, id uuid.UUID) (Attachment, error) {
	r, err := attachmentdb.GetWithAccess(ctx, s.db.Q(), id, p.UserID, false)
	if err != nil {
		return Attachment{}, domain.NotFoundAs(err, "attachment")
	}
	if _, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleViewer, "attachment"); err != nil {
		return Attachment{}, err
	}
	return s.withURL(ctx, r.Row)
}

// Delete removes an attachment (its uploader, or an Admin). The row goes in
// the request; the object is removed by durable work enqueued in the same
// transaction.
func (s *Service) Delete(ctx context.Context, p domain.Principal, id uuid.UUID) error {
	return s.db.InTx(ctx, func(q store.Querier) error {
		r, err := attachmentdb.GetWithAccess(ctx, q, id, p.UserID, true)
		if err != nil {
			return domain.NotFoundAs(err, "attachment")
		}
		a, err := domain.Authorize(p, domain.MembershipFrom(r.AccessRow), domain.RoleReporter, "attachment")
		if err != nil {
			return err
		}
		if r.UploadedBy != p.UserID && !a.At(domain.RoleAdmin) {
			return domain.Forbidden("this operation requires the Admin role, or being the uploader")
		}
		t, err := ticketdb.GetWithAccess(ctx, q, r.TicketID, p.UserID)
		if err != nil {
			return domain.NotFoundAs(err, "attachment")
		}
		if err := attachmentdb.Delete(ctx, q, r.Row.OrgID, id); err != nil {
			return domain.NotFoundAs(err, "attachment")
		}
		if err := domain.Enqueue(ctx, q, r.Row.OrgID, domain.NewID(), TopicDeleteObjects,
			DeleteJob{OrgID: r.Row.OrgID, Keys: []string{r.StorageKey}}, s.clock.Now()); err != nil {
			return err
		}
		data, err := ticket.RenderOne(ctx, q, t.Row)
		if err != nil {
			return err
		}
		return domain.Record(ctx, q, domain.Change{At: s.clock.Now(), OrgID: r.Row.OrgID, ActorID: &p.UserID, EntityType: "ticket",
			EntityID: r.TicketID, Action: ActionRemoved,
			Changes: []domain.FieldChange{{Field: "attachment", Old: summary(r.Row), New: nil}},
			Events:  []string{domain.EventTicketUpdated}, Data: data})
	})
}
