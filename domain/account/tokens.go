package account

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
)

// Claims of an access token. Role names the session org's role at issue time
// and is informational only: authorization reads the membership. BoundOrg,
// set (to OrgID) on a session started by single sign-on, confines the
// token to that org: it is signed, so it cannot be dropped.
type Claims struct {
	OrgID    string `json:"org_id"`
	Email    string `json:"email"`
	Role     string `json:"role"`
	BoundOrg string `json:"bound_org,omitempty"`
	jwt.RegisteredClaims
}

// Tokens issues and verifies access tokens (JWT, HS256).
type Tokens struct {
	Secret    []byte
	AccessTTL time.Duration
}

const issuer = "tracker"

// Issue signs an access token; bound confines it to orgID.
func (t Tokens) Issue(userID, orgID uuid.UUID, email, role string, bound bool, now time.Time) (string, error) {
	c := Claims{OrgID: orgID.String(), Email: email, Role: role, RegisteredClaims: jwt.RegisteredClaims{
		Subject: userID.String(), Issuer: issuer, IssuedAt: jwt.NewNumericDate(now),
		ExpiresAt: jwt.NewNumericDate(now.Add(t.AccessTTL)), ID: uuid.NewString(),
	}}
	if bound {
		c.BoundOrg = c.OrgID
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, c).SignedString(t.Secret)
}

var errBadToken = errors.New("invalid access token")

// Verify checks signature (HS256 only: alg none or any other is refused),
// expiry and issuer.
func (t Tokens) Verify(s string) (Claims, error) {
	var c Claims
	tok, err := jwt.ParseWithClaims(s, &c, func(*jwt.Token) (any, error) { return t.Secret, nil },
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}), jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired())
	if err != nil || !tok.Valid {
		return Claims{}, errBadToken
	}
	return c, nil
}

// NewSecret returns n random bytes as base64url text; refresh tokens, API
// keys and invite codes are made from it.
func NewSecret(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// HashToken is the SHA-256 stored for refresh tokens and API keys.
func HashToken(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}
