package chat

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strconv"
	"time"

	"github.com/slack-go/slack"

	"tracker/domain"
)

// Signed is a signed chat request as received: the signature and timestamp
// headers (X-Chat-Signature and X-Chat-Request-Timestamp, or Slack's own
// X-Slack-Signature and X-Slack-Request-Timestamp) and the raw body.
type Signed struct {
	Signature string
	Timestamp string
	Body      []byte
}

// Verify checks a request's signature with slack-go's SecretsVerifier on
// the raw bytes: v0=hex(HMAC-SHA256(secret, "v0:" + ts + ":" + body)),
// compared in constant time, the timestamp within five minutes of now
// (older or future requests are replays and refused). Any failure, and an
// unset secret, is 401 and nothing is parsed.
func (s *Service) Verify(r Signed) error {
	if s.SigningSecret == "" {
		return domain.Unauthorized("the chat integration is not configured (SERVICE_CHAT_SIGNING_SECRET)")
	}
	h := http.Header{}
	h.Set("X-Slack-Signature", r.Signature)
	h.Set("X-Slack-Request-Timestamp", r.Timestamp)
	v, err := slack.NewSecretsVerifier(h, s.SigningSecret)
	if err != nil {
		if err == slack.ErrExpiredTimestamp {
			return domain.Unauthorized("X-Chat-Request-Timestamp is more than five minutes from now")
		}
		return domain.Unauthorized("invalid or missing X-Chat-Signature")
	}
	if _, err := v.Write(r.Body); err != nil {
		return domain.Unauthorized("invalid or missing X-Chat-Signature")
	}
	if err := v.Ensure(); err != nil {
		return domain.Unauthorized("invalid or missing X-Chat-Signature")
	}
	return nil
}

// Sign signs a body as the chat service does (tests, tools).
func Sign(secret string, at time.Time, body []byte) (signature, timestamp string) {
	timestamp = strconv.FormatInt(at.Unix(), 10)
	m := hmac.New(sha256.New, []byte(secret))
	m.Write([]byte("v0:" + timestamp + ":"))
	m.Write(body)
	return "v0=" + hex.EncodeToString(m.Sum(nil)), timestamp
}
