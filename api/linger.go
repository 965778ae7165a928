package api

import (
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gofiber/fiber/v2"
)

// A connection refused with its body unread lingers before it closes: it
// stops sending (FIN after the answer), then reads and discards what the
// client is still sending, up to lingerBytes or lingerTime, and only then
// closes. Closing at once with unread bytes in the receive buffer makes the
// kernel send a reset, which destroys the answer the client has not read
// yet: an ordinary HTTP client, still writing its body, reports
// "connection reset by peer" and never sees the 413. A client that sends
// more than lingerBytes is no longer read from, but the connection stays
// open until lingerGrace has passed: on a fast link the bytes go by in
// milliseconds, before the client's reader has been scheduled.
const (
	lingerBytes = 8 << 20
	lingerTime  = 5 * time.Second
	lingerGrace = time.Second
)

// Listen serves app on addr (with TLS when certFile is set) through a
// listener whose connections linger after a refused body; app.Listen would
// close them at once.
func Listen(app *fiber.App, addr, certFile, keyFile string) error {
	ln, err := net.Listen(app.Config().Network, addr)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	ln = LingerListener(ln)
	if certFile != "" {
		cert, err := tls.LoadX509KeyPair(certFile, keyFile)
		if err != nil {
			_ = ln.Close()
			return fmt.Errorf("tls: %w", err)
		}
		ln = tls.NewListener(ln, &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}})
	}
	return app.Listener(ln)
}

// LingerListener wraps ln so that a connection closeUnread marked lingers
// before it closes.
func LingerListener(ln net.Listener) net.Listener { return lingerListener{ln} }

type lingerListener struct{ net.Listener }

func (l lingerListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &lingerConn{Conn: c}, nil
}

type lingerConn struct {
	net.Conn
	unread atomic.Bool
	once   sync.Once
}

// Close closes at once, or, when the connection was refused with its body
// unread, returns at once and lingers in the background: the server's
// worker is not held for the linger.
func (c *lingerConn) Close() error {
	var err error
	c.once.Do(func() {
		if !c.unread.Load() {
			err = c.Conn.Close()
			return
		}
		go c.linger()
	})
	return err
}

func (c *lingerConn) linger() {
	defer c.Conn.Close()
	start := time.Now()
	if hc, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		_ = hc.CloseWrite()
	}
	_ = c.Conn.SetReadDeadline(start.Add(lingerTime))
	// The bytes are discarded, never parsed: nothing the client sent after
	// the refused request's head can be taken for a next request.
	if n, _ := io.CopyN(io.Discard, c.Conn, lingerBytes); n == lingerBytes {
		time.Sleep(time.Until(start.Add(lingerGrace)))
	}
}

// closeUnread marks the request's connection to close after the answer,
// its unread body never parsed as a next request, lingering (when served
// through LingerListener) so the client reads the answer.
func closeUnread(c *fiber.Ctx) {
	c.Context().SetConnectionClose()
	conn := c.Context().Conn()
	for conn != nil {
		switch v := conn.(type) {
		case *lingerConn:
			v.unread.Store(true)
			return
		case interface{ NetConn() net.Conn }: // TLS
			conn = v.NetConn()
		default:
			return
		}
	}
}
