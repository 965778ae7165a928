// Package disposition builds the Content-Disposition of every download the
// service names (exports, reports, attachments), so that no name, whatever
// it holds, can end the filename, add a parameter or a header line.
package disposition

import (
	"mime"
	"strings"
)

// Attachment is "attachment" with filename as RFC 6266 asks: a
// quoted-string (quotes and backslashes escaped) when the name is printable
// ASCII; otherwise that of an ASCII fallback followed by the exact name in
// filename* (RFC 5987: UTF-8, percent-encoded, which also carries CR, LF and
// other control characters harmlessly).
func Attachment(filename string) string {
	exact := mime.FormatMediaType("attachment", map[string]string{"filename": filename})
	if strings.Contains(exact, "filename*=") {
		return "attachment; filename=" + quote(ascii(filename)) + strings.TrimPrefix(exact, "attachment")
	}
	return "attachment; filename=" + quote(filename)
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ascii replaces what a plain filename parameter cannot carry with '_'.
func ascii(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r > '~' {
			return '_'
		}
		return r
	}, s)
}
