package stackrun

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	"sync"
	"sync/atomic"
	"time"
)

// HeaderBackend names the replica that answered (api-1, api-2) on every
// response the proxy relays, so a test can tell where a request went.
const HeaderBackend = "X-Stack-Backend"

// maxReplayBody is the largest request body the proxy keeps so that a
// request whose replica refused the connection can go to the next one;
// larger (or chunked) bodies stream through and are not retried.
const maxReplayBody = 16 << 20

// downFor is how long a replica that refused a connection is skipped.
const downFor = time.Second

// Proxy is a round-robin HTTP reverse proxy over a stack's API replicas, as
// a load balancer in front of them would be. A replica that refuses the
// connection (killed, restarting) is skipped for a second and the request
// goes to the next one: it never reached the refusing replica, so any
// method may be sent again. A replica that fails after the request reached
// it answers 502 with the error envelope; the client decides whether to
// retry (with an Idempotency-Key, safely).
type Proxy struct {
	URL string

	srv      *http.Server
	ln       net.Listener
	mu       sync.RWMutex
	backends []*backend
	next     atomic.Uint64
}

type backend struct {
	name      string
	host      string
	downUntil atomic.Int64 // unix nanoseconds
}

type pickKey struct{}

// Listen starts a proxy on addr with no backends yet (SetBackends).
func Listen(addr string) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &Proxy{URL: "http://" + ln.Addr().String(), ln: ln}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.SetXForwarded()
			r.Out.URL.Scheme = "http"
			r.Out.Host = r.In.Host // the replicas see the address the client used
		},
		Transport: &failover{p: p, rt: &http.Transport{
			Proxy:               nil,
			DialContext:         (&net.Dialer{Timeout: 2 * time.Second}).DialContext,
			MaxIdleConnsPerHost: 256,
			IdleConnTimeout:     90 * time.Second,
		}},
		FlushInterval: -1,
		ModifyResponse: func(res *http.Response) error {
			if b, ok := res.Request.Context().Value(pickKey{}).(*backend); ok {
				res.Header.Set(HeaderBackend, b.name)
			}
			return nil
		},
		ErrorHandler: func(w http.ResponseWriter, r *http.Request, err error) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadGateway)
			_, _ = io.WriteString(w, `{"error":{"code":"BAD_GATEWAY","message":"no replica answered","details":[]}}`)
		},
	}
	p.srv = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Keep a small body so that a refused connection can go elsewhere.
		if r.Body != nil && r.ContentLength > 0 && r.ContentLength <= maxReplayBody {
			b, err := io.ReadAll(r.Body)
			if err != nil {
				w.WriteHeader(http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(b))
			r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		}
		rp.ServeHTTP(w, r)
	}), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = p.srv.Serve(ln) }()
	return p, nil
}

// SetBackends makes procs the proxy's replicas.
func (p *Proxy) SetBackends(procs []*Proc) {
	bs := make([]*backend, 0, len(procs))
	for _, pr := range procs {
		bs = append(bs, &backend{name: pr.Name, host: pr.Addr})
	}
	p.mu.Lock()
	p.backends = bs
	p.mu.Unlock()
}

// Close stops the proxy.
func (p *Proxy) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	return p.srv.Shutdown(ctx)
}

// failover sends a request to the next replica in turn, and on to the
// following ones while they refuse the connection.
type failover struct {
	p  *Proxy
	rt http.RoundTripper
}

func (f *failover) RoundTrip(req *http.Request) (*http.Response, error) {
	f.p.mu.RLock()
	bs := f.p.backends
	f.p.mu.RUnlock()
	if len(bs) == 0 {
		return nil, errors.New("no replicas")
	}
	start := f.p.next.Add(1)
	now := time.Now().UnixNano()
	// In turn from the next one; replicas marked down go last.
	order := make([]*backend, 0, len(bs))
	var down []*backend
	for i := range bs {
		b := bs[(start+uint64(i))%uint64(len(bs))]
		if b.downUntil.Load() > now {
			down = append(down, b)
		} else {
			order = append(order, b)
		}
	}
	order = append(order, down...)
	var lastErr error
	for i, b := range order {
		out := req.Clone(context.WithValue(req.Context(), pickKey{}, b))
		out.URL.Host = b.host
		if i > 0 && req.GetBody != nil {
			body, err := req.GetBody()
			if err != nil {
				return nil, err
			}
			out.Body = body
		}
		res, err := f.rt.RoundTrip(out)
		if err == nil {
			return res, nil
		}
		lastErr = err
		if !refused(err) || (req.Body != nil && req.Body != http.NoBody && req.GetBody == nil) {
			return nil, err
		}
		b.downUntil.Store(time.Now().Add(downFor).UnixNano())
	}
	return nil, lastErr
}

// refused tells an error of connecting: the request never reached the replica.
func refused(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}
