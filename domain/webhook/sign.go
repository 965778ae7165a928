package webhook

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Header names of a signed delivery.
const (
	HeaderSignature = "X-Service-Signature"
	HeaderEvent     = "X-Service-Event"
	HeaderDelivery  = "X-Service-Delivery"
	// Standard Webhooks (standardwebhooks.com).
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderStdSig    = "webhook-signature"
)

// SecretPrefix starts every webhook secret, as in Standard Webhooks.
const SecretPrefix = "whsec_"

// NewSecret is a random secret: whsec_ then 24 random bytes in standard
// base64 (32 characters, no padding).
func NewSecret() string {
	b := make([]byte, 24)
	_, _ = rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// deliveryNS namespaces the name-based UUIDs of delivery keys.
var deliveryNS = uuid.MustParse("6f1d3c1e-4b7a-5c8e-9f2d-1a3b5c7d9e0f")

// DeliveryKey is the id of one event's delivery to one webhook: the same for
// every attempt and every redelivery, so receivers can deduplicate on it
// (X-Service-Delivery and webhook-id).
func DeliveryKey(eventID, webhookID uuid.UUID) uuid.UUID {
	return uuid.NewSHA1(deliveryNS, append(eventID[:], webhookID[:]...))
}

// ServiceSignature is X-Service-Signature: sha256=<hex HMAC-SHA256 of the
// raw body keyed by the secret string exactly as it was shown>.
func ServiceSignature(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

// standardKey is the Standard Webhooks signing key: the base64 part of the
// secret, decoded, so the standard verifier libraries work unchanged. A
// secret that is not whsec_<base64> is used as raw bytes.
func standardKey(secret string) []byte {
	if s, ok := strings.CutPrefix(secret, SecretPrefix); ok {
		if k, err := base64.StdEncoding.DecodeString(s); err == nil {
			return k
		}
	}
	return []byte(secret)
}

// StandardSignature is webhook-signature: v1,<base64 HMAC-SHA256 of
// "<id>.<timestamp>.<body>">.
func StandardSignature(secret, id string, ts int64, body []byte) string {
	m := hmac.New(sha256.New, standardKey(secret))
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// SignedHeaders are the headers of one attempt to deliver body.
func SignedHeaders(secret, eventType string, key uuid.UUID, at time.Time, body []byte) http.Header {
	h := http.Header{}
	ts := at.Unix()
	h.Set("Content-Type", "application/json")
	h.Set(HeaderSignature, ServiceSignature(secret, body))
	h.Set(HeaderEvent, eventType)
	h.Set(HeaderDelivery, key.String())
	h.Set(HeaderID, key.String())
	h.Set(HeaderTimestamp, strconv.FormatInt(ts, 10))
	h.Set(HeaderStdSig, StandardSignature(secret, key.String(), ts, body))
	return h
}

// Verification errors.
var (
	ErrBadSignature = errors.New("webhook signature does not match")
	ErrStale        = errors.New("webhook timestamp outside the tolerance")
)

// Verify checks both signatures of a received delivery, and that its
// timestamp lies within tolerance of now (0: not checked). It is what a
// receiver runs; the tests use it too.
func Verify(secret string, h http.Header, body []byte, tolerance time.Duration, now time.Time) error {
	if !hmac.Equal([]byte(h.Get(HeaderSignature)), []byte(ServiceSignature(secret, body))) {
		return ErrBadSignature
	}
	ts, err := strconv.ParseInt(h.Get(HeaderTimestamp), 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	if tolerance > 0 {
		if d := now.Sub(time.Unix(ts, 0)); d > tolerance || d < -tolerance {
			return ErrStale
		}
	}
	want := StandardSignature(secret, h.Get(HeaderID), ts, body)
	// The header may carry several space-separated signatures (key rotation).
	for _, sig := range strings.Fields(h.Get(HeaderStdSig)) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return ErrBadSignature
}
