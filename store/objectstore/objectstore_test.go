package objectstore_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"tracker/store/objectstore"
	"tracker/store/objectstore/objectstoretest"
)

// backends are the two stores every case runs against: MinIO (real S3) and
// the embedded local store behind a real HTTP server.
func backends(t *testing.T) map[string]objectstore.Store {
	return map[string]objectstore.Store{
		"minio": objectstoretest.MinIO(t),
		"local": objectstoretest.Local(t, nil),
	}
}

// put sends body with the presigned headers, Content-Type replaced by
// contentType ("" sends none).
func put(t *testing.T, p objectstore.Presigned, contentType string, body []byte) (int, string) {
	t.Helper()
	h := map[string]string{}
	for k, v := range p.Headers {
		h[k] = v
	}
	h["Content-Type"] = contentType
	code, b := objectstoretest.Put(t, p.Method, p.URL, h, body)
	return code, string(b)
}

func TestBackends(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for name, s := range backends(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			body := []byte("<html><script>alert(1)</script> résumé bytes")
			key := "org/o1/tickets/t1/u1/report.html"

			t.Run("put, head, list, get as attachment, delete", func(t *testing.T) {
				p, err := s.PresignPut(ctx, key, "text/html", int64(len(body)), time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if p.Method != "PUT" || p.Headers["Content-Type"] != "text/html" || p.Headers["If-None-Match"] != "*" {
					t.Fatalf("presigned %+v", p)
				}
				if code, msg := put(t, p, "text/html", body); code != 200 {
					t.Fatalf("put %d %s", code, msg)
				}
				o, err := s.Head(ctx, key)
				if err != nil || o.Size != int64(len(body)) || o.ContentType != "text/html" || o.Key != key || o.LastModified.IsZero() {
					t.Fatalf("head %+v %v", o, err)
				}
				objs, err := s.List(ctx, "org/o1/", "", 10)
				if err != nil || len(objs) != 1 || objs[0].Key != key || objs[0].Size != int64(len(body)) {
					t.Fatalf("list %+v %v", objs, err)
				}
				url, err := s.PresignGet(ctx, key, "Résumé \"final\".html", time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				res, got := objectstoretest.Get(t, url)
				if res.StatusCode != 200 || !bytes.Equal(got, body) {
					t.Fatalf("get %d %q", res.StatusCode, got)
				}
				if cd := res.Header.Get("Content-Disposition"); !strings.HasPrefix(cd, "attachment;") || !strings.Contains(cd, "filename*=utf-8''R%C3%A9sum%C3%A9") {
					t.Fatalf("content disposition %q", cd)
				}
				if err := s.Delete(ctx, key); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Head(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
					t.Fatalf("head after delete: %v", err)
				}
				if err := s.Delete(ctx, key); err != nil {
					t.Fatalf("deleting a missing object: %v", err)
				}
				if res, _ := objectstoretest.Get(t, url); res.StatusCode != 404 {
					t.Fatalf("get after delete %d", res.StatusCode)
				}
			})

			t.Run("server-side put from a file, get as a stream, delete", func(t *testing.T) {
				// Larger than one read buffer, so a stream cut short shows.
				big := bytes.Repeat([]byte("Issue key,Summary\nBIG-1,\"a, b\"\n"), 100_000)
				f, err := os.CreateTemp(t.TempDir(), "upload-*")
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				if _, err := f.Write(big); err != nil {
					t.Fatal(err)
				}
				if _, err := f.Seek(0, io.SeekStart); err != nil {
					t.Fatal(err)
				}
				k := "imports/o1/i1/export.csv"
				if err := s.Put(ctx, k, "text/csv", int64(len(big)), f); err != nil {
					t.Fatal(err)
				}
				o, err := s.Head(ctx, k)
				if err != nil || o.Size != int64(len(big)) || o.ContentType != "text/csv" {
					t.Fatalf("head %+v %v", o, err)
				}
				rc, err := s.Get(ctx, k)
				if err != nil {
					t.Fatal(err)
				}
				got, err := io.ReadAll(rc)
				_ = rc.Close()
				if err != nil || !bytes.Equal(got, big) {
					t.Fatalf("read back %d bytes of %d: %v", len(got), len(big), err)
				}
				if err := s.Delete(ctx, k); err != nil {
					t.Fatal(err)
				}
				if _, err := s.Get(ctx, k); !errors.Is(err, objectstore.ErrNotFound) {
					t.Fatalf("get after delete: %v", err)
				}
			})

			t.Run("list pages in key order under the prefix", func(t *testing.T) {
				keys := []string{"org/o2/a/1.txt", "org/o2/a/2.txt", "org/o2/b/3.txt", "org/o3/x.txt"}
				for _, k := range keys {
					p, err := s.PresignPut(ctx, k, "text/plain", 1, time.Minute)
					if err != nil {
						t.Fatal(err)
					}
					if code, msg := put(t, p, "text/plain", []byte("x")); code != 200 {
						t.Fatalf("put %d %s", code, msg)
					}
				}
				first, err := s.List(ctx, "org/o2/", "", 2)
				if err != nil || len(first) != 2 || first[0].Key != keys[0] || first[1].Key != keys[1] {
					t.Fatalf("first page %+v %v", first, err)
				}
				rest, err := s.List(ctx, "org/o2/", first[1].Key, 2)
				if err != nil || len(rest) != 1 || rest[0].Key != keys[2] {
					t.Fatalf("second page %+v %v", rest, err)
				}
			})

			tamper := []struct {
				name string
				do   func(t *testing.T, p objectstore.Presigned) (int, string)
			}{
				{"longer body than signed", func(t *testing.T, p objectstore.Presigned) (int, string) {
					return put(t, p, "text/plain", []byte("hello world!"))
				}},
				{"shorter body than signed", func(t *testing.T, p objectstore.Presigned) (int, string) {
					return put(t, p, "text/plain", []byte("hello"))
				}},
				{"other content type", func(t *testing.T, p objectstore.Presigned) (int, string) {
					return put(t, p, "text/html", []byte("hello world"))
				}},
				{"no content type", func(t *testing.T, p objectstore.Presigned) (int, string) {
					return put(t, p, "", []byte("hello world"))
				}},
				{"other key", func(t *testing.T, p objectstore.Presigned) (int, string) {
					p.URL = strings.Replace(p.URL, "tamper.txt", "evil.txt", 1)
					return put(t, p, "text/plain", []byte("hello world"))
				}},
			}
			for _, tc := range tamper {
				t.Run("rejected: "+tc.name, func(t *testing.T) {
					key := "org/o4/" + strings.ReplaceAll(tc.name, " ", "-") + "/tamper.txt"
					p, err := s.PresignPut(ctx, key, "text/plain", int64(len("hello world")), time.Minute)
					if err != nil {
						t.Fatal(err)
					}
					if code, msg := tc.do(t, p); code < 400 || code >= 500 {
						t.Fatalf("tampered upload answered %d %s", code, msg)
					}
					objs, err := s.List(ctx, "org/o4/"+strings.ReplaceAll(tc.name, " ", "-")+"/", "", 10)
					if err != nil || len(objs) != 0 {
						t.Fatalf("something was stored: %+v %v", objs, err)
					}
				})
			}

			t.Run("rejected: a PUT without If-None-Match", func(t *testing.T) {
				key := "org/o6/unconditional.txt"
				p, err := s.PresignPut(ctx, key, "text/plain", 5, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				delete(p.Headers, "If-None-Match")
				if code, msg := put(t, p, "text/plain", []byte("hello")); code < 400 || code >= 500 {
					t.Fatalf("unconditional upload answered %d %s", code, msg)
				}
				if _, err := s.Head(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
					t.Fatalf("stored anyway: %v", err)
				}
			})

			t.Run("rejected: a replay of the URL once the key holds the object", func(t *testing.T) {
				key := "org/o7/tickets/t/u/once.txt"
				p, err := s.PresignPut(ctx, key, "text/plain", 5, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if code, msg := put(t, p, "text/plain", []byte("first")); code != 200 {
					t.Fatalf("put %d %s", code, msg)
				}
				// Same URL, same type and length, other bytes: refused, the
				// stored object is unchanged.
				if code, msg := put(t, p, "text/plain", []byte("EVIL!")); code != 412 {
					t.Fatalf("replay answered %d %s", code, msg)
				}
				g, err := s.PresignGet(ctx, key, "once.txt", time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if res, got := objectstoretest.Get(t, g); res.StatusCode != 200 || string(got) != "first" {
					t.Fatalf("stored %d %q", res.StatusCode, got)
				}
				// A fresh URL for the same key is refused too: a key is
				// written once, whoever signs.
				p2, err := s.PresignPut(ctx, key, "text/plain", 5, time.Minute)
				if err != nil {
					t.Fatal(err)
				}
				if code, msg := put(t, p2, "text/plain", []byte("again")); code != 412 {
					t.Fatalf("second URL answered %d %s", code, msg)
				}
			})

			t.Run("rejected: expired URLs", func(t *testing.T) {
				key := "org/o5/late.txt"
				p, err := s.PresignPut(ctx, key, "text/plain", 1, time.Second)
				if err != nil {
					t.Fatal(err)
				}
				g, err := s.PresignGet(ctx, key, "late.txt", time.Second)
				if err != nil {
					t.Fatal(err)
				}
				time.Sleep(2100 * time.Millisecond)
				if code, msg := put(t, p, "text/plain", []byte("x")); code != 403 {
					t.Fatalf("expired put %d %s", code, msg)
				}
				if res, _ := objectstoretest.Get(t, g); res.StatusCode != 403 {
					t.Fatalf("expired get %d", res.StatusCode)
				}
				if _, err := s.Head(ctx, key); !errors.Is(err, objectstore.ErrNotFound) {
					t.Fatalf("head %v", err)
				}
			})
		})
	}
}

func TestLocalRejectsUnsignedAndCrossMethodRequests(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := objectstoretest.Local(t, nil)
	key := "org/o/tickets/t/u/a.txt"
	p, err := l.PresignPut(ctx, key, "text/plain", 2, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := put(t, p, "text/plain", []byte("ok")); code != 200 {
		t.Fatalf("put %d %s", code, msg)
	}
	// The upload URL does not download, and a bare path serves nothing.
	if res, _ := objectstoretest.Get(t, p.URL); res.StatusCode != 403 {
		t.Fatalf("GET with a PUT signature: %d", res.StatusCode)
	}
	bare := strings.SplitN(p.URL, "?", 2)[0]
	if res, _ := objectstoretest.Get(t, bare); res.StatusCode != 403 {
		t.Fatalf("unsigned GET: %d", res.StatusCode)
	}
	// A download URL cannot overwrite the object.
	g, err := l.PresignGet(ctx, key, "a.txt", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := put(t, objectstore.Presigned{Method: "PUT", URL: g}, "text/plain", []byte("no")); code != 403 {
		t.Fatalf("PUT with a GET signature: %d", code)
	}
	// Path traversal never reaches the file system.
	for _, bad := range []string{"../etc/passwd", "org/../../x", "/abs", "a//b"} {
		if _, err := l.PresignPut(ctx, bad, "text/plain", 1, time.Minute); !errors.Is(err, objectstore.ErrBadKey) {
			t.Fatalf("key %q: %v", bad, err)
		}
	}
	res, body := objectstoretest.Get(t, g)
	if res.StatusCode != 200 || string(body) != "ok" || res.Header.Get("X-Content-Type-Options") != "nosniff" ||
		!strings.HasPrefix(res.Header.Get("Content-Security-Policy"), "sandbox") {
		t.Fatalf("download %d %q %v", res.StatusCode, body, res.Header)
	}
}

// TestLocalConcurrentUploadsStoreOne: of many simultaneous PUTs to one key
// (one URL replayed in parallel), exactly one is stored, whole.
func TestLocalConcurrentUploadsStoreOne(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	l := objectstoretest.Local(t, nil)
	key := "org/o/tickets/t/u/race.txt"
	p, err := l.PresignPut(ctx, key, "text/plain", 8, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	const n = 8
	codes := make([]int, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _ = put(t, p, "text/plain", []byte(fmt.Sprintf("upload-%d", i)))
		}()
	}
	wg.Wait()
	won := -1
	for i, c := range codes {
		switch {
		case c == 200 && won == -1:
			won = i
		case c != 412:
			t.Fatalf("answers %v", codes)
		}
	}
	if won == -1 {
		t.Fatalf("answers %v", codes)
	}
	g, err := l.PresignGet(ctx, key, "race.txt", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, got := objectstoretest.Get(t, g); string(got) != fmt.Sprintf("upload-%d", won) {
		t.Fatalf("stored %q, the winner was %d", got, won)
	}
}
