package secretbox

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"testing"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	box, err := New(RandomKey())
	if err != nil {
		t.Fatal(err)
	}
	secret := []byte("client-secret-value")
	a := box.Seal(secret, []byte("org-1"))
	b := box.Seal(secret, []byte("org-1"))
	if bytes.Equal(a, b) {
		t.Fatal("two seals of one value are equal: nonce reused")
	}
	if bytes.Contains(a, secret) {
		t.Fatal("plaintext visible in the sealed value")
	}
	got, err := box.Open(a, []byte("org-1"))
	if err != nil || !bytes.Equal(got, secret) {
		t.Fatalf("open: %q %v", got, err)
	}
	if _, err := box.Open(a, []byte("org-2")); err != ErrOpen {
		t.Fatalf("other associated data opened: %v", err)
	}
	tampered := bytes.Clone(a)
	tampered[len(tampered)-1] ^= 1
	if _, err := box.Open(tampered, []byte("org-1")); err != ErrOpen {
		t.Fatalf("tampered value opened: %v", err)
	}
	other, _ := New(RandomKey())
	if _, err := other.Open(a, []byte("org-1")); err != ErrOpen {
		t.Fatalf("other key opened: %v", err)
	}
	if _, err := box.Open(a[:5], []byte("org-1")); err != ErrOpen {
		t.Fatalf("truncated value opened: %v", err)
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	k := RandomKey()
	for _, s := range []string{hex.EncodeToString(k), base64.StdEncoding.EncodeToString(k), base64.RawURLEncoding.EncodeToString(k)} {
		got, err := ParseKey(s)
		if err != nil || !bytes.Equal(got, k) {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, s := range []string{"", "short", hex.EncodeToString(k[:16])} {
		if _, err := ParseKey(s); err == nil {
			t.Fatalf("%q accepted", s)
		}
	}
	if _, err := New(k[:16]); err == nil {
		t.Fatal("16-byte key accepted")
	}
}
