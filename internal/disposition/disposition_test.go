package disposition_test

import (
	"mime"
	"strings"
	"testing"

	"tracker/internal/disposition"
)

func TestAttachmentCarriesAnyNameAsOneParameter(t *testing.T) {
	t.Parallel()
	names := []string{
		"export-acme-2026-11-27.sqlite",
		"report (final).csv",
		`export-x"; filename*=UTF-8''invoice.pdf.exe; q="-2026-11-27.sqlite`,
		"a\\b\".txt",
		"line\r\nSet-Cookie: x=1.txt",
		"tab\there.txt",
		"Résumé 📎.pdf",
		"semi;colon=.txt",
		"../../etc/passwd",
	}
	for _, name := range names {
		h := disposition.Attachment(name)
		if strings.ContainsAny(h, "\r\n") {
			t.Fatalf("%q: header %q carries a line break", name, h)
		}
		typ, params, err := mime.ParseMediaType(h)
		if err != nil || typ != "attachment" {
			t.Fatalf("%q: header %q: %v", name, h, err)
		}
		if len(params) != 1 || params["filename"] != name {
			t.Fatalf("%q: header %q parses to %v", name, h, params)
		}
	}
}

func TestAttachmentFallbackForNonASCII(t *testing.T) {
	t.Parallel()
	h := disposition.Attachment("Résumé.pdf")
	if want := `attachment; filename="R_sum_.pdf"; filename*=utf-8''R%C3%A9sum%C3%A9.pdf`; h != want {
		t.Fatalf("header %q, want %q", h, want)
	}
	if h := disposition.Attachment("plain.csv"); h != `attachment; filename="plain.csv"` {
		t.Fatalf("header %q", h)
	}
	if h := disposition.Attachment(`a"b\c`); h != `attachment; filename="a\"b\\c"` {
		t.Fatalf("header %q", h)
	}
}
