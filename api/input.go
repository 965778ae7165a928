package api

import (
	"bytes"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

// DefaultBodyLimit is the body limit of every route but those registered
// with Router.Upload.
const DefaultBodyLimit = 1 << 20

// bodyLimits are the routes that take more than the default, by
// routeKey; the app-wide guard leaves their bodies unread, so they are read
// only after authentication. Filled while routes are registered, read-only
// once the app serves.
type bodyLimits map[string]int

func routeKey(method, path string) string {
	p := strings.ToLower(path)
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return method + " " + p
}

// prefixKey is the bodyLimits key of every path under prefix.
func prefixKey(method, prefix string) string { return "prefix " + method + " " + prefix }

// route is the limit of the Upload route that method and path name: its
// exact key, or a pattern whose :params match the path's segments
// (/orgs/:org_id/imports).
func (b bodyLimits) route(method, path string) (int, bool) {
	key := routeKey(method, path)
	if limit, ok := b[key]; ok {
		return limit, true
	}
	got := strings.Split(key, "/")
	for k, limit := range b {
		if !strings.Contains(k, "/:") {
			continue
		}
		want := strings.Split(k, "/")
		if len(want) != len(got) {
			continue
		}
		match := true
		for i := range want {
			if want[i] != got[i] && (!strings.HasPrefix(want[i], ":") || got[i] == "") {
				match = false
				break
			}
		}
		if match {
			return limit, true
		}
	}
	return 0, false
}

// underPrefix is the limit of a RootUpload prefix that path lies under.
func (b bodyLimits) underPrefix(method, path string) (int, bool) {
	for k, limit := range b {
		rest, ok := strings.CutPrefix(k, "prefix "+method+" ")
		if ok && strings.HasPrefix(path, rest) {
			return limit, true
		}
	}
	return 0, false
}

// guardInput rejects, before any handler runs, what no route may receive:
// a path or query value with a NUL character or invalid UTF-8 (422), a
// compressed body (400: decompressing is an amplification attack) and a
// body over the route's limit (413). The app streams request bodies, so a
// body over the limit is never held in memory.
func guardInput(def int, large bodyLimits) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if err := checkURL(c); err != nil {
			return err
		}
		if enc := strings.TrimSpace(c.Get(fiber.HeaderContentEncoding)); enc != "" && !strings.EqualFold(enc, "identity") {
			return domain.BadRequest("compressed request bodies (Content-Encoding) are not accepted")
		}
		if limit, ok := large.underPrefix(c.Method(), c.Path()); ok {
			if err := readBody(c, limit); err != nil {
				return err
			}
			return c.Next()
		}
		if _, ok := large.route(c.Method(), c.Path()); ok {
			err := c.Next()
			if c.Locals(localBodyRead) == nil {
				// Refused before its body was read (no credentials): the
				// unread rest must not be parsed as a next request.
				closeUnread(c)
			}
			return err
		}
		if err := readBody(c, def); err != nil {
			return err
		}
		return c.Next()
	}
}

// checkURL is the edge's text rule for the path and every query key and
// value, raw and percent-decoded.
func checkURL(c *fiber.Ctx) error {
	if !domain.ValidText(c.Path()) || !domain.ValidText(string(c.Request().URI().Path())) {
		return domain.Invalid("path: must be valid UTF-8 without NUL characters")
	}
	var p domain.Problems
	c.Context().QueryArgs().VisitAll(func(k, v []byte) {
		if len(p) > 0 {
			return
		}
		name := string(k)
		if !domain.ValidText(name) {
			p.Add("query", "parameter names must be valid UTF-8 without NUL characters")
		} else if !utf8.Valid(v) || !domain.ValidText(string(v)) {
			p.Add(name, "must be valid UTF-8 without NUL characters")
		}
	})
	return p.Err()
}

// readBody reads a streamed request body of at most limit bytes into the
// request, so c.Body() returns it; a longer one is a 413 and the connection
// closes (its unread rest is discarded, never parsed; see closeUnread).
func readBody(c *fiber.Ctx, limit int) error {
	req := c.Request()
	tooLarge := func() error {
		closeUnread(c)
		return domain.TooLarge("request body too large: at most " + humanBytes(limit))
	}
	if req.Header.ContentLength() > limit {
		return tooLarge()
	}
	s := req.BodyStream()
	if s == nil {
		return nil
	}
	buf, err := io.ReadAll(io.LimitReader(s, int64(limit)+1))
	if err != nil {
		return domain.BadRequest("could not read the request body")
	}
	if len(buf) > limit {
		return tooLarge()
	}
	req.SetBody(buf)
	return nil
}

const localBodyRead = "body_read"

// ReadBody is the handler that reads the body of an Upload route, after
// authentication, with the route's own limit.
func ReadBody(limit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(localBodyRead, true)
		if err := readBody(c, limit); err != nil {
			return err
		}
		return c.Next()
	}
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return strconv.Itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return strconv.Itoa(n>>10) + " KiB"
	}
	return strconv.Itoa(n) + " bytes"
}

const localStreamLimit = "stream_limit"

// StreamBody is the handler that lets an UploadStream route read its body
// itself (BodyStream), after authentication: a Content-Length over limit
// is a 413 at once. The connection closes after the response, so a rest
// the handler left unread is never parsed as a next request.
func StreamBody(limit int) fiber.Handler {
	return func(c *fiber.Ctx) error {
		c.Locals(localBodyRead, true)
		if c.Request().Header.ContentLength() > limit {
			closeUnread(c)
			return domain.TooLarge("request body too large: at most " + humanBytes(limit))
		}
		c.Locals(localStreamLimit, limit)
		err := c.Next()
		closeUnread(c)
		return err
	}
}

// BodyStream is the body of an UploadStream route as a stream of at most
// the route's limit: reading past it fails with a 413 error.
func BodyStream(c *fiber.Ctx) io.Reader {
	limit, _ := c.Locals(localStreamLimit).(int)
	var r io.Reader = c.Request().BodyStream()
	if r == nil {
		r = bytes.NewReader(c.Body())
	}
	return &limitedBody{r: r, left: int64(limit), limit: limit}
}

type limitedBody struct {
	r     io.Reader
	left  int64
	limit int
}

func (l *limitedBody) Read(p []byte) (int, error) {
	if l.left < 0 {
		return 0, domain.TooLarge("request body too large: at most " + humanBytes(l.limit))
	}
	if int64(len(p)) > l.left+1 {
		p = p[:l.left+1]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	if l.left < 0 {
		return n, domain.TooLarge("request body too large: at most " + humanBytes(l.limit))
	}
	return n, err
}
