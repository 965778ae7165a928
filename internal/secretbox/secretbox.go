// Package secretbox encrypts third-party secrets at rest (code-host
// connection secrets, chat tokens) with AES-256-GCM under the key from
// SERVICE_SECRETS_KEY. A sealed value is nonce || ciphertext+tag.
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

// KeySize is the AES-256 key length in bytes.
const KeySize = 32

// Box seals and opens secrets with one key.
type Box struct {
	aead cipher.AEAD
}

// New builds a Box from a 32-byte key.
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

// Load reads SERVICE_SECRETS_KEY's value: 64 hex characters or the standard
// or URL base64 of 32 bytes. Empty is an error in production; in
// development a random per-process key is used and a warning returned
// (secrets stored by one process cannot be opened after a restart).
func Load(value string, production bool) (*Box, string, error) {
	value = strings.TrimSpace(value)
	if value == "" {
		if production {
			return nil, "", errors.New("SERVICE_SECRETS_KEY is required when SERVICE_PROFILE=production")
		}
		key := make([]byte, KeySize)
		if _, err := rand.Read(key); err != nil {
			return nil, "", err
		}
		b, err := New(key)
		return b, "SERVICE_SECRETS_KEY is not set: using a random key; stored integration secrets cannot be read after a restart", err
	}
	key, err := decodeKey(value)
	if err != nil {
		return nil, "", err
	}
	b, err := New(key)
	return b, "", err
}

func decodeKey(s string) ([]byte, error) {
	if len(s) == 2*KeySize {
		if k, err := hex.DecodeString(s); err == nil {
			return k, nil
		}
	}
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) == KeySize {
			return k, nil
		}
	}
	return nil, errors.New("SERVICE_SECRETS_KEY: must be 32 bytes as 64 hex characters or base64")
}

// Seal encrypts plaintext; each call uses a fresh random nonce.
func (b *Box) Seal(plaintext []byte) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	return b.aead.Seal(nonce, nonce, plaintext, nil), nil
}

// Open decrypts what Seal produced; a wrong key or tampered value fails.
func (b *Box) Open(sealed []byte) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("secretbox: sealed value too short")
	}
	out, err := b.aead.Open(nil, sealed[:n], sealed[n:], nil)
	if err != nil {
		return nil, errors.New("secretbox: cannot open (wrong key or tampered value)")
	}
	return out, nil
}
