package objectstore

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"tracker/internal/disposition"
)

// Local is the embedded store: files under Dir, presigned URLs under
// BaseURL (the service's own /storage/ route) signed with HMAC-SHA256 over
// the method, key, expiry, content type, content length and disposition.
type Local struct {
	Dir     string // objects under Dir/objects, metadata under Dir/meta
	BaseURL string // e.g. http://localhost:3000/storage
	Secret  []byte // the signing key; URLs die with it
	Now     func() time.Time
}

// StoragePrefix is the path the API serves the local store's URLs under.
const StoragePrefix = "/storage/"

// Query parameters of a local presigned URL.
const (
	QueryExpires     = "X-Tracker-Expires"
	QueryType        = "X-Tracker-Content-Type"
	QueryLength      = "X-Tracker-Content-Length"
	QueryDisposition = "X-Tracker-Disposition"
	QuerySignature   = "X-Tracker-Signature"
)

// Signature errors (the storage route answers 403 with the reason).
var (
	ErrBadSignature = errors.New("signature does not match")
	ErrExpired      = errors.New("request has expired")
	ErrBadKey       = errors.New("invalid object key")
)

// NewLocal builds the store; directories are created on the first upload.
func NewLocal(dir, baseURL string, secret []byte, now func() time.Time) (*Local, error) {
	if len(secret) == 0 {
		return nil, errors.New("local object store: a signing secret is required")
	}
	if now == nil {
		now = time.Now
	}
	return &Local{Dir: dir, BaseURL: strings.TrimRight(baseURL, "/"), Secret: secret, Now: now}, nil
}

// Kind is "local".
func (l *Local) Kind() string { return "local" }

func (l *Local) sign(method, key string, expires int64, ctype, length, disposition string) string {
	m := hmac.New(sha256.New, l.Secret)
	fmt.Fprintf(m, "%s\n%s\n%d\n%s\n%s\n%s", method, key, expires, ctype, length, disposition)
	return hex.EncodeToString(m.Sum(nil))
}

func (l *Local) url(key string, q url.Values) string {
	parts := strings.Split(key, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return l.BaseURL + "/" + strings.Join(parts, "/") + "?" + q.Encode()
}

// PresignPut signs a PUT of exactly size bytes of contentType.
func (l *Local) PresignPut(_ context.Context, key, contentType string, size int64, ttl time.Duration) (Presigned, error) {
	if !ValidKey(key) {
		return Presigned{}, ErrBadKey
	}
	exp := l.Now().Add(ttl).Unix()
	length := strconv.FormatInt(size, 10)
	q := url.Values{QueryExpires: {strconv.FormatInt(exp, 10)}, QueryType: {contentType}, QueryLength: {length}}
	q.Set(QuerySignature, l.sign("PUT", key, exp, contentType, length, ""))
	return Presigned{URL: l.url(key, q), Method: "PUT", Headers: map[string]string{"Content-Type": contentType, "Content-Length": length,
		IfNoneMatch: "*"}}, nil
}

// PresignGet signs a download answered as an attachment named filename.
func (l *Local) PresignGet(_ context.Context, key, filename string, ttl time.Duration) (string, error) {
	if !ValidKey(key) {
		return "", ErrBadKey
	}
	exp := l.Now().Add(ttl).Unix()
	disp := disposition.Attachment(filename)
	q := url.Values{QueryExpires: {strconv.FormatInt(exp, 10)}, QueryDisposition: {disp}}
	q.Set(QuerySignature, l.sign("GET", key, exp, "", "", disp))
	return l.url(key, q), nil
}

// Verify checks a request to the storage route: a valid key, an unexpired
// URL, and a signature over the method and the signed parameters. For a PUT
// the request's Content-Type and Content-Length must be the signed ones, and
// it must send If-None-Match: * as S3 requires of the same URL (the local
// store refuses to overwrite a key either way; asking for the header keeps
// a client written against it working against S3).
func (l *Local) Verify(method, key string, q url.Values, contentType string, contentLength int64, ifNoneMatch string) error {
	if !ValidKey(key) {
		return ErrBadKey
	}
	exp, err := strconv.ParseInt(q.Get(QueryExpires), 10, 64)
	if err != nil {
		return ErrBadSignature
	}
	var want string
	switch method {
	case "PUT":
		want = l.sign("PUT", key, exp, q.Get(QueryType), q.Get(QueryLength), "")
	case "GET", "HEAD":
		want = l.sign("GET", key, exp, "", "", q.Get(QueryDisposition))
	default:
		return ErrBadSignature
	}
	if !hmac.Equal([]byte(want), []byte(q.Get(QuerySignature))) {
		return ErrBadSignature
	}
	if l.Now().Unix() > exp {
		return ErrExpired
	}
	if method == "PUT" && (contentType != q.Get(QueryType) || strconv.FormatInt(contentLength, 10) != q.Get(QueryLength) ||
		strings.TrimSpace(ifNoneMatch) != "*") {
		return ErrBadSignature
	}
	return nil
}

// ValidKey admits relative slash-separated keys without empty, dot or
// dot-dot segments, backslashes or control characters.
func ValidKey(key string) bool {
	if key == "" || len(key) > 1024 || strings.ContainsAny(key, "\\") {
		return false
	}
	for _, r := range key {
		if r < 0x20 || r == 0x7f {
			return false
		}
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

func (l *Local) dataPath(key string) string {
	return filepath.Join(l.Dir, "objects", filepath.FromSlash(key))
}
func (l *Local) metaPath(key string) string {
	return filepath.Join(l.Dir, "meta", filepath.FromSlash(key)) + ".json"
}

type meta struct {
	ContentType string `json:"content_type"`
}

// Write stores exactly size bytes from r under key (the storage route's
// PUT, after Verify); fewer or more bytes leave nothing behind. A key is
// written once: an upload to a key that holds an object is ErrExists, and
// of two concurrent uploads to one key exactly one is stored.
func (l *Local) Write(key, contentType string, size int64, r io.Reader) error {
	if !ValidKey(key) {
		return ErrBadKey
	}
	if _, err := os.Stat(l.metaPath(key)); err == nil {
		return ErrExists
	}
	tmpDir := filepath.Join(l.Dir, "tmp")
	if err := os.MkdirAll(tmpDir, 0o750); err != nil {
		return err
	}
	data, err := writeTemp(tmpDir, "put-*", io.LimitReader(r, size+1))
	if err != nil {
		return err
	}
	defer os.Remove(data.name)
	if data.n != size {
		return fmt.Errorf("%w: got %d bytes, signed %d", ErrBadSignature, data.n, size)
	}
	b, _ := json.Marshal(meta{ContentType: contentType})
	m, err := writeTemp(tmpDir, "meta-*", bytes.NewReader(b))
	if err != nil {
		return err
	}
	defer os.Remove(m.name)
	for _, p := range []string{l.dataPath(key), l.metaPath(key)} {
		if err := os.MkdirAll(filepath.Dir(p), 0o750); err != nil {
			return err
		}
	}
	// A hard link fails when its target exists: the metadata file is the
	// key's claim, taken atomically, then the bytes are linked in. Head
	// reads the bytes, so an object is never seen without its type.
	if err := os.Link(m.name, l.metaPath(key)); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return err
	}
	if err := os.Link(data.name, l.dataPath(key)); err != nil {
		_ = os.Remove(l.metaPath(key))
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		return err
	}
	return nil
}

type tempFile struct {
	name string
	n    int64
}

// writeTemp copies r into a new file in dir.
func writeTemp(dir, pattern string, r io.Reader) (tempFile, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return tempFile{}, err
	}
	n, err := io.Copy(f, r)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return tempFile{}, err
	}
	return tempFile{name: f.Name(), n: n}, nil
}

// Open reads an object for the storage route's GET.
func (l *Local) Open(key string) (*os.File, Object, error) {
	o, err := l.Head(context.Background(), key)
	if err != nil {
		return nil, o, err
	}
	f, err := os.Open(l.dataPath(key))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, o, ErrNotFound
	}
	return f, o, err
}

// Head describes an object.
func (l *Local) Head(_ context.Context, key string) (Object, error) {
	if !ValidKey(key) {
		return Object{}, ErrNotFound
	}
	st, err := os.Stat(l.dataPath(key))
	if errors.Is(err, fs.ErrNotExist) || (err == nil && st.IsDir()) {
		return Object{}, ErrNotFound
	}
	if err != nil {
		return Object{}, err
	}
	var m meta
	if b, err := os.ReadFile(l.metaPath(key)); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	return Object{Key: key, Size: st.Size(), ContentType: m.ContentType, LastModified: st.ModTime().UTC()}, nil
}

// Delete removes an object; a missing one is success.
func (l *Local) Delete(_ context.Context, key string) error {
	if !ValidKey(key) {
		return nil
	}
	for _, p := range []string{l.dataPath(key), l.metaPath(key)} {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	return nil
}

// List walks the objects under prefix (a development store: every page
// walks the tree).
func (l *Local) List(_ context.Context, prefix, after string, limit int) ([]Object, error) {
	root := filepath.Join(l.Dir, "objects")
	var keys []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == root {
			return filepath.SkipAll
		}
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		if k := filepath.ToSlash(rel); strings.HasPrefix(k, prefix) && k > after {
			keys = append(keys, k)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sort.Strings(keys)
	if len(keys) > limit {
		keys = keys[:limit]
	}
	out := make([]Object, 0, len(keys))
	for _, k := range keys {
		o, err := l.Head(context.Background(), k)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// EnsureBucket creates the store's directory.
func (l *Local) EnsureBucket(context.Context) error { return os.MkdirAll(l.Dir, 0o750) }

// Put stores an object from the server itself: Write's rules (exactly
// size bytes, a key written once).
func (l *Local) Put(_ context.Context, key, contentType string, size int64, r io.Reader) error {
	return l.Write(key, contentType, size, r)
}

// Get opens an object's bytes.
func (l *Local) Get(_ context.Context, key string) (io.ReadCloser, error) {
	f, _, err := l.Open(key)
	return f, err
}
