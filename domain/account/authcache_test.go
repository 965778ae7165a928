package account

import (
	"testing"
	"time"
	"unsafe"

	"github.com/google/uuid"
)

// TestTokenCacheKeepsItsOwnKey: the edge hands Authenticate a bearer that
// aliases its request buffer, and the next request on the connection
// overwrites that buffer. A cache that kept the caller's string as its key
// would hold the first caller's claims under the second caller's token
// (and find them there once the map moves the entry, which rehashes it).
func TestTokenCacheKeepsItsOwnKey(t *testing.T) {
	s := &Service{Tokens: Tokens{Secret: []byte("cache-test-secret"), AccessTTL: time.Hour}}
	org := uuid.New()
	alice, bob := uuid.New(), uuid.New()
	a, err := s.Tokens.Issue(alice, org, "alice@example.test", "Owner", false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Tokens.Issue(bob, org, "bobby@example.test", "Owner", false, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("the tokens differ in length (%d, %d): the overwrite below needs equal lengths", len(a), len(b))
	}
	buf := []byte(a)
	if got, ok := s.verifiedToken(unsafe.String(&buf[0], len(buf))); !ok || got.uid != alice {
		t.Fatalf("alice's token: %+v %v", got, ok)
	}
	copy(buf, b) // the buffer's next request
	s.cache.tokens.Range(func(k, v any) bool {
		if k.(string) == b && v.(cachedToken).uid != bob {
			t.Errorf("bob's token is cached with the claims of %v", v.(cachedToken).uid)
		}
		return true
	})
	if got, ok := s.verifiedToken(a); !ok || got.uid != alice {
		t.Fatalf("alice's token answered as %v (ok %v), want alice %v", got.uid, ok, alice)
	}
}
