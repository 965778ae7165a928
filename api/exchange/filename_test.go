package exchange_test

import (
	"mime"
	"strings"
	"testing"

	"tracker/domain/exchange/export/exportseed"
)

// TestExportFilenameIsOneParameter: a slug from before slugs were limited to
// [a-z0-9-] (the migration rewrites those, but a header must not depend on
// it) can neither end the export's filename nor add parameters to its
// Content-Disposition.
func TestExportFilenameIsOneParameter(t *testing.T) {
	t.Parallel()
	f := setup(t, exportseed.Options{Projects: 1, TicketsPerProject: 1})
	slug := `x"; filename*=UTF-8''invoice.pdf.exe; q="`
	f.env.Exec(t, `ALTER TABLE organizations DROP CONSTRAINT IF EXISTS organizations_slug_check`)
	f.env.Exec(t, `UPDATE organizations SET slug = $1 WHERE id = $2`, slug, f.a)
	for _, format := range []string{"json", "sqlite"} {
		r := f.env.Do("GET", "/api/v1/export?org_id="+f.a.String()+"&format="+format, f.owner.Token, nil).Expect(t, 200)
		cd := r.Header.Get("Content-Disposition")
		typ, params, err := mime.ParseMediaType(cd)
		if err != nil || typ != "attachment" || len(params) != 1 ||
			!strings.HasPrefix(params["filename"], "export-"+slug+"-") || !strings.HasSuffix(params["filename"], "."+format) {
			t.Fatalf("%s: Content-Disposition %q parses to %q %v (%v)", format, cd, typ, params, err)
		}
	}
}
