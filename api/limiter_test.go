package api_test

import (
	"slices"
	"testing"

	"tracker/api"
)

func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := api.ParseProxies(" 10.0.0.0/8, 192.168.1.1 ,,fd00::/8")
	if err != nil || !slices.Equal(got, []string{"10.0.0.0/8", "192.168.1.1", "fd00::/8"}) {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := api.ParseProxies(""); err != nil || len(got) != 0 {
		t.Fatalf("empty: %v %v", got, err)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.local", "10.0.0"} {
		if _, err := api.ParseProxies(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
