package exchange

import (
	"errors"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain/exchange/importer"
)

// versionError is the spec's own body for an unsupported document version:
// error is a plain string, unlike the usual envelope.
type versionError struct {
	Error   string `json:"error"`
	Details string `json:"details"`
}

// importDocument answers POST /import[?org_id=…] (default: the session's
// org). It waits up to a few seconds: a finished import answers 200 with its
// summary, one still queued or running 202 with its id.
func (h Handlers) importDocument(c *fiber.Ctx) error {
	p := api.Principal(c)
	orgID := p.OrgID
	if c.Query("org_id") != "" {
		var err error
		if orgID, err = api.QueryID(c, "org_id"); err != nil {
			return err
		}
	}
	id, err := h.imports.Submit(c.UserContext(), p, orgID, c.Body())
	var ve *importer.VersionError
	if errors.As(err, &ve) {
		return api.Send(c, fiber.StatusUnprocessableEntity, versionError{Error: ve.Error(), Details: ve.Details()})
	}
	if err != nil {
		return err
	}
	st, err := h.imports.Await(c.UserContext(), id)
	if err != nil {
		return err
	}
	return api.Send(c, statusCode(st), importResponse(st))
}

// importResult is the response of POST /import.
type importResult struct {
	Status   string            `json:"status"` // completed, failed, running
	ImportID uuid.UUID         `json:"import_id"`
	Summary  *importer.Summary `json:"summary,omitempty"`
	Errors   []string          `json:"errors,omitempty"`
}

func importResponse(st importer.Status) importResult {
	switch st.Status {
	case "completed":
		return importResult{Status: st.Status, ImportID: st.ID, Summary: &st.Summary}
	case "failed":
		return importResult{Status: st.Status, ImportID: st.ID, Summary: &st.Summary, Errors: st.Errors}
	case "cancelled":
		return importResult{Status: st.Status, ImportID: st.ID, Summary: &st.Summary}
	}
	return importResult{Status: "running", ImportID: st.ID}
}

func statusCode(st importer.Status) int {
	if st.Status == "completed" || st.Status == "failed" || st.Status == "cancelled" {
		return fiber.StatusOK
	}
	return fiber.StatusAccepted
}

// getImport answers GET /imports/{id}: status, progress, summary, errors.
func (h Handlers) getImport(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "import")
	if err != nil {
		return err
	}
	st, err := h.imports.Get(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, st)
}

// cancelImport answers POST /imports/{id}/cancel: 200 with the import, now
// cancelled; 409 if it had already finished.
func (h Handlers) cancelImport(c *fiber.Ctx) error {
	id, err := api.PathID(c, "id", "import")
	if err != nil {
		return err
	}
	st, err := h.imports.Cancel(c.UserContext(), api.Principal(c), id)
	if err != nil {
		return err
	}
	return api.Send(c, fiber.StatusOK, st)
}
