// Package secretbox encrypts third-party secrets that the service must read
// back (SSO client secrets, integration tokens) with AES-256-GCM under the
// key from SERVICE_SECRETS_KEY. A sealed value is a version byte, a random
// 12-byte nonce and the ciphertext with its tag; the caller's associated
// data (for example the owning org id) binds a value to its row, so a
// ciphertext copied to another row does not open.
package secretbox

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// KeySize is the key length: AES-256.
const KeySize = 32

const version byte = 1

// ErrOpen is a value that does not decrypt under this key and associated
// data (tampered, truncated, or sealed under another key).
var ErrOpen = errors.New("secretbox: value does not open under this key")

// Box seals and opens values under one key. It is safe for concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New builds a box from a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secretbox: key must be %d bytes, got %d", KeySize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, err
	}
	return &Box{aead: aead}, nil
}

// ParseKey reads a 32-byte key written as 64 hex digits or as base64
// (standard or URL alphabet, padded or not).
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if b, err := hex.DecodeString(s); err == nil && len(b) == KeySize {
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil && len(b) == KeySize {
			return b, nil
		}
	}
	return nil, fmt.Errorf("secretbox: key must be %d bytes as 64 hex digits or base64", KeySize)
}

// RandomKey is a fresh key (development: secrets sealed with it are lost
// when the process ends).
func RandomKey() []byte {
	k := make([]byte, KeySize)
	_, _ = rand.Read(k)
	return k
}

// Seal encrypts plaintext bound to aad.
func (b *Box) Seal(plaintext, aad []byte) []byte {
	out := make([]byte, 1+b.aead.NonceSize(), 1+b.aead.NonceSize()+len(plaintext)+b.aead.Overhead())
	out[0] = version
	_, _ = rand.Read(out[1:])
	return b.aead.Seal(out, out[1:], plaintext, aad)
}

// Open decrypts a sealed value bound to aad.
func (b *Box) Open(sealed, aad []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < 1+n+b.aead.Overhead() || sealed[0] != version {
		return nil, ErrOpen
	}
	pt, err := b.aead.Open(nil, sealed[1:1+n], sealed[1+n:], aad)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}
