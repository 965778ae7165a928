package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"

	"tracker/domain/exchange/export/exportseed"
	"tracker/store"
)

type bench struct {
	c      config
	db     *store.DB
	http   *http.Client
	token  string
	userID uuid.UUID
	orgA   uuid.UUID
}

func newBench(ctx context.Context, c config) (*bench, error) {
	db, err := store.Open(ctx, c.DB)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	b := &bench{c: c, db: db, http: &http.Client{Timeout: 10 * time.Minute}}
	email := fmt.Sprintf("benchexport-%s@example.test", uuid.NewString()[:8])
	var auth struct {
		AccessToken string    `json:"access_token"`
		UserID      uuid.UUID `json:"user_id"`
	}
	if err := b.call(ctx, "POST", "/api/v1/auth/register", map[string]any{"email": email, "password": "bench-password-1",
		"display_name": "Bench Export"}, 201, &auth); err != nil {
		db.Close()
		return nil, err
	}
	b.token, b.userID = auth.AccessToken, auth.UserID
	var me struct {
		OrgID uuid.UUID `json:"org_id"`
	}
	if err := b.call(ctx, "GET", "/api/v1/auth/me", nil, 200, &me); err != nil {
		db.Close()
		return nil, err
	}
	b.orgA = me.OrgID
	return b, nil
}

func (b *bench) close() { b.db.Close() }

func (b *bench) seed(ctx context.Context) error {
	per := max(b.c.Tickets/b.c.Projects, 1)
	_, err := exportseed.Seed(ctx, b.db, b.orgA, b.userID, exportseed.Options{Projects: b.c.Projects,
		TicketsPerProject: per, CommentsPerTicket: b.c.Comments, EntriesPerTicket: b.c.Entries})
	return err
}

// call sends a JSON request and decodes the JSON answer into out.
func (b *bench) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	res, err := b.send(ctx, method, path, rd)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d: %.300s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

func (b *bench) send(ctx context.Context, method, path string, body io.Reader) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, b.c.URL+path, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if b.token != "" {
		req.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.http.Do(req)
}

// download streams a GET into a temporary file and times it.
func (b *bench) download(ctx context.Context, path, pattern string) (string, int64, time.Duration, error) {
	start := time.Now()
	res, err := b.send(ctx, "GET", path, nil)
	if err != nil {
		return "", 0, 0, err
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		raw, _ := io.ReadAll(res.Body)
		return "", 0, 0, fmt.Errorf("GET %s: status %d: %.300s", path, res.StatusCode, raw)
	}
	f, err := os.CreateTemp("", pattern)
	if err != nil {
		return "", 0, 0, err
	}
	defer f.Close()
	n, err := io.Copy(f, res.Body)
	return f.Name(), n, time.Since(start), err
}

func (b *bench) exportJSON(ctx context.Context) (string, result, error) {
	path, n, took, err := b.download(ctx, "/api/v1/export?org_id="+b.orgA.String(), "benchexport-*.json")
	if err == nil {
		var doc struct {
			Projects []json.RawMessage `json:"projects"`
		}
		raw, _ := os.ReadFile(path)
		if err = json.Unmarshal(raw, &doc); err == nil && len(doc.Projects) != b.c.Projects {
			err = fmt.Errorf("export has %d projects, want %d", len(doc.Projects), b.c.Projects)
		}
	}
	return path, result{name: "export json", took: took, limit: b.c.JSONMax, detail: fmt.Sprintf("%.1f MB", float64(n)/1e6)}, err
}

func (b *bench) exportSQLite(ctx context.Context) (result, error) {
	path, n, took, err := b.download(ctx, "/api/v1/export?format=sqlite&org_id="+b.orgA.String(), "benchexport-*.sqlite")
	if path != "" {
		_ = os.Remove(path)
	}
	return result{name: "export sqlite", took: took, limit: b.c.SQLMax, detail: fmt.Sprintf("%.1f MB", float64(n)/1e6)}, err
}

// importJSON creates an empty org, posts the document to it and waits for
// the import to complete.
func (b *bench) importJSON(ctx context.Context, docPath string) (result, error) {
	var org struct {
		ID uuid.UUID `json:"id"`
	}
	slug := "benchimport-" + uuid.NewString()[:8]
	if err := b.call(ctx, "POST", "/api/v1/orgs", map[string]any{"name": "Bench import", "slug": slug}, 201, &org); err != nil {
		return result{}, err
	}
	f, err := os.Open(docPath)
	if err != nil {
		return result{}, err
	}
	defer f.Close()
	start := time.Now()
	res, err := b.send(ctx, "POST", "/api/v1/import?org_id="+org.ID.String(), f)
	if err != nil {
		return result{}, err
	}
	var out struct {
		Status   string         `json:"status"`
		ImportID uuid.UUID      `json:"import_id"`
		Summary  map[string]int `json:"summary"`
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 && res.StatusCode != 202 {
		return result{}, fmt.Errorf("POST /import: status %d: %.500s", res.StatusCode, raw)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return result{}, err
	}
	accepted := time.Since(start)
	deadline := time.Now().Add(b.c.ImportTimeout)
	for out.Status != "completed" {
		if out.Status == "failed" || time.Now().After(deadline) {
			return result{}, fmt.Errorf("import %s: %s", out.ImportID, raw)
		}
		time.Sleep(250 * time.Millisecond)
		res, err := b.send(ctx, "GET", "/api/v1/imports/"+out.ImportID.String(), nil)
		if err != nil {
			return result{}, err
		}
		raw, _ = io.ReadAll(res.Body)
		res.Body.Close()
		if err := json.Unmarshal(raw, &out); err != nil {
			return result{}, fmt.Errorf("GET /imports: %w: %.300s", err, raw)
		}
	}
	return result{name: "import", took: time.Since(start), limit: b.c.ImportMax,
		detail: fmt.Sprintf("accepted in %s; %d tickets, %d comments, %d time entries created", accepted.Round(time.Millisecond),
			out.Summary["tickets_created"], out.Summary["comments_created"], out.Summary["time_entries_created"])}, nil
}
