package delivery

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"

	"github.com/google/uuid"
)

// tokens sign the unsubscribe links: a token is the user's id and an
// HMAC-SHA256 of it (truncated to 16 bytes), base64url. It never expires:
// RFC 8058 asks that an old email's link still work.
type tokens struct{ key []byte }

// newTokens derives the links' key from secret (the service's signing
// secret), so the key of sessions never signs a link nor a link a session.
func newTokens(secret []byte) tokens {
	m := hmac.New(sha256.New, secret)
	m.Write([]byte("tracker notification unsubscribe v1"))
	return tokens{key: m.Sum(nil)}
}

func (t tokens) mac(id uuid.UUID) []byte {
	m := hmac.New(sha256.New, t.key)
	m.Write(id[:])
	return m.Sum(nil)[:16]
}

// Sign is the unsubscribe token of a user.
func (t tokens) Sign(userID uuid.UUID) string {
	return base64.RawURLEncoding.EncodeToString(append(append([]byte{}, userID[:]...), t.mac(userID)...))
}

// Verify reads the user of a token; ok is false for anything this service
// did not sign.
func (t tokens) Verify(token string) (uuid.UUID, bool) {
	b, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(b) != 32 {
		return uuid.Nil, false
	}
	id, _ := uuid.FromBytes(b[:16])
	return id, hmac.Equal(b[16:], t.mac(id))
}
