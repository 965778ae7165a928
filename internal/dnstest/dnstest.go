// Package dnstest runs a real DNS server (miekg/dns) on loopback for tests
// of domain verification: the service's resolver is pointed at it
// (SERVICE_DNS_RESOLVER), and a test publishes TXT records as a domain's
// owner would.
package dnstest

import (
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/miekg/dns"
)

// Server answers TXT queries from the records a test set; any other name
// is NXDOMAIN.
type Server struct {
	// Addr is host:port of the server (UDP).
	Addr string

	mu  sync.Mutex
	txt map[string][]string
}

// Start runs a server on a loopback UDP port until the test ends (its
// answers are small: a resolver never needs TCP for them).
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{txt: map[string][]string{}}
	pc, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = pc.LocalAddr().String()
	udp := &dns.Server{PacketConn: pc, Handler: s}
	go func() { _ = udp.ActivateAndServe() }()
	t.Cleanup(func() { _ = udp.Shutdown() })
	return s
}

// SetTXT publishes the TXT records of name (none: the name goes).
func (s *Server) SetTXT(name string, values ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.txt[dns.Fqdn(strings.ToLower(name))] = values
}

// ServeDNS answers one query.
func (s *Server) ServeDNS(w dns.ResponseWriter, req *dns.Msg) {
	m := new(dns.Msg)
	m.SetReply(req)
	m.Authoritative = true
	s.mu.Lock()
	for _, q := range req.Question {
		values, ok := s.txt[strings.ToLower(q.Name)]
		if !ok || len(values) == 0 {
			m.Rcode = dns.RcodeNameError
			continue
		}
		if q.Qtype != dns.TypeTXT {
			continue
		}
		for _, v := range values {
			m.Answer = append(m.Answer, &dns.TXT{Hdr: dns.RR_Header{Name: q.Name, Rrtype: dns.TypeTXT, Class: dns.ClassINET, Ttl: 60},
				Txt: chunks(v)})
		}
	}
	s.mu.Unlock()
	_ = w.WriteMsg(m)
}

// chunks splits a value into the 255-byte strings a TXT record holds.
func chunks(v string) []string {
	var out []string
	for len(v) > 255 {
		out = append(out, v[:255])
		v = v[255:]
	}
	return append(out, v)
}
