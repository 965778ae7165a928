package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"
)

func TestSignedHeadersVerify(t *testing.T) {
	secret := NewSecret()
	body := []byte(`{"id":"e1","type":"ticket.created"}`)
	key := DeliveryKey(uuid.New(), uuid.New())
	at := time.Unix(1_700_000_000, 0)
	h := SignedHeaders(secret, "ticket.created", key, at, body)

	// X-Service-Signature is the hex HMAC of the raw body keyed by the secret as shown.
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	if got, want := h.Get(HeaderSignature), "sha256="+hex.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("X-Service-Signature = %q, want %q", got, want)
	}
	// webhook-signature follows Standard Webhooks: key = base64 part of the secret.
	k, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	m = hmac.New(sha256.New, k)
	m.Write([]byte(key.String() + ".1700000000." + string(body)))
	if got, want := h.Get(HeaderStdSig), "v1,"+base64.StdEncoding.EncodeToString(m.Sum(nil)); got != want {
		t.Fatalf("webhook-signature = %q, want %q", got, want)
	}
	for name, want := range map[string]string{HeaderEvent: "ticket.created", HeaderDelivery: key.String(),
		HeaderID: key.String(), HeaderTimestamp: "1700000000", "Content-Type": "application/json"} {
		if got := h.Get(name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	if err := Verify(secret, h, body, 5*time.Minute, at.Add(time.Minute)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if err := Verify(secret, h, []byte(`{"id":"e2"}`), 0, at); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("tampered body: %v, want ErrBadSignature", err)
	}
	if err := Verify(NewSecret(), h, body, 0, at); !errors.Is(err, ErrBadSignature) {
		t.Fatalf("other secret: %v, want ErrBadSignature", err)
	}
	if err := Verify(secret, h, body, 5*time.Minute, at.Add(time.Hour)); !errors.Is(err, ErrStale) {
		t.Fatalf("old timestamp: %v, want ErrStale", err)
	}
}

func TestDeliveryKeyStable(t *testing.T) {
	e, w := uuid.New(), uuid.New()
	if DeliveryKey(e, w) != DeliveryKey(e, w) {
		t.Fatal("delivery key changes between calls")
	}
	if DeliveryKey(e, w) == DeliveryKey(w, e) || DeliveryKey(e, w) == DeliveryKey(e, uuid.New()) {
		t.Fatal("delivery keys collide")
	}
}

func TestNewSecret(t *testing.T) {
	a, b := NewSecret(), NewSecret()
	if a == b || !strings.HasPrefix(a, SecretPrefix) || len(a) != len(SecretPrefix)+32 {
		t.Fatalf("secrets %q %q", a, b)
	}
}

func TestScheduleAndIDs(t *testing.T) {
	if len(RetrySchedule) != 10 || RetrySchedule[1] != 5*time.Second || RetrySchedule[9] != 24*time.Hour {
		t.Fatalf("schedule %v", RetrySchedule)
	}
	if s := ScaledSchedule(0.001); s[1] != 5*time.Millisecond {
		t.Fatalf("scaled %v", s)
	}
	e, w := uuid.New(), uuid.New()
	if got := RedeliveryWorkflowID(e, w, 2); got != "webhook:"+e.String()+":"+w.String()+":redeliver:2" {
		t.Fatalf("id %q", got)
	}
}

func TestCreateInputValidate(t *testing.T) {
	tests := []struct {
		name string
		in   CreateInput
		bad  []string // fields with a problem
	}{
		{"ok", CreateInput{URL: "https://example.com/hook", EventTypes: []string{"ticket.created"}}, nil},
		{"http ok", CreateInput{URL: "http://example.com:8080/h?x=1", EventTypes: []string{"sprint.started", "sprint.started"}}, nil},
		{"missing url", CreateInput{EventTypes: []string{"ticket.created"}}, []string{"url"}},
		{"ftp", CreateInput{URL: "ftp://example.com", EventTypes: []string{"ticket.created"}}, []string{"url"}},
		{"relative", CreateInput{URL: "/hook", EventTypes: []string{"ticket.created"}}, []string{"url"}},
		{"no host", CreateInput{URL: "https://", EventTypes: []string{"ticket.created"}}, []string{"url"}},
		{"no types", CreateInput{URL: "https://example.com"}, []string{"event_types"}},
		{"unknown type", CreateInput{URL: "https://example.com", EventTypes: []string{"ticket.deleted"}}, []string{"event_types"}},
		{"both", CreateInput{URL: "nope", EventTypes: []string{}}, []string{"url", "event_types"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := tc.in
			err := in.Validate()
			if len(tc.bad) == 0 {
				if err != nil {
					t.Fatalf("unexpected %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("want problems with %v", tc.bad)
			}
			for _, f := range tc.bad {
				if !strings.Contains(err.Error(), f+":") {
					t.Errorf("error %q does not name %s", err, f)
				}
			}
		})
	}
	in := CreateInput{URL: "https://example.com", EventTypes: []string{"sprint.started", "sprint.started"}}
	_ = in.Validate()
	if len(in.EventTypes) != 1 {
		t.Fatalf("duplicates kept: %v", in.EventTypes)
	}
}
