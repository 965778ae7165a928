package stackrun

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxyRoundRobinAndFailover: requests alternate between the replicas;
// with one replica gone (connection refused) every request, a POST with a
// body included, reaches the other one.
func TestProxyRoundRobinAndFailover(t *testing.T) {
	var backs []*httptest.Server
	var procs []*Proc
	for _, name := range []string{"api-1", "api-2"} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			b, _ := io.ReadAll(r.Body)
			_, _ = io.WriteString(w, name+":"+string(b)+":"+r.Header.Get("X-Forwarded-For"))
		}))
		t.Cleanup(srv.Close)
		backs = append(backs, srv)
		procs = append(procs, &Proc{Name: name, Addr: strings.TrimPrefix(srv.URL, "http://")})
	}
	p, err := Listen("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	p.SetBackends(procs)

	post := func() (string, string) {
		t.Helper()
		res, err := http.Post(p.URL+"/x", "text/plain", strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("status %d: %s", res.StatusCode, b)
		}
		return res.Header.Get(HeaderBackend), string(b)
	}
	seen := map[string]int{}
	for i := 0; i < 10; i++ {
		name, body := post()
		if body != name+":body:127.0.0.1" {
			t.Fatalf("%s answered %q", name, body)
		}
		seen[name]++
	}
	if seen["api-1"] != 5 || seen["api-2"] != 5 {
		t.Fatalf("not round robin: %v", seen)
	}
	backs[0].Close()
	for i := 0; i < 10; i++ {
		if name, body := post(); name != "api-2" || body != "api-2:body:127.0.0.1" {
			t.Fatalf("with api-1 gone: %s answered %q", name, body)
		}
	}
	backs[1].Close()
	res, err := http.Get(p.URL + "/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 502 || !strings.Contains(string(b), `"code":"BAD_GATEWAY"`) {
		t.Fatalf("no replica: %d %s", res.StatusCode, b)
	}
}
