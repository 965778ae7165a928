package safehttp

import (
	"net/netip"
	"testing"
)

func TestBlocked(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"0.0.0.0": true, "100.64.0.1": true, "::1": true, "fc00::1": true, "fe80::1": true, "::ffff:127.0.0.1": true,
		"::": true, "224.0.0.1": true, "8.8.8.8": false, "93.184.216.34": false, "2606:4700::1111": false,
	} {
		if got := Blocked(netip.MustParseAddr(s)); got != want {
			t.Errorf("Blocked(%s) = %v, want %v", s, got, want)
		}
	}
}
