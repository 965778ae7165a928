package api_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"tracker/api"
	"tracker/api/apitest"
)

// echoModule has one Upload route (2 MiB) and one ordinary route, both
// answering the size of the body they received.
type echoModule struct{}

func (echoModule) Routes(r api.Router) {
	size := func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"bytes": len(c.Body())}) }
	r.Upload("/test-upload", 2<<20, size)
	r.Post("/test-small", size)
}

func send(t *testing.T, env *apitest.Env, method, path, token string, body io.Reader, header map[string]string) apitest.Resp {
	t.Helper()
	req := httptest.NewRequest(method, path, body)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	res, err := env.App.Test(req, -1)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return apitest.Resp{Status: res.StatusCode, Body: b, Header: res.Header}
}

// sendChunked sends a body without a Content-Length (chunked) through a
// real listener: app.Test cannot. It writes raw HTTP/1.1 on its own
// goroutine and reads the answer on this one: a server that refuses a body
// answers before reading all of it and closes, so writing the rest may fail
// with a reset while the answer is already waiting (net/http's client would
// report the write error instead of the answer).
func sendChunked(t *testing.T, env *apitest.Env, path, token string, n int) apitest.Resp {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = env.App.Listener(ln) }()
	defer ln.Close()
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := "POST " + path + " HTTP/1.1\r\nHost: tracker.test\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n"
	if token != "" {
		head += "Authorization: Bearer " + token + "\r\n"
	}
	written := make(chan struct{})
	go func() {
		defer close(written)
		w := bufio.NewWriter(conn)
		_, _ = w.WriteString(head + "\r\n")
		chunk := bytes.Repeat([]byte("x"), 32<<10)
		for left := n; left > 0; left -= len(chunk) {
			if left < len(chunk) {
				chunk = chunk[:left]
			}
			_, _ = fmt.Fprintf(w, "%x\r\n", len(chunk))
			_, _ = w.Write(chunk)
			if _, err := w.WriteString("\r\n"); err != nil {
				return
			}
		}
		_, _ = w.WriteString("0\r\n\r\n")
		_ = w.Flush()
	}()
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("POST %s: %v", path, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	_ = conn.Close()
	<-written
	return apitest.Resp{Status: res.StatusCode, Body: b, Header: res.Header}
}

func expectEnvelope(t *testing.T, r apitest.Resp, status int, code string) {
	t.Helper()
	if r.Status != status || r.ErrorCode() != code {
		t.Fatalf("status %d code %q, want %d %s: %s", r.Status, r.ErrorCode(), status, code, r.Body)
	}
}

func TestHostileTextIsRejectedAtTheEdge(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Nul")

	for name, body := range map[string]string{
		"NUL in login":         `{"email":"a\u0000@example.test","password":"12345678"}`,
		"NUL in register":      `{"email":"n@example.test","password":"12345678","display_name":"a\u0000b"}`,
		"invalid UTF-8":        "{\"email\":\"n@example.test\",\"password\":\"12345678\",\"display_name\":\"a\xffb\"}",
		"NUL in an object key": `{"email\u0000":"n@example.test","password":"12345678","display_name":"x"}`,
		"escaped NUL is one":   `{"email":"n@example.test","password":"\\\u0000aaaaaaa","display_name":"x"}`,
		"NUL in a key's name":  `{"name":"k\u0000","scopes":["read"]}`,
	} {
		t.Run(name, func(t *testing.T) {
			path := "/api/v1/auth/register"
			switch {
			case strings.Contains(name, "login"):
				path = "/api/v1/auth/login"
			case strings.Contains(name, "key"):
				path = "/api/v1/api-keys"
			}
			expectEnvelope(t, env.Do("POST", path, u.Token, body), 422, "VALIDATION_ERROR")
		})
	}
	// A backslash followed by the text u0000 is ordinary text.
	env.Do("POST", "/api/v1/auth/register", "", `{"email":"text@example.test","password":"12345678","display_name":"a\\u0000b"}`).Expect(t, 201)

	for _, path := range []string{
		"/api/v1/orgs?cursor=%00", "/api/v1/orgs?cursor=%FF", "/api/v1/orgs?x%00=1", "/api/v1/orgs/%00/members",
		"/api/v1/orgs/%FF/members", "/api/v1/auth/login?next=%00",
	} {
		t.Run(path, func(t *testing.T) {
			method := "GET"
			if strings.Contains(path, "login") {
				method = "POST"
			}
			expectEnvelope(t, env.Do(method, path, u.Token, nil), 422, "VALIDATION_ERROR")
		})
	}
}

func TestBodyLimits(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{Modules: func(*apitest.Env) []api.Module { return []api.Module{echoModule{}} }})
	u := env.Register("Big")
	big := func(n int) []byte { return bytes.Repeat([]byte("x"), n) }
	jsonOf := func(n int) []byte {
		b, _ := json.Marshal(map[string]string{"email": "a@example.test", "password": string(big(n))})
		return b
	}

	// Every route: 1 MiB, with or without a Content-Length, before any
	// credential is looked at.
	expectEnvelope(t, send(t, env, "POST", "/api/v1/auth/login", "", bytes.NewReader(jsonOf(api.DefaultBodyLimit)), nil), 413, "PAYLOAD_TOO_LARGE")
	expectEnvelope(t, sendChunked(t, env, "/api/v1/auth/login", "", 3<<20), 413, "PAYLOAD_TOO_LARGE")
	expectEnvelope(t, send(t, env, "POST", "/api/v1/test-small", u.Token, bytes.NewReader(big(api.DefaultBodyLimit+1)), nil), 413, "PAYLOAD_TOO_LARGE")
	var got struct{ Bytes int }
	send(t, env, "POST", "/api/v1/test-small", u.Token, bytes.NewReader(big(api.DefaultBodyLimit)), nil).Expect(t, 200).Decode(t, &got)
	if got.Bytes != api.DefaultBodyLimit {
		t.Fatalf("read %d bytes", got.Bytes)
	}
	sendChunked(t, env, "/api/v1/test-small", u.Token, 1000).Expect(t, 200).Decode(t, &got)
	if got.Bytes != 1000 {
		t.Fatalf("chunked: read %d bytes", got.Bytes)
	}

	// An Upload route takes its own limit, and only after authentication.
	expectEnvelope(t, send(t, env, "POST", "/api/v1/test-upload", "", bytes.NewReader(big(3<<20)), nil), 401, "unauthorized")
	send(t, env, "POST", "/api/v1/test-upload", u.Token, bytes.NewReader(big(2<<20)), nil).Expect(t, 200).Decode(t, &got)
	if got.Bytes != 2<<20 {
		t.Fatalf("upload: read %d bytes", got.Bytes)
	}
	sendChunked(t, env, "/api/v1/Test-Upload/", u.Token, 2<<20).Expect(t, 200)
	expectEnvelope(t, send(t, env, "POST", "/api/v1/test-upload", u.Token, bytes.NewReader(big(2<<20+1)), nil), 413, "PAYLOAD_TOO_LARGE")
	expectEnvelope(t, sendChunked(t, env, "/api/v1/test-upload", u.Token, 3<<20), 413, "PAYLOAD_TOO_LARGE")

	// A compressed body could expand past any limit: refused.
	expectEnvelope(t, send(t, env, "POST", "/api/v1/auth/login", "", bytes.NewReader([]byte{0x1f, 0x8b}),
		map[string]string{"Content-Encoding": "gzip"}), 400, "BAD_REQUEST")
}

// TestMemberNamesAreExactAndUnique: a body that names a member twice, or
// names a field other than exactly (encoding/json matched names ignoring
// case, so the last spelling won), is a 422 naming the member, and changes
// nothing; unknown members are still ignored.
func TestMemberNamesAreExactAndUnique(t *testing.T) {
	t.Parallel()
	env := apitest.New(t, apitest.Options{})
	u := env.Register("Names")
	for name, c := range map[string]struct{ path, body, detail string }{
		"case variant after the field": {"/api/v1/api-keys", `{"name":"first","Name":"second","scopes":["read"]}`, `Name: must be spelled "name"`},
		"case variant alone":           {"/api/v1/api-keys", `{"NAME":"only","scopes":["read"]}`, `NAME: must be spelled "name"`},
		"long s for s":                 {"/api/v1/api-keys", `{"name":"k","\u017Fcopes":["admin"]}`, `must be spelled "scopes"`},
		"duplicate":                    {"/api/v1/api-keys", `{"name":"first","name":"second","scopes":["read"]}`, "name: duplicate member name"},
		"duplicate, escaped":           {"/api/v1/api-keys", `{"name":"first","n\u0061me":"second","scopes":["read"]}`, "name: duplicate member name"},
		"duplicate unknown member":     {"/api/v1/api-keys", `{"name":"k","scopes":["read"],"x":1,"x":2}`, "x: duplicate member name"},
		"duplicate in an array":        {"/api/v1/api-keys", `{"name":"k","scopes":["read"],"project_ids":[],"extra":[{"a":1,"a":1}]}`, "extra[0].a: duplicate member name"},
		"register":                     {"/api/v1/auth/register", `{"email":"n@example.test","password":"12345678","display_name":"a","Display_Name":"b"}`, `Display_Name: must be spelled "display_name"`},
	} {
		t.Run(name, func(t *testing.T) {
			r := env.Do("POST", c.path, u.Token, c.body)
			expectEnvelope(t, r, 422, "VALIDATION_ERROR")
			if c.detail != "" && !strings.Contains(strings.Join(r.Error().Details, ";"), c.detail) {
				t.Fatalf("details %q, want %q", r.Error().Details, c.detail)
			}
		})
	}
	if n := apitest.Scalar[int](t, env, `SELECT count(*) FROM api_keys WHERE user_id = $1`, u.ID); n != 0 {
		t.Fatalf("%d keys made by refused bodies", n)
	}
	// Unknown members, in any case, are ignored as before.
	env.Do("POST", "/api/v1/api-keys", u.Token, `{"name":"k","scopes":["read"],"Comment":"x","comment":"y"}`).Expect(t, 201)
}
