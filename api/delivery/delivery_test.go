package delivery_test

import (
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"tracker/api"
	"tracker/api/apitest"
	deliveryapi "tracker/api/delivery"
	"tracker/domain/delivery"
)

// TestUnsubscribeLink: the link of an email turns that person's email off
// with a POST (the one-click of RFC 8058, no credentials), a GET only
// shows the confirmation page, and a token this service did not sign is a
// 404 that changes nothing.
func TestUnsubscribeLink(t *testing.T) {
	var svc *delivery.Service
	env := apitest.New(t, apitest.Options{Modules: func(e *apitest.Env) []api.Module {
		svc = delivery.New(e.DB, e.Clock, "http://tracker.test", []byte(apitest.Secret))
		return []api.Module{deliveryapi.New(svc)}
	}})
	u := env.Register("Grace")
	other := env.Register("Ada")
	link, err := url.Parse(svc.UnsubscribeURL(u.ID))
	if err != nil {
		t.Fatal(err)
	}
	path := link.RequestURI()
	enabled := func(id any) bool {
		return apitest.Scalar[bool](t, env, `SELECT COALESCE((SELECT email_enabled FROM notification_settings WHERE user_id = $1), true)`, id)
	}

	page := env.Do("GET", path, "", nil).Expect(t, 200)
	if !strings.Contains(string(page.Body), `<form method="post"`) || !strings.HasPrefix(page.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("confirmation page %s", page.Body)
	}
	if !enabled(u.ID) {
		t.Fatal("a GET turned email off")
	}

	token := link.Query().Get("token")
	for _, bad := range []string{"", "x", token[:len(token)-2] + "AA", strings.Repeat("A", 43), "%00%ff", strings.Repeat("z", 1000)} {
		apitest.ExpectCode(t, env.Do("POST", "/api/v1/email/unsubscribe?token="+url.QueryEscape(bad), "", nil), 404, "not_found")
		apitest.ExpectCode(t, env.Do("GET", "/api/v1/email/unsubscribe?token="+url.QueryEscape(bad), "", nil), 404, "not_found")
	}
	if !enabled(u.ID) || !enabled(other.ID) {
		t.Fatal("a forged token turned email off")
	}

	req := httptest.NewRequest("POST", path, strings.NewReader("List-Unsubscribe=One-Click"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	done := env.Send(req).Expect(t, 200)
	if !strings.Contains(string(done.Body), "Email notifications are off") {
		t.Fatalf("answer %s", done.Body)
	}
	if enabled(u.ID) || !enabled(other.ID) {
		t.Fatal("the link did not turn exactly its recipient's email off")
	}
	if r := apitest.Scalar[string](t, env, `SELECT email_disabled_reason FROM notification_settings WHERE user_id = $1`, u.ID); r != delivery.ReasonUnsubscribed {
		t.Fatalf("reason %q", r)
	}
	env.Do("POST", path, "", nil).Expect(t, 200) // idempotent
}
