package objectstoretest

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"
)

// Put sends body to a presigned upload URL over real HTTP with the given
// headers (those of the presign answer, as a client sends them; an empty
// value leaves a header out) and returns the status and the answer's body.
func Put(t testing.TB, method, url string, headers map[string]string, body []byte) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		// Go sets Content-Length from the body itself.
		if v != "" && !strings.EqualFold(k, "Content-Length") {
			req.Header.Set(k, v)
		}
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, b
}

// Get fetches a (presigned download) URL over real HTTP and returns the
// answer with its body read.
func Get(t testing.TB, url string) (*http.Response, []byte) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, b
}
