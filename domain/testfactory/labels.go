package testfactory

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/attachmentdb"
	"tracker/store/labeldb"
)

// LabelOpts are a label's options; Name defaults to a unique one, Color to
// "#888888"; the label is put on every ticket of Tickets.
type LabelOpts struct {
	Name, Color string
	Tickets     []uuid.UUID
}

// Label inserts a label of orgID (labeldb.Insert) and links it to
// o.Tickets (labeldb.AddLabels).
func Label(t testing.TB, db *store.DB, orgID uuid.UUID, o LabelOpts) labeldb.Row {
	t.Helper()
	if o.Name == "" {
		o.Name = fmt.Sprintf("label-%d", seq.Add(1))
	}
	if o.Color == "" {
		o.Color = "#888888"
	}
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Microsecond)
	r := labeldb.Row{ID: domain.NewID(), OrgID: orgID, Content: labeldb.Content{Name: o.Name, Color: o.Color}, CreatedAt: now, UpdatedAt: now, RowVersion: 1}
	if err := labeldb.Insert(ctx, db.Q(), r); err != nil {
		t.Fatalf("testfactory.Label: %v", err)
	}
	for _, tk := range o.Tickets {
		if _, err := labeldb.AddLabels(ctx, db.Q(), orgID, tk, []uuid.UUID{r.ID}); err != nil {
			t.Fatalf("testfactory.Label: link %s: %v", tk, err)
		}
	}
	return r
}

// AttachmentOpts are an attachment's options; zero values are a 10-byte
// "x.png" (image/png) under a unique storage key (no object is stored).
type AttachmentOpts struct {
	Filename, ContentType string
	Size                  int64
}

// Attachment records an attachment of ticketID in orgID uploaded by
// uploaderID (attachmentdb.Insert), without storing an object.
func Attachment(t testing.TB, db *store.DB, orgID, ticketID, uploaderID uuid.UUID, o AttachmentOpts) attachmentdb.Row {
	t.Helper()
	if o.Filename == "" {
		o.Filename = "x.png"
	}
	if o.ContentType == "" {
		o.ContentType = "image/png"
	}
	if o.Size == 0 {
		o.Size = 10
	}
	r := attachmentdb.Row{ID: domain.NewID(), OrgID: orgID, TicketID: ticketID, Filename: o.Filename, ContentType: o.ContentType,
		SizeBytes: o.Size, StorageKey: "test/" + uuid.NewString(), UploadedBy: uploaderID, CreatedAt: time.Now().UTC().Truncate(time.Microsecond),
		State: attachmentdb.StateReady}
	if err := attachmentdb.Insert(context.Background(), db.Q(), r); err != nil {
		t.Fatalf("testfactory.Attachment: %v", err)
	}
	return r
}
