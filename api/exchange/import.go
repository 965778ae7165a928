package exchange

import (
	"bytes"
	"errors"
	"strings"

	"github.com/gofiber/fiber/v2"
	"github.com/google/uuid"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/exchange/importer"
	"tracker/domain/exchange/sources"
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

// importFile answers POST /orgs/{org_id}/imports: a multipart form with
// the export as its file part and the fields format, project_key, mapping
// and dry_run; a JSON body is a Tracker document, as POST /import takes
// it. A dry run answers 200 with its report at once and writes nothing;
// otherwise the import runs as POST /import's does.
func (h Handlers) importFile(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	p := api.Principal(c)
	f := importer.File{Format: "tracker_json", Limit: int64(h.limit())}
	if strings.HasPrefix(strings.ToLower(c.Get(fiber.HeaderContentType)), fiber.MIMEMultipartForm) {
		form, err := c.MultipartForm()
		if err != nil {
			return domain.BadRequest("malformed multipart/form-data body")
		}
		defer func() { _ = form.RemoveAll() }()
		field := func(name string) string {
			if v := form.Value[name]; len(v) > 0 {
				return strings.TrimSpace(v[0])
			}
			return ""
		}
		f.Format, f.ProjectKey = field("format"), field("project_key")
		if f.Format == "" {
			return domain.Invalid("format: required (one of " + strings.Join(sources.Formats, ", ") + ")")
		}
		switch field("dry_run") {
		case "", "false":
		case "true":
			f.DryRun = true
		default:
			return domain.Invalid("dry_run: must be true or false")
		}
		if f.Mapping, err = sources.ParseMapping(field("mapping")); err != nil {
			return err
		}
		files := form.File["file"]
		if len(files) != 1 {
			return domain.Invalid("file: required, one file part named file")
		}
		fh, err := files[0].Open()
		if err != nil {
			return domain.BadRequest("could not read the file part")
		}
		defer fh.Close()
		f.Body = fh
	} else {
		f.Body = bytes.NewReader(c.Body())
	}
	sub, err := h.imports.SubmitFile(c.UserContext(), p, orgID, f)
	var ve *importer.VersionError
	if errors.As(err, &ve) {
		return api.Send(c, fiber.StatusUnprocessableEntity, versionError{Error: ve.Error(), Details: ve.Details()})
	}
	if err != nil {
		return err
	}
	if sub.Report != nil {
		return api.Send(c, fiber.StatusOK, sub.Report)
	}
	st, err := h.imports.Await(c.UserContext(), sub.ImportID)
	if err != nil {
		return err
	}
	return api.Send(c, statusCode(st), importResponse(st))
}
