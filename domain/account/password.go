// Package account holds the use cases of users, sessions, API keys and
// onboarding, and the authentication of every request.
package account

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// argonParams is the cost of an Argon2id hash.
type argonParams struct {
	memory, time uint32 // KiB, passes
	threads      uint8
}

// owaspParams are the Argon2id parameters from the OWASP password storage
// cheat sheet (m=19 MiB, t=2, p=1).
var owaspParams = argonParams{memory: 19 * 1024, time: 2, threads: 1}

// hashParams are the parameters of new hashes: owaspParams. Only this
// package's tests lower them (TestMain), since the cost is not what they
// test and a mutation run repeats them once per mutant; a hash is always
// verified with the parameters written in it.
var hashParams = owaspParams

const (
	argonKeyLen  = 32
	argonSaltLen = 16
)

// HashPassword returns an Argon2id PHC string.
func HashPassword(pw string) (string, error) { return hashWith(pw, hashParams) }

func hashWith(pw string, c argonParams) (string, error) {
	salt := make([]byte, argonSaltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", err
	}
	key := argon2.IDKey([]byte(pw), salt, c.time, c.memory, c.threads, argonKeyLen)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, c.memory, c.time, c.threads,
		base64.RawStdEncoding.EncodeToString(salt), base64.RawStdEncoding.EncodeToString(key)), nil
}

var errBadHash = errors.New("malformed password hash")

// VerifyPassword checks pw against a PHC string with the parameters stored
// in it, in constant time.
func VerifyPassword(phc, pw string) (bool, error) {
	parts := strings.Split(phc, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errBadHash
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	var m, t uint32
	var p uint8
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false, errBadHash
	}
	salt, err := base64.RawStdEncoding.DecodeString(parts[4])
	if err != nil {
		return false, errBadHash
	}
	want, err := base64.RawStdEncoding.DecodeString(parts[5])
	if err != nil {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, p, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
