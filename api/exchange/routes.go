// Package exchange is the HTTP edge of export and import: GET /export (the
// JSON document streamed, or a SQLite file), POST /import (validate, record,
// start the durable Import workflow, wait briefly), POST
// /orgs/{org_id}/imports (the same for a file of another tracker's export,
// with a dry run), GET /imports/{id},
// GET /orgs/{org_id}/imports and POST /imports/{id}/cancel.
package exchange

import (
	"log/slog"

	"tracker/api"
	"tracker/domain/exchange/export"
	"tracker/domain/exchange/importer"
)

// Handlers serve export and import.
type Handlers struct {
	exports  *export.Service
	imports  *importer.Service
	log      *slog.Logger // errors of a stream already under way
	settings Settings
}

// Settings are the exchange's knobs, read once in cmd/tracker's config.
type Settings struct {
	// TempDir is where sqlite exports are written ("" is os.TempDir).
	TempDir string
	// ImportLimit caps an import document's bytes (0 is
	// DefaultImportLimit); every other route takes api.DefaultBodyLimit.
	ImportLimit int
}

// New builds the handlers with every dependency they need. log receives the
// errors of an export stream already under way (its status line is sent):
// pass the service's masking logger, never slog.Default.
func New(exports *export.Service, imports *importer.Service, log *slog.Logger, settings Settings) Handlers {
	if log == nil {
		panic("exchange.New: nil logger")
	}
	return Handlers{exports: exports, imports: imports, log: log, settings: settings}
}

// DefaultImportLimit admits import documents of ~100,000 tickets with
// their comments and time entries (about 100 MB of JSON).
const DefaultImportLimit = 256 << 20

func (h Handlers) limit() int {
	if h.settings.ImportLimit == 0 {
		return DefaultImportLimit
	}
	return h.settings.ImportLimit
}

// Routes registers the routes.
func (h Handlers) Routes(r api.Router) {
	r.Get("/export", h.export)
	r.Upload("/import", h.limit(), h.importDocument)
	r.UploadStream("/orgs/:org_id/imports", h.limit(), h.importFile)
	r.Get("/imports/:id", h.getImport)
	r.Get("/orgs/:org_id/imports", api.ListUnder("org_id", "organization", h.imports.List))
	r.Post("/imports/:id/cancel", h.cancelImport)
}
