package api

import (
	"bufio"
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// SSE writes one Server-Sent Events stream (text/event-stream).
type SSE struct {
	w *bufio.Writer
}

// Event writes one event, then flushes it to the client: id (what the
// client sends back as Last-Event-ID when it reconnects), an optional
// event type, and data (a newline in it starts another data line, as the
// format requires).
func (s SSE) Event(id, typ string, data []byte) error {
	if id != "" {
		_, _ = s.w.WriteString("id: " + oneLine(id) + "\n")
	}
	if typ != "" {
		_, _ = s.w.WriteString("event: " + oneLine(typ) + "\n")
	}
	for _, line := range strings.Split(string(data), "\n") {
		_, _ = s.w.WriteString("data: " + strings.TrimSuffix(line, "\r") + "\n")
	}
	_, _ = s.w.WriteString("\n")
	return s.w.Flush()
}

// Comment writes a comment line and flushes it: a heartbeat keeps proxies
// from closing an idle stream, and its failed write tells that the client
// is gone.
func (s SSE) Comment(text string) error {
	_, _ = s.w.WriteString(": " + oneLine(text) + "\n\n")
	return s.w.Flush()
}

func oneLine(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// StreamOptions tune a stream.
type StreamOptions struct {
	// Heartbeat is the interval of the heartbeat comment.
	Heartbeat time.Duration
	// MaxAge ends the stream cleanly after this long, below the app's write
	// timeout (which would cut it mid-event); the client reconnects with
	// Last-Event-ID and loses nothing. 0: no limit.
	MaxAge time.Duration
	// Retry is the reconnection delay the client is told (0: its default).
	Retry time.Duration
}

// DefaultStreamOptions: a heartbeat every 25 s, a stream ended after 4
// minutes (the app's write timeout is 5), clients asked to reconnect after
// a second.
var DefaultStreamOptions = StreamOptions{Heartbeat: 25 * time.Second, MaxAge: 4 * time.Minute, Retry: time.Second}

// StreamSource feeds a stream: Wake fires when there may be something new
// (it is read until ctx ends), and Send writes what is new since the last
// call, starting with the first call, made as the stream opens.
type StreamSource interface {
	Wake() <-chan struct{}
	Send(ctx context.Context, s SSE) error
	Close()
}

// Stream answers c with an SSE stream fed by src: Send at the start and at
// every wake, a heartbeat comment every o.Heartbeat, until a write fails
// (the client is gone), Send fails or MaxAge passes. One goroutine writes,
// so events and heartbeats never interleave. The stream is written after
// the handler returns (Fiber's SetBodyStreamWriter): src must not use c.
func Stream(c *fiber.Ctx, o StreamOptions, src StreamSource) error {
	c.Set(fiber.HeaderContentType, "text/event-stream; charset=utf-8")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no") // a proxy must not buffer the stream
	base := context.WithoutCancel(c.UserContext())
	c.Context().SetBodyStreamWriter(func(w *bufio.Writer) {
		defer src.Close()
		ctx, cancel := context.WithCancel(base)
		defer cancel()
		var expire <-chan time.Time
		if o.MaxAge > 0 {
			t := time.NewTimer(o.MaxAge)
			defer t.Stop()
			expire = t.C
		}
		beat := time.NewTicker(o.Heartbeat)
		defer beat.Stop()
		s := SSE{w: w}
		if o.Retry > 0 {
			_, _ = w.WriteString("retry: " + strconv.FormatInt(o.Retry.Milliseconds(), 10) + "\n")
		}
		if err := s.Comment("stream open"); err != nil {
			return
		}
		if err := src.Send(ctx, s); err != nil {
			return
		}
		wake := src.Wake()
		for {
			select {
			case <-expire:
				return
			case <-beat.C:
				if err := s.Comment("heartbeat"); err != nil {
					return
				}
			case <-wake:
				if err := src.Send(ctx, s); err != nil {
					return
				}
			}
		}
	})
	return nil
}

// SendBatches writes what next reads, batch by batch of n, as events (id
// and type of each from event) until a batch comes back short: all that is
// readable now. An error of next (the caller lost access) ends the stream.
func SendBatches[T any](ctx context.Context, w SSE, n int, next func(context.Context, int) ([]T, error), event func(T) (id, typ string)) error {
	for {
		batch, err := next(ctx, n)
		if err != nil {
			return err
		}
		for _, v := range batch {
			b, err := json.Marshal(v)
			if err != nil {
				return err
			}
			id, typ := event(v)
			if err := w.Event(id, typ, b); err != nil {
				return err
			}
		}
		if len(batch) < n {
			return nil
		}
	}
}
