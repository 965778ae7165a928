package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	deliveryact "tracker/activities/delivery"
	"tracker/domain/delivery"
)

// TestCatchesAndShowsAnEmail sends a notification email through the
// service's own SMTP client to a running catcher and reads it back from
// its pages: listed by subject, both parts and the unsubscribe header shown.
func TestCatchesAndShowsAnEmail(t *testing.T) {
	b := &box{}
	s := smtp.NewServer(backend{b})
	s.Domain = "localhost"
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.Serve(l) }()
	t.Cleanup(func() { _ = s.Close() })

	m, err := deliveryact.NewSMTP("smtp://"+l.Addr().String(), "Tracker <tracker@localhost>")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err = m.Send(ctx, delivery.Email{To: "grace@example.test", Name: "Grace", Subject: "Ada mentioned you on ENG-1 Fix <it>",
		Text: "plain words", HTML: "<p>html <b>words</b></p>", Unsubscribe: "http://localhost:3000/api/v1/email/unsubscribe?token=t",
		MessageID: "<x@localhost>"})
	if err != nil {
		t.Fatal(err)
	}
	web := httptest.NewServer(pages(b))
	defer web.Close()
	get := func(path string) string {
		t.Helper()
		res, err := http.Get(web.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d", path, res.StatusCode)
		}
		return string(body)
	}
	if list := get("/"); !strings.Contains(list, `<a href="/messages/1">Ada mentioned you on ENG-1 Fix &lt;it&gt;</a>`) ||
		!strings.Contains(list, "grace@example.test") {
		t.Fatalf("list page:\n%s", list)
	}
	page := get("/messages/1")
	for _, want := range []string{"plain words", `srcdoc="&lt;p&gt;html &lt;b&gt;words&lt;/b&gt;&lt;/p&gt;`, "List-Unsubscribe-Post",
		"api/v1/email/unsubscribe?token=t"} {
		if !strings.Contains(page, want) {
			t.Errorf("message page lacks %q:\n%s", want, page)
		}
	}
}
