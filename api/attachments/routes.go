// Package attachments serves ticket attachments: presign, confirm and list
// (the spec), one attachment's read and delete, and, with the embedded
// local object store, the store's own presigned URLs under /storage/.
package attachments

import (
	"context"
	"net/http"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/attachment"
)

// Handlers serve the attachment routes.
type Handlers struct {
	attachments *attachment.Service
	// storage serves the local store's presigned URLs; nil with S3.
	storage http.Handler
}

// New builds the handlers with every dependency they need; storage is nil
// with S3 (the local store serves its presigned URLs itself).
func New(attachments *attachment.Service, storage http.Handler) Handlers {
	return Handlers{attachments: attachments, storage: storage}
}

// Routes registers the attachment routes.
func (h Handlers) Routes(r api.Router) {
	r.Post("/tickets/:ticket_id/attachments/presign", api.WithBody("ticket_id", "ticket", fiber.StatusOK, h.presign))
	r.Post("/tickets/:ticket_id/attachments/confirm", h.confirm)
	r.Get("/tickets/:ticket_id/attachments", api.ListUnder("ticket_id", "ticket", h.attachments.List))
	r.Get("/attachments/:id", api.ByID("attachment", h.attachments.Get))
	r.Delete("/attachments/:id", api.DeleteByID("attachment", h.attachments.Delete))
	if h.storage != nil {
		storage := adaptor.HTTPHandler(uploadsTold{h.storage, h.attachments})
		for _, m := range []string{fiber.MethodGet, fiber.MethodHead} {
			r.Root().Add(m, attachment.StoragePrefix+"*", storage)
		}
		// The local store receives the upload's body, bounded by the largest
		// attachment (and by the signed content length).
		r.RootUpload(fiber.MethodPut, attachment.StoragePrefix, int(h.attachments.MaxBytes()), storage)
	}
}

type presignReq struct {
	Filename    string `json:"filename" validate:"required"`
	ContentType string `json:"content_type" validate:"required"`
	SizeBytes   int64  `json:"size_bytes" validate:"required"`
}

func (h Handlers) presign(ctx context.Context, p domain.Principal, ticketID uuid.UUID, req presignReq) (attachment.Upload, error) {
	return h.attachments.Presign(ctx, p, ticketID,
		attachment.PresignInput{Filename: req.Filename, ContentType: req.ContentType, SizeBytes: req.SizeBytes})
}

type confirmReq struct {
	presignReq
	StorageKey string    `json:"storage_key" validate:"required"`
	UploadedBy uuid.UUID `json:"uploaded_by" validate:"required"`
}

func (h Handlers) confirm(c *fiber.Ctx) error {
	ticketID, err := api.PathID(c, "ticket_id", "ticket")
	if err != nil {
		return err
	}
	var req confirmReq
	if err := api.Bind(c, &req); err != nil {
		return err
	}
	in := attachment.ConfirmInput{Filename: req.Filename, ContentType: req.ContentType, SizeBytes: req.SizeBytes,
		StorageKey: req.StorageKey, UploadedBy: req.UploadedBy}
	out, err := h.attachments.Confirm(c.UserContext(), api.Principal(c), ticketID, in)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusCreated, out)
}

// uploadsTold serves the local store and tells the attachments of each
// upload it stored, so that an attachment confirmed before its upload turns
// ready at once (the verification job would find it later anyway).
type uploadsTold struct {
	http.Handler
	attachments *attachment.Service
}

func (u uploadsTold) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec := &statusOf{ResponseWriter: w, status: http.StatusOK}
	u.Handler.ServeHTTP(rec, r)
	if r.Method == http.MethodPut && rec.status == http.StatusOK {
		key := strings.TrimPrefix(r.URL.Path, attachment.StoragePrefix)
		_ = u.attachments.Uploaded(r.Context(), key) // on an error, the job verifies it
	}
}

// statusOf remembers the status a handler answered.
type statusOf struct {
	http.ResponseWriter
	status int
}

func (s *statusOf) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
