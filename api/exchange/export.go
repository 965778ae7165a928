package exchange

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/domain"
	"tracker/domain/exchange/export"
	"tracker/internal/disposition"
)

// export answers GET /export?org_id=…[&project=KEY][&format=json|sqlite].
// JSON is streamed as it is read; SQLite is written to a temporary file
// (SQLite needs a seekable file), streamed, then removed.
func (h Handlers) export(c *fiber.Ctx) error {
	orgID, err := api.RequiredQueryID(c, "org_id")
	if err != nil {
		return err
	}
	format := c.Query("format", export.FormatJSON)
	if format != export.FormatJSON && format != export.FormatSQLite {
		return domain.Invalid("format: must be json or sqlite")
	}
	sc, err := h.exports.Prepare(c.UserContext(), api.Principal(c), orgID, c.Query("project"))
	if err != nil {
		return err
	}
	name := fmt.Sprintf("export-%s-%s.%s", sc.Org.Slug, sc.At.Format("2006-01-02"), format)
	c.Set(fiber.HeaderContentDisposition, disposition.Attachment(name))
	if format == export.FormatSQLite {
		return h.sendSQLite(c, sc)
	}
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	// The stream is written after the handler returns: the request's
	// context is then done, so the export keeps its values only.
	ctx := context.WithoutCancel(c.UserContext())
	log, reqID := h.log, api.RequestID(c)
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		if err := h.exports.WriteJSON(ctx, sc, w); err != nil {
			log.ErrorContext(ctx, "export stream failed", "request_id", reqID, "org_id", sc.Org.ID, "error", err)
		}
	})
	return nil
}

func (h Handlers) sendSQLite(c *fiber.Ctx, sc export.Scope) error {
	dir, err := os.MkdirTemp(h.settings.TempDir, "tracker-export-*")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "export.sqlite")
	if err := h.exports.WriteSQLite(c.UserContext(), sc, path); err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	f, err := os.Open(path)
	if err == nil {
		var st os.FileInfo
		if st, err = f.Stat(); err == nil {
			c.Set(fiber.HeaderContentType, "application/vnd.sqlite3")
			c.Context().SetBodyStream(&tempFile{File: f, dir: dir}, int(st.Size()))
			return nil
		}
		_ = f.Close()
	}
	_ = os.RemoveAll(dir)
	return err
}

// tempFile removes its folder when the response is done with it (fasthttp
// closes a body stream after sending it).
type tempFile struct {
	*os.File
	dir string
}

func (t *tempFile) Close() error {
	err := t.File.Close()
	_ = os.RemoveAll(t.dir)
	return err
}
