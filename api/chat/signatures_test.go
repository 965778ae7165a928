package chat_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"tracker/domain/chat"
)

func TestSignaturesRefuseForgeriesAndReplays(t *testing.T) {
	t.Parallel()
	f := newChat(t, signingSecret)
	form := []byte(url.Values{"team_id": {"T1"}, "user_id": {"U1"}, "command": {"/ticket"}, "text": {"create ABC forged"}}.Encode())
	cmd := "/api/v1/integrations/chat/commands"
	events := "/api/v1/integrations/chat/events"
	form2 := "application/x-www-form-urlencoded"
	before := f.count(t, `SELECT count(*) FROM tickets`)
	flip := func(h http.Header) { // one byte of the signature changed
		s := []byte(h.Get("X-Chat-Signature"))
		if s[len(s)-1] == '0' {
			s[len(s)-1] = '1'
		} else {
			s[len(s)-1] = '0'
		}
		h.Set("X-Chat-Signature", string(s))
	}
	cases := map[string]func(h http.Header){
		"one byte changed":  flip,
		"missing signature": func(h http.Header) { h.Del("X-Chat-Signature") },
		"missing timestamp": func(h http.Header) { h.Del("X-Chat-Request-Timestamp") },
		"no v0 prefix": func(h http.Header) {
			h.Set("X-Chat-Signature", strings.TrimPrefix(h.Get("X-Chat-Signature"), "v0="))
		},
		"wrong secret": func(h http.Header) {
			sig, _ := chat.Sign("guess", time.Now(), form)
			h.Set("X-Chat-Signature", sig)
		},
		"timestamp moved": func(h http.Header) { h.Set("X-Chat-Request-Timestamp", "1700000000") },
	}
	for name, mutate := range cases {
		if r := f.post(t, cmd, form2, form, time.Now(), mutate); r.Status != 401 || r.ErrorCode() == "" {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
		}
	}
	// Stale and future timestamps, correctly signed: replays.
	for _, at := range []time.Time{time.Now().Add(-6 * time.Minute), time.Now().Add(6 * time.Minute)} {
		if r := f.post(t, cmd, form2, form, at, nil); r.Status != 401 {
			t.Errorf("timestamp %v: %d %s", at, r.Status, r.Body)
		}
	}
	ev := []byte(`{"type":"url_verification","challenge":"abc"}`)
	if r := f.post(t, events, "application/json", ev, time.Now(), flip); r.Status != 401 {
		t.Errorf("events forged: %d", r.Status)
	}
	// Slack's own header names are accepted too.
	r := f.post(t, events, "application/json", ev, time.Now(), func(h http.Header) {
		h.Set("X-Slack-Signature", h.Get("X-Chat-Signature"))
		h.Set("X-Slack-Request-Timestamp", h.Get("X-Chat-Request-Timestamp"))
		h.Del("X-Chat-Signature")
		h.Del("X-Chat-Request-Timestamp")
	}).Expect(t, 200).Map(t)
	if r["challenge"] != "abc" || r["status"] != "ok" {
		t.Fatalf("url_verification %v", r)
	}
	if after := f.count(t, `SELECT count(*) FROM tickets`); after != before {
		t.Fatalf("tickets %d → %d", before, after)
	}
	// No secret configured: everything is 401.
	off := newChat(t, "")
	if r := off.post(t, events, "application/json", ev, time.Now(), nil); r.Status != 401 {
		t.Fatalf("unconfigured: %d", r.Status)
	}
}

// blocks checks the answer to a ticket: in_channel, one section whose text
