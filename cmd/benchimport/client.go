package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"os"
	"time"

	"github.com/google/uuid"
)

type client struct {
	base, token string
	http        *http.Client
}

// signup registers a fresh user (the owner, so an Admin, of its org).
func signup(ctx context.Context, base string) (*client, error) {
	c := &client{base: base, http: &http.Client{Timeout: 15 * time.Minute}}
	var auth struct {
		AccessToken string `json:"access_token"`
	}
	email := fmt.Sprintf("benchimport-%s@example.test", uuid.NewString()[:8])
	if err := c.call(ctx, "POST", "/api/v1/auth/register", map[string]any{"email": email, "password": "bench-password-1",
		"display_name": "Bench Import"}, 201, &auth); err != nil {
		return nil, err
	}
	c.token = auth.AccessToken
	return c, nil
}

// newOrg creates an empty org the user owns.
func (c *client) newOrg(ctx context.Context) (uuid.UUID, error) {
	var org struct {
		ID uuid.UUID `json:"id"`
	}
	err := c.call(ctx, "POST", "/api/v1/orgs", map[string]any{"name": "Bench Jira import", "slug": "benchimport-" + uuid.NewString()[:8]}, 201, &org)
	return org.ID, err
}

func (c *client) call(ctx context.Context, method, path string, body any, want int, out any) error {
	var rd io.Reader
	if body != nil {
		j, _ := json.Marshal(body)
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	return c.do(req, want, out)
}

func (c *client) do(req *http.Request, want int, out any) error {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	if res.StatusCode != want && !(want == 202 && res.StatusCode == 200) {
		return fmt.Errorf("%s %s: status %d: %.500s", req.Method, req.URL.Path, res.StatusCode, raw)
	}
	if out != nil {
		return json.Unmarshal(raw, out)
	}
	return nil
}

// post streams the file as the multipart form of the import route.
func (c *client) post(ctx context.Context, org uuid.UUID, path string, dry bool, want int, out any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	go func() {
		fields := [][2]string{{"format", "jira_csv"}, {"mapping", mapping}, {"dry_run", fmt.Sprint(dry)}}
		for _, kv := range fields {
			if err := mw.WriteField(kv[0], kv[1]); err != nil {
				pw.CloseWithError(err)
				return
			}
		}
		part, err := mw.CreateFormFile("file", "jira.csv")
		if err == nil {
			_, err = io.Copy(part, f)
		}
		if err == nil {
			err = mw.Close()
		}
		pw.CloseWithError(err)
	}()
	req, err := http.NewRequestWithContext(ctx, "POST", c.base+"/api/v1/orgs/"+org.String()+"/imports", pr)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	return c.do(req, want, out)
}

// counts are the dry run's summary keys (a real run's summary has them too).
type counts struct {
	Tickets  int `json:"tickets"`
	Comments int `json:"comments"`
	Parents  int `json:"parents"`
	Links    int `json:"links"`
}

func (c *client) dryRun(ctx context.Context, org uuid.UUID, path string) (time.Duration, counts, error) {
	var out struct {
		Status  string `json:"status"`
		Summary counts `json:"summary"`
	}
	start := time.Now()
	err := c.post(ctx, org, path, true, 200, &out)
	if err == nil && out.Status != "dry_run" {
		err = fmt.Errorf("status %q, want dry_run", out.Status)
	}
	return time.Since(start), out.Summary, err
}

// importFile posts the file for real and polls the import until it
// completes; it returns the time to completion and to the route's answer.
func (c *client) importFile(ctx context.Context, org uuid.UUID, path string, timeout time.Duration) (took, accepted time.Duration, got counts, err error) {
	var out struct {
		ID       uuid.UUID `json:"id"`
		ImportID uuid.UUID `json:"import_id"`
		Status   string    `json:"status"`
		Summary  counts    `json:"summary"`
		Errors   []string  `json:"errors"`
	}
	start := time.Now()
	if err := c.post(ctx, org, path, false, 202, &out); err != nil {
		return 0, 0, got, err
	}
	accepted = time.Since(start)
	id := out.ImportID
	deadline := start.Add(timeout)
	for out.Status != "completed" {
		if out.Status == "failed" || out.Status == "cancelled" {
			return 0, 0, got, fmt.Errorf("import %s %s: %v", id, out.Status, out.Errors)
		}
		if time.Now().After(deadline) {
			return 0, 0, got, fmt.Errorf("import %s still %s after %s", id, out.Status, timeout)
		}
		select {
		case <-ctx.Done():
			return 0, 0, got, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if err := c.call(ctx, "GET", "/api/v1/imports/"+id.String(), nil, 200, &out); err != nil {
			return 0, 0, got, err
		}
	}
	return time.Since(start), accepted, out.Summary, nil
}
