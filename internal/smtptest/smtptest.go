// Package smtptest is a real SMTP server in the test's process (go-smtp)
// that keeps what it receives, for tests of email delivery. It can refuse
// a recipient (a 5xx or 4xx to RCPT TO) to play a mailbox that does not
// exist or a server that is busy.
package smtptest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"net/mail"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
)

// Message is one received email, parsed.
type Message struct {
	From   string
	To     []string
	Header mail.Header
	// Subject is the decoded Subject header.
	Subject string
	// Text and HTML are the decoded text/plain and text/html parts.
	Text, HTML string
	Raw        []byte
}

// Server is a running SMTP server; it stops when the test ends.
type Server struct {
	Addr    string // host:port
	mu      sync.Mutex
	got     []Message
	refuse  map[string][]int // recipient → the codes of its next RCPT TOs (the last one sticks)
	srv     *smtp.Server
	tb      testing.TB
	arrived chan struct{}
}

// Start runs a server on a free loopback port (no TLS, no auth).
func Start(t testing.TB) *Server {
	t.Helper()
	s := &Server{refuse: map[string][]int{}, tb: t, arrived: make(chan struct{}, 1024)}
	s.srv = smtp.NewServer(backend{s})
	s.srv.Domain = "localhost"
	s.srv.ReadTimeout, s.srv.WriteTimeout = 30*time.Second, 30*time.Second
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = l.Addr().String()
	go func() { _ = s.srv.Serve(l) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// URL is the server as SERVICE_SMTP_URL names it.
func (s *Server) URL() string { return "smtp://" + s.Addr }

// Refuse makes the next RCPT TOs of addr answer codes, one each; the last
// code answers every later one too (550: the mailbox does not exist; 451:
// try again later).
func (s *Server) Refuse(addr string, codes ...int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse[strings.ToLower(addr)] = codes
}

// Messages are the emails received so far.
func (s *Server) Messages() []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Message(nil), s.got...)
}

// Wait waits until n emails have arrived in all (or fails the test after
// timeout) and returns them.
func (s *Server) Wait(n int, timeout time.Duration) []Message {
	s.tb.Helper()
	deadline := time.After(timeout)
	for {
		if got := s.Messages(); len(got) >= n {
			return got
		}
		select {
		case <-s.arrived:
		case <-deadline:
			s.tb.Fatalf("smtptest: %d emails after %s, want %d", len(s.Messages()), timeout, n)
		}
	}
}

type backend struct{ s *Server }

func (b backend) NewSession(*smtp.Conn) (smtp.Session, error) { return &session{s: b.s}, nil }

type session struct {
	s    *Server
	from string
	to   []string
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }
func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error {
	x.s.mu.Lock()
	codes := x.s.refuse[strings.ToLower(to)]
	code := 0
	if len(codes) > 0 {
		code = codes[0]
		if len(codes) > 1 {
			x.s.refuse[strings.ToLower(to)] = codes[1:]
		}
	}
	x.s.mu.Unlock()
	switch {
	case code >= 500:
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such mailbox: " + to}
	case code >= 400:
		return &smtp.SMTPError{Code: code, EnhancedCode: smtp.EnhancedCode{4, 2, 1}, Message: "busy, try again later"}
	}
	x.to = append(x.to, to)
	return nil
}

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parse(raw)
	if err != nil {
		return &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "smtptest: " + err.Error()}
	}
	m.From, m.To = x.from, x.to
	x.s.mu.Lock()
	x.s.got = append(x.s.got, m)
	x.s.mu.Unlock()
	x.s.arrived <- struct{}{}
	return nil
}

func parse(raw []byte) (Message, error) {
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return Message{}, err
	}
	m := Message{Header: msg.Header, Raw: raw}
	if m.Subject, err = new(mime.WordDecoder).DecodeHeader(msg.Header.Get("Subject")); err != nil {
		return m, err
	}
	mt, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return m, err
	}
	if !strings.HasPrefix(mt, "multipart/") {
		b, err := io.ReadAll(msg.Body)
		m.Text = string(b)
		return m, err
	}
	mr := multipart.NewReader(msg.Body, params["boundary"])
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return m, err
		}
		b, err := io.ReadAll(p) // NextPart decodes quoted-printable
		if err != nil {
			return m, err
		}
		switch ct, _, _ := mime.ParseMediaType(p.Header.Get("Content-Type")); ct {
		case "text/plain":
			m.Text = string(b)
		case "text/html":
			m.HTML = string(b)
		default:
			return m, fmt.Errorf("unexpected part %s", ct)
		}
	}
}
