package account_test

import (
	"strings"
	"testing"

	"tracker/domain/account"
)

func TestPasswordHash(t *testing.T) {
	t.Parallel()
	h, err := account.HashPassword("s3cret-password")
	if err != nil {
		t.Fatal(err)
	}
	// The tests hash at a lower cost (TestMain); TestOWASPParams checks
	// the production parameters.
	if !strings.HasPrefix(h, "$argon2id$v=19$m=8,t=1,p=1$") {
		t.Fatalf("not an argon2id PHC string with the tests' parameters: %s", h)
	}
	h2, _ := account.HashPassword("s3cret-password")
	if h == h2 {
		t.Fatal("salt not random")
	}
	if ok, err := account.VerifyPassword(h, "s3cret-password"); !ok || err != nil {
		t.Fatalf("verify: %v %v", ok, err)
	}
	if ok, _ := account.VerifyPassword(h, "s3cret-passworD"); ok {
		t.Fatal("wrong password accepted")
	}
	if _, err := account.VerifyPassword("$bcrypt$x", "x"); err == nil {
		t.Fatal("malformed hash accepted")
	}
}

func TestHashTokenIsSHA256(t *testing.T) {
	t.Parallel()
	if got := account.HashToken("abc"); len(got) != 32 {
		t.Fatalf("len %d", len(got))
	}
}
