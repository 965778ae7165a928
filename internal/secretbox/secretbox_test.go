package secretbox

import (
	"bytes"
	"strings"
	"testing"
)

func TestSealOpenRoundTripAndTamper(t *testing.T) {
	b, _, err := Load(strings.Repeat("ab", 32), true)
	if err != nil {
		t.Fatal(err)
	}
	s1, _ := b.Seal([]byte("whcs_secret"))
	s2, _ := b.Seal([]byte("whcs_secret"))
	if bytes.Equal(s1, s2) || bytes.Contains(s1, []byte("whcs_secret")) {
		t.Fatal("sealed values must differ per call and hide the plaintext")
	}
	got, err := b.Open(s1)
	if err != nil || string(got) != "whcs_secret" {
		t.Fatalf("open: %q %v", got, err)
	}
	s1[len(s1)-1] ^= 1
	if _, err := b.Open(s1); err == nil {
		t.Fatal("tampered value opened")
	}
	other, _, _ := Load(strings.Repeat("cd", 32), true)
	if _, err := other.Open(s2); err == nil {
		t.Fatal("opened with the wrong key")
	}
}

func TestLoad(t *testing.T) {
	if _, _, err := Load("", true); err == nil {
		t.Fatal("production without a key must fail")
	}
	if b, warn, err := Load("", false); err != nil || b == nil || warn == "" {
		t.Fatalf("development: %v %q", err, warn)
	}
	if _, _, err := Load("short", false); err == nil {
		t.Fatal("a malformed key must fail")
	}
	if _, _, err := Load("q83vEjRWeJq83vEjRWeJq83vEjRWeJq83vEjRWeJq80=", false); err != nil {
		t.Fatalf("base64 key: %v", err)
	}
}
