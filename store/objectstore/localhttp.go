package objectstore

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// ServeHTTP serves the local store's presigned URLs under StoragePrefix:
// PUT stores the signed upload (once: a key holding an object answers 412),
// GET and HEAD download as an attachment.
// Every request needs a valid signature; nothing else is served.
func (l *Local) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	key, ok := strings.CutPrefix(r.URL.Path, StoragePrefix)
	if !ok {
		storageError(w, http.StatusNotFound, "not_found", "object not found")
		return
	}
	q := r.URL.Query()
	switch r.Method {
	case http.MethodPut:
		if r.ContentLength < 0 {
			storageError(w, http.StatusLengthRequired, "VALIDATION_ERROR", "Content-Length is required")
			return
		}
		if err := l.Verify(r.Method, key, q, r.Header.Get("Content-Type"), r.ContentLength, r.Header.Get(IfNoneMatch)); err != nil {
			storageError(w, http.StatusForbidden, "FORBIDDEN", err.Error())
			return
		}
		if err := l.Write(key, q.Get(QueryType), r.ContentLength, r.Body); err != nil {
			if errors.Is(err, ErrBadSignature) {
				storageError(w, http.StatusBadRequest, "BAD_REQUEST", err.Error())
				return
			}
			if errors.Is(err, ErrExists) {
				storageError(w, http.StatusPreconditionFailed, "PRECONDITION_FAILED", err.Error())
				return
			}
			storageError(w, http.StatusInternalServerError, "INTERNAL", "could not store the object")
			return
		}
		w.WriteHeader(http.StatusOK)
	case http.MethodGet, http.MethodHead:
		if err := l.Verify(r.Method, key, q, "", 0, ""); err != nil {
			storageError(w, http.StatusForbidden, "FORBIDDEN", err.Error())
			return
		}
		f, o, err := l.Open(key)
		if err != nil {
			if errors.Is(err, ErrNotFound) {
				storageError(w, http.StatusNotFound, "not_found", "object not found")
				return
			}
			storageError(w, http.StatusInternalServerError, "INTERNAL", "could not read the object")
			return
		}
		defer f.Close()
		ct := o.ContentType
		if ct == "" {
			ct = "application/octet-stream"
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("Content-Disposition", q.Get(QueryDisposition))
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Content-Security-Policy", "sandbox; default-src 'none'")
		h.Set("Cache-Control", "private, no-store")
		http.ServeContent(w, r, "", o.LastModified, f)
	default:
		w.Header().Set("Allow", "GET, HEAD, PUT")
		storageError(w, http.StatusMethodNotAllowed, "BAD_REQUEST", "method not allowed")
	}
}

func storageError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg, "details": []string{}}})
}
