package importer

import "testing"

// FuzzDecode: any body is a document, a 400, a 422 or a version error,
// never a panic.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"version":1}`, `{"version":2,"users":3}`, `{"projects":[{"tickets":[{"number":"x"}]}]}`,
		`{"version":1,"users":[{"email":"\u0000"}]}`, `[`, `{"projects":{"a":1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		_, _ = decode(body)
	})
}
