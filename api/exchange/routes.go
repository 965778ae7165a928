// Package exchange is the HTTP edge of export and import: GET /export (the
// JSON document streamed, or a SQLite file), POST /import (validate, record,
// start the durable Import workflow, wait briefly), GET /imports/{id},
// GET /orgs/{org_id}/imports and POST /imports/{id}/cancel.
package exchange

import (
	"log/slog"

	"tracker/api"
	"tracker/domain/export"
	"tracker/domain/importer"
)

// Handlers serve export and import.
type Handlers struct {
	Export  *export.Service
	Imports *importer.Service
	Log     *slog.Logger // errors of a stream already under way (default slog.Default)
	TempDir string       // where sqlite exports are written (default os.TempDir)
	// ImportLimit caps an import document's bytes (default
	// DefaultImportLimit); every other route takes api.DefaultBodyLimit.
	ImportLimit int
}

// DefaultImportLimit admits import documents of ~100,000 tickets with
// their comments and time entries (about 100 MB of JSON).
const DefaultImportLimit = 256 << 20

// Routes registers the routes.
func (h Handlers) Routes(r api.Router) {
	r.Get("/export", h.export)
	limit := h.ImportLimit
	if limit == 0 {
		limit = DefaultImportLimit
	}
	r.Upload("/import", limit, h.importDocument)
	r.Get("/imports/:id", h.getImport)
	r.Get("/orgs/:org_id/imports", api.ListUnder("org_id", "organization", h.Imports.List))
	r.Post("/imports/:id/cancel", h.cancelImport)
}

func (h Handlers) log() *slog.Logger {
	if h.Log != nil {
		return h.Log
	}
	return slog.Default()
}
