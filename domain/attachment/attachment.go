// Package attachment holds the use cases of ticket attachments. Files never
// pass through the API: presign hands the client a URL that accepts exactly
// the announced upload under a server-chosen key; confirm checks the object
// with a HEAD on the storage and records it; downloads are presigned GETs
// answered as attachments. Changes are recorded on the ticket's audit trail
// (its activity feed) with a ticket.updated event; removing an object is
// durable work (outbox → Temporal), never done in the request.
package attachment

import (
	"fmt"
	"mime"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"tracker/domain"
	"tracker/store"
	"tracker/store/attachmentdb"
	"tracker/store/objectstore"
)

// Lifetimes of presigned URLs.
const (
	UploadTTL   = 15 * time.Minute
	DownloadTTL = 15 * time.Minute
	// UnconfirmedTTL is how long an uploaded object may wait for its
	// confirm before the cleanup Schedule removes it.
	UnconfirmedTTL = 24 * time.Hour
	// DefaultMaxBytes is SERVICE_ATTACHMENT_MAX_BYTES's default (100 MiB).
	DefaultMaxBytes = 100 << 20
	// KeyRoot is the prefix of every attachment object.
	KeyRoot = "org/"
)

// Audit actions on the ticket's trail (field "attachment").
const (
	ActionAdded   = "attachment_added"
	ActionRemoved = "attachment_removed"
)

// TopicDeleteObjects is the outbox topic of the durable removal of objects.
const TopicDeleteObjects = attachmentdb.TopicDeleteObjects

// DeleteJob is the payload of a TopicDeleteObjects row.
type DeleteJob = attachmentdb.DeleteJob

// Service runs the attachment use cases.
type Service struct {
	db       *store.DB
	objects  objectstore.Store
	clock    domain.Clock
	maxBytes int64
}

// New builds the service; maxBytes <= 0 is DefaultMaxBytes.
func New(db *store.DB, objects objectstore.Store, clock domain.Clock, maxBytes int64) *Service {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxBytes
	}
	return &Service{db: db, objects: objects, clock: clock, maxBytes: maxBytes}
}

// StoragePrefix is the path the API serves the local object store's
// presigned URLs under.
const StoragePrefix = objectstore.StoragePrefix

// MaxBytes is the largest accepted upload.
func (s *Service) MaxBytes() int64 { return s.maxBytes }

// Attachment is the API's Attachment resource.
type Attachment struct {
	ID          uuid.UUID `json:"id"`
	TicketID    uuid.UUID `json:"ticket_id"`
	Filename    string    `json:"filename"`
	ContentType string    `json:"content_type"`
	SizeBytes   int64     `json:"size_bytes"`
	StorageKey  string    `json:"storage_key"`
	UploadedBy  uuid.UUID `json:"uploaded_by"`
	CreatedAt   time.Time `json:"created_at"`
	// State is "pending" while the object is not (yet) in the storage with
	// the confirmed size and type, then "ready"; only a ready attachment
	// has a download URL.
	State       string  `json:"state"`
	DownloadURL *string `json:"download_url"`
}

func toAttachment(r attachmentdb.Row) Attachment {
	return Attachment{ID: r.ID, TicketID: r.TicketID, Filename: r.Filename, ContentType: r.ContentType,
		SizeBytes: r.SizeBytes, StorageKey: r.StorageKey, UploadedBy: r.UploadedBy, CreatedAt: r.CreatedAt.UTC(), State: r.State}
}

// summary is what the audit trail and the event say about an attachment.
func summary(r attachmentdb.Row) map[string]any {
	return map[string]any{"id": r.ID, "filename": r.Filename, "content_type": r.ContentType, "size_bytes": r.SizeBytes, "state": r.State}
}

// validFilename: 1-255 characters, no path separators, no control
// characters, not "." or "..".
func validFilename(name string) error {
	n := utf8.RuneCountInString(name)
	switch {
	case !utf8.ValidString(name):
		return domain.Invalid("filename: must be valid UTF-8")
	case strings.TrimSpace(name) == "" || n > 255:
		return domain.Invalid("filename: must be 1-255 characters")
	case strings.ContainsAny(name, `/\`):
		return domain.Invalid("filename: must not contain path separators")
	case name == "." || name == "..":
		return domain.Invalid("filename: must name a file")
	}
	for _, r := range name {
		if unicode.IsControl(r) {
			return domain.Invalid("filename: must not contain control characters")
		}
	}
	return nil
}

// normalContentType parses a media type and renders it canonically (lower
// case type, sorted parameters): the exact value the upload must carry.
func normalContentType(ct string) (string, error) {
	t, params, err := mime.ParseMediaType(ct)
	if err != nil || !strings.Contains(t, "/") || strings.HasPrefix(t, "/") || strings.HasSuffix(t, "/") {
		return "", domain.Invalid("content_type: must be a valid media type such as application/pdf")
	}
	out := mime.FormatMediaType(t, params)
	if out == "" || len(out) > 255 {
		return "", domain.Invalid("content_type: must be a valid media type such as application/pdf")
	}
	return out, nil
}

func (s *Service) validSize(n int64) error {
	if n < 1 || n > s.maxBytes {
		return domain.Invalid(fmt.Sprintf("size_bytes: must be between 1 and %d", s.maxBytes))
	}
	return nil
}

// SafeName is the filename as it appears in a storage key: ASCII letters,
// digits, dot, dash and underscore (others become "_"), no leading dots,
// at most 100 bytes.
func SafeName(name string) string {
	var b strings.Builder
	for _, r := range name {
		switch {
		case r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '.' || r == '-' || r == '_'):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.TrimLeft(b.String(), ".")
	if len(out) > 100 {
		out = out[len(out)-100:]
	}
	if out == "" {
		out = "file"
	}
	return out
}

// ticketPrefix is the key prefix of one ticket's objects.
func ticketPrefix(orgID, ticketID uuid.UUID) string {
	return KeyRoot + orgID.String() + "/tickets/" + ticketID.String() + "/"
}

// newKey is a server-chosen key: org/<org>/tickets/<ticket>/<uuid>/<name>.
func newKey(orgID, ticketID uuid.UUID, filename string) string {
	return ticketPrefix(orgID, ticketID) + domain.NewID().String() + "/" + SafeName(filename)
}

// keyOfTicket reports whether key is one presign could have chosen for
// this ticket.
func keyOfTicket(key string, orgID, ticketID uuid.UUID) bool {
	rest, ok := strings.CutPrefix(key, ticketPrefix(orgID, ticketID))
	if !ok {
		return false
	}
	id, name, ok := strings.Cut(rest, "/")
	if !ok || name == "" || strings.Contains(name, "/") || SafeName(name) != name {
		return false
	}
	_, err := uuid.Parse(id)
	return err == nil
}
