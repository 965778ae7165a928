package api

import (
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

// ETag is the strong entity tag of a resource at row version v: it names
// the stored row's version (every change of the row bumps it), so it is
// compared as is in If-Match and If-None-Match.
func ETag(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }

// VariantWatching marks the ETag of a ticket read by someone who watches
// it: watching is part of that answer but not of the row, so a GET's tag
// must change when it does, or If-None-Match would keep a stale one.
const VariantWatching = "watching"

// variants are the suffixes a tag may carry after its version; If-Match
// reads past them (the write is conditional on the row, not on who read it).
var variants = map[string]bool{VariantWatching: true}

// ETagVariant is ETag(v) for an answer that also depends on the caller:
// "<v>-<variant>", or ETag(v) when variant is "".
func ETagVariant(v int64, variant string) string {
	if variant == "" {
		return ETag(v)
	}
	return `"` + strconv.FormatInt(v, 10) + "-" + variant + `"`
}

// SetETag sends v as the response's ETag.
func SetETag(c *fiber.Ctx, v int64) { c.Set(fiber.HeaderETag, ETag(v)) }

// SetETagVariant sends ETagVariant(v, variant) as the response's ETag.
func SetETagVariant(c *fiber.Ctx, v int64, variant string) {
	c.Set(fiber.HeaderETag, ETagVariant(v, variant))
}

// tagVersion is the row version a strong tag names: "<n>" or
// "<n>-<variant>" with a known variant; ok is false for anything else
// (a weak tag included).
func tagVersion(tag string) (int64, bool) {
	if len(tag) < 3 || tag[0] != '"' || tag[len(tag)-1] != '"' {
		return 0, false
	}
	body := tag[1 : len(tag)-1]
	if n, variant, cut := strings.Cut(body, "-"); cut {
		if !variants[variant] {
			return 0, false
		}
		body = n
	}
	v, err := strconv.ParseInt(body, 10, 64)
	return v, err == nil
}

// Send answers v as JSON with status; a resource that knows its row version
// (domain.Versioned) carries it as the ETag.
func Send(c *fiber.Ctx, status int, v any) error {
	if r, ok := v.(domain.Versioned); ok {
		SetETag(c, r.RowVersion())
	}
	return c.Status(status).JSON(v)
}

// IfMatch makes the route's write conditional (RFC 9110 If-Match): the
// versions named by the header travel in the request context to the use
// case, which writes only while the row is at one of them and answers 412
// PRECONDITION_FAILED otherwise. "*" (any current version) and no header
// are unconditional; weak tags never match (strong comparison). A tag with
// a variant ("<n>-watching", what a ticket's GET sends its watchers) names
// version n like "<n>".
func IfMatch(c *fiber.Ctx) error {
	h := strings.TrimSpace(c.Get(fiber.HeaderIfMatch))
	if h == "" || h == "*" {
		return c.Next()
	}
	versions := []int64{}
	for _, tag := range strings.Split(h, ",") {
		if v, ok := tagVersion(strings.TrimSpace(tag)); ok {
			versions = append(versions, v)
		}
	}
	c.SetUserContext(domain.WithIfMatch(c.UserContext(), versions))
	return c.Next()
}

// notModified answers a GET whose If-None-Match names the response's ETag
// with 304 and no body (weak comparison, as RFC 9110 asks for GET).
func notModified(c *fiber.Ctx) error {
	if err := c.Next(); err != nil {
		return err
	}
	if c.Method() != fiber.MethodGet && c.Method() != fiber.MethodHead {
		return nil
	}
	inm := c.Get(fiber.HeaderIfNoneMatch)
	res := c.Response()
	if inm == "" || res.StatusCode() != fiber.StatusOK {
		return nil
	}
	etag := string(res.Header.Peek(fiber.HeaderETag))
	if etag == "" {
		return nil
	}
	for _, tag := range strings.Split(inm, ",") {
		tag = strings.TrimSpace(tag)
		if tag == "*" || strings.TrimPrefix(tag, "W/") == strings.TrimPrefix(etag, "W/") {
			res.ResetBody()
			res.Header.Del(fiber.HeaderContentType)
			c.Status(fiber.StatusNotModified)
			return nil
		}
	}
	return nil
}
