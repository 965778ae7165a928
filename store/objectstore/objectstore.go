// Package objectstore keeps attachment bytes outside the database, behind one
// interface with two backends: any S3-compatible service (S3, MinIO) through
// aws-sdk-go-v2, and the embedded local store under .data/objects that the
// service signs and serves itself (development, and small single-node
// installs that allow it).
//
// Bytes never pass through the API: clients upload and download with
// presigned URLs. A presigned PUT binds the key, the content type and the
// content length, so a client cannot upload anything but what it announced,
// and it is conditional (If-None-Match: *): a key is written once, so
// replaying the URL cannot replace an object once it is stored (and, in
// particular, once its attachment has been confirmed).
package objectstore

import (
	"context"
	"errors"
	"io"
	"time"
)

// ErrNotFound is an object that does not exist.
var ErrNotFound = errors.New("object not found")

// ErrExists is an upload to a key that already holds an object: keys are
// written once.
var ErrExists = errors.New("an object is already stored under this key")

// IfNoneMatch is the header every presigned PUT carries (and signs): the
// storage refuses the write with 412 when the key already holds an object.
const IfNoneMatch = "If-None-Match"

// Store is an object store.
type Store interface {
	// PresignPut returns a URL that accepts exactly one PUT of size bytes of
	// contentType to key until ttl has passed, and only while key holds no
	// object (the PUT must send If-None-Match: *, listed in Headers).
	PresignPut(ctx context.Context, key, contentType string, size int64, ttl time.Duration) (Presigned, error)
	// PresignGet returns a URL that downloads key as an attachment named
	// filename (Content-Disposition: attachment) until ttl has passed.
	PresignGet(ctx context.Context, key, filename string, ttl time.Duration) (string, error)
	// Head describes an object; ErrNotFound when it does not exist.
	Head(ctx context.Context, key string) (Object, error)
	// Put stores size bytes of contentType read from r under key, from the
	// server itself (no presigned URL): the import keeps an uploaded export
	// this way. r should be a file (an io.ReadSeeker): S3 signs the body,
	// which it can then read twice without holding it in memory.
	Put(ctx context.Context, key, contentType string, size int64, r io.Reader) error
	// Get opens an object for reading as a stream; ErrNotFound when it does
	// not exist. The caller closes it.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// Delete removes an object; a missing object is success.
	Delete(ctx context.Context, key string) error
	// List returns up to limit objects whose keys start with prefix and sort
	// after after ("" from the start), in key order.
	List(ctx context.Context, prefix, after string, limit int) ([]Object, error)
	// EnsureBucket creates the bucket when it is missing (development).
	EnsureBucket(ctx context.Context) error
	// Kind names the backend ("s3" or "local") for logs.
	Kind() string
}

// Presigned is an upload URL and the headers the client must send with it.
type Presigned struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
}

// Object describes a stored object.
type Object struct {
	Key          string    `json:"key"`
	Size         int64     `json:"size"`
	ContentType  string    `json:"content_type"`
	LastModified time.Time `json:"last_modified"`
}
