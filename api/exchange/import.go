package exchange

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"mime"
	"mime/multipart"
	"os"
	"sort"
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
// it. The form is read as a stream: the file part goes to a temporary
// file, never whole into memory. A dry run answers 200 with its report at
// once and writes nothing; otherwise the import runs as POST /import's
// does, once per Idempotency-Key (the form told apart by its fields and a
// hash of the file's bytes taken as they were spooled).
func (h Handlers) importFile(c *fiber.Ctx) error {
	orgID, err := api.PathID(c, "org_id", "organization")
	if err != nil {
		return err
	}
	p := api.Principal(c)
	f := importer.File{Format: "tracker_json", Limit: int64(h.limit())}
	var body []byte // what an Idempotency-Key's request is told apart by
	ctype, params, _ := mime.ParseMediaType(c.Get(fiber.HeaderContentType))
	if ctype == fiber.MIMEMultipartForm {
		form, err := h.readForm(c, params["boundary"])
		if form.file != nil {
			defer func() {
				_ = form.file.Close()
				_ = os.Remove(form.file.Name())
			}()
		}
		if err != nil {
			return err
		}
		field := func(name string) string { return strings.TrimSpace(form.fields[name]) }
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
		if form.file == nil {
			return domain.Invalid("file: required, one file part named file")
		}
		f.Body = form.file
		body = form.fingerprint()
	} else {
		f.Body = api.BodyStream(c)
		if c.Get("Idempotency-Key") != "" {
			// A Tracker document is read whole anyway: read it first.
			if body, err = readAll(f.Body, f.Limit); err != nil {
				return err
			}
			f.Body = bytes.NewReader(body)
		}
	}
	submit := func() error {
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
		if c.Get("Idempotency-Key") != "" {
			// Recorded in the request's own transaction, the import
			// cannot start before the answer commits: waiting would
			// only hold the transaction.
			return api.Send(c, fiber.StatusAccepted, importResponse(importer.Status{ID: sub.ImportID, Status: "queued"}))
		}
		st, err := h.imports.Await(c.UserContext(), sub.ImportID)
		if err != nil {
			return err
		}
		return api.Send(c, statusCode(st), importResponse(st))
	}
	if f.DryRun {
		return submit() // writes nothing: not kept under a key
	}
	return api.IdempotentStream(c, body, submit)
}

// readAll reads a body of at most limit bytes (the importer refuses a
// longer one).
func readAll(r io.Reader, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	var de *domain.Error
	if errors.As(err, &de) {
		return nil, err // the body's own limit: a 413
	}
	if err != nil {
		return nil, domain.BadRequest("could not read the file")
	}
	return b, nil
}

// maxField caps a form field (the mapping is the largest), and maxFields
// their number, so the fields a form holds in memory stay small whatever
// the body's size.
const (
	maxField  = 1 << 20
	maxFields = 16
)

// uploadForm is a multipart form read: its fields, and its file part
// spooled to a temporary file (rewound), nil when there was none.
type uploadForm struct {
	fields map[string]string
	file   *os.File
	sum    hash.Hash // of the file's bytes, as they were spooled
}

// fingerprint identifies the form: its fields and its file's bytes.
func (f uploadForm) fingerprint() []byte {
	h := sha256.New()
	names := make([]string, 0, len(f.fields))
	for name := range f.fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(h, "%d:%s%d:%s", len(name), name, len(f.fields[name]), f.fields[name])
	}
	if f.file != nil {
		h.Write([]byte("file:"))
		h.Write(f.sum.Sum(nil))
	}
	return h.Sum(nil)
}

// readForm reads the multipart body part by part.
func (h Handlers) readForm(c *fiber.Ctx, boundary string) (uploadForm, error) {
	form := uploadForm{fields: map[string]string{}, sum: sha256.New()}
	if boundary == "" {
		return form, domain.BadRequest("malformed multipart/form-data body: no boundary")
	}
	mr := multipart.NewReader(api.BodyStream(c), boundary)
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return form, bodyError(err)
		}
		name := part.FormName()
		if name == "file" {
			if form.file != nil {
				return form, domain.Invalid("file: one file part only")
			}
			if form.file, err = os.CreateTemp(h.settings.TempDir, "import-*"); err != nil {
				return form, err
			}
			if _, err := io.Copy(io.MultiWriter(form.file, form.sum), part); err != nil {
				return form, bodyError(err)
			}
			if _, err := form.file.Seek(0, io.SeekStart); err != nil {
				return form, err
			}
			continue
		}
		if _, seen := form.fields[name]; !seen && len(form.fields) == maxFields {
			return form, domain.Invalidf("the form has more than %d fields", maxFields)
		}
		b, err := io.ReadAll(io.LimitReader(part, maxField+1))
		if err != nil {
			return form, bodyError(err)
		}
		if len(b) > maxField {
			return form, domain.Invalidf("%s: longer than %d bytes", name, maxField)
		}
		form.fields[name] = string(b)
	}
	return form, nil
}

// bodyError passes a 413 of the body's limit on; anything else is a
// malformed body.
func bodyError(err error) error {
	var de *domain.Error
	if errors.As(err, &de) {
		return err
	}
	return domain.BadRequest("malformed multipart/form-data body")
}
