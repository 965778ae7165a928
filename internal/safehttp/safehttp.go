// Package safehttp is the SSRF-guarded HTTP client of outbound calls
// (webhook attempts, SSO discovery).
package safehttp

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is a webhook URL that resolves to an address the
// service must not reach (SSRF guard).
var ErrForbiddenAddress = errors.New("address not allowed for webhooks")

// extraBlocked are ranges the net/netip predicates do not cover.
var extraBlocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),      // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),  // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),   // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),  // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),    // reserved, broadcast
	netip.MustParsePrefix("64:ff9b::/96"),   // NAT64 (could reach private IPv4)
	netip.MustParsePrefix("64:ff9b:1::/48"), // local-use NAT64
}

// Blocked reports whether a webhook may not be delivered to ip: loopback,
// private, link-local (cloud metadata), unspecified, multicast and reserved
// ranges. IPv4-mapped IPv6 addresses are judged as IPv4.
func Blocked(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() ||
		ip.IsInterfaceLocalMulticast() || ip.IsMulticast() || ip.IsUnspecified() {
		return true
	}
	for _, p := range extraBlocked {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// guardControl runs after DNS resolution, on the very address being dialed,
// so a hostname that resolves (or re-resolves) to a private address is
// refused too.
func guardControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if Blocked(ap.Addr()) {
		return fmt.Errorf("%w: %s is a loopback, private or reserved address", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// NewClient is the outbound client: no redirects (a 3xx is the attempt's
// answer), no proxy from the environment (it would bypass the guard),
// timeout per attempt, and the SSRF guard at dial time unless allowPrivate
// (local development and tests).
func NewClient(allowPrivate bool, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		dialer.Control = guardControl
	}
	tr := &http.Transport{
		Proxy:             nil,
		DialContext:       dialer.DialContext,
		ForceAttemptHTTP2: true,
		// Deliveries to one receiver run many at once (the relay's
		// concurrency): each keeps its connection for the next one rather
		// than dialing (and for HTTPS, handshaking) again.
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   5 * time.Second,
		ResponseHeaderTimeout: timeout,
	}
	return &http.Client{
		Transport:     tr,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
