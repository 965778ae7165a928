package account

import (
	"os"
	"strings"
	"testing"
)

// TestMain lowers the cost of new password hashes for this package's tests
// (argon2's minimum memory and one pass): what they test is which password
// a hash accepts, not how long it takes. Production keeps owaspParams.
func TestMain(m *testing.M) {
	hashParams = argonParams{memory: 8, time: 1, threads: 1}
	os.Exit(m.Run())
}

// TestOWASPParams: new hashes outside the tests carry the OWASP parameters,
// and a hash with them verifies.
func TestOWASPParams(t *testing.T) {
	t.Parallel()
	if owaspParams != (argonParams{memory: 19456, time: 2, threads: 1}) {
		t.Fatalf("owaspParams = %+v, want m=19456, t=2, p=1", owaspParams)
	}
	h, err := hashWith("s3cret-password", owaspParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("not an OWASP argon2id PHC string: %s", h)
	}
	if ok, err := VerifyPassword(h, "s3cret-password"); !ok || err != nil {
		t.Fatalf("verify: %v %v", ok, err)
	}
}
