package benchkit

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestPct(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 20; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	for _, c := range []struct {
		p    int
		want time.Duration
	}{{50, 10 * time.Millisecond}, {95, 19 * time.Millisecond}, {100, 20 * time.Millisecond}, {0, time.Millisecond}} {
		if got := Pct(ds, c.p); got != c.want {
			t.Errorf("Pct(1..20 ms, %d) = %v, want %v", c.p, got, c.want)
		}
	}
	if got := Pct(ds[:1], 95); got != time.Millisecond {
		t.Errorf("Pct of one = %v", got)
	}
	if got := Ms(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("Ms = %v", got)
	}
}

func TestCallAndSend(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" || r.Header.Get("Content-Type") != "application/json" {
			http.Error(w, `{"error":"headers"}`, http.StatusUnauthorized)
			return
		}
		if r.URL.Path == "/fail" {
			http.Error(w, `{"error":"nope"}`, http.StatusUnprocessableEntity)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"echo":"` + r.Method + `"}`))
	}))
	defer srv.Close()
	ctx := context.Background()
	var out struct{ Echo string }
	if err := Call(ctx, srv.URL, "POST", "/ok", "tok", map[string]int{"a": 1}, &out); err != nil || out.Echo != "POST" {
		t.Fatalf("Call = %v, %+v", err, out)
	}
	code, body, err := Send(ctx, srv.URL, "POST", "/fail", "tok", map[string]int{})
	if err == nil || code != http.StatusUnprocessableEntity || !strings.Contains(string(body), "nope") ||
		!strings.Contains(err.Error(), "/fail: 422") {
		t.Fatalf("Send of a 422 = %d %q %v", code, body, err)
	}
}
