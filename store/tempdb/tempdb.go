// Package tempdb makes throwaway PostgreSQL databases, each created from a
// migrated template (one template per migration fingerprint): tests get
// theirs through storetest, benchmark commands straight from here.
package tempdb

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"tracker/schema"
)

// AdminURL is the server the tests create databases on.
func AdminURL() string {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// URLFor returns AdminURL with its database replaced by name.
func URLFor(name string) string {
	u, err := url.Parse(AdminURL())
	if err != nil {
		panic(err)
	}
	u.Path = "/" + name
	return u.String()
}

const lockID = 7_301_994_221

// NewDatabase creates a fresh, migrated database and returns its URL and a
// function that drops it.
func NewDatabase(ctx context.Context) (string, func(), error) {
	admin, err := pgx.Connect(ctx, AdminURL())
	if err != nil {
		return "", nil, fmt.Errorf("connect to test server (set TEST_DATABASE_URL): %w", err)
	}
	defer admin.Close(ctx)
	tmpl := "tracker_tmpl_" + schema.Fingerprint()
	if err := ensureTemplate(ctx, admin, tmpl); err != nil {
		return "", nil, err
	}
	name := "tracker_test_" + strings.ReplaceAll(uuid.NewString(), "-", "")[:20]
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s TEMPLATE %s", name, tmpl)); err != nil {
		return "", nil, fmt.Errorf("create test database: %w", err)
	}
	drop := func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, AdminURL())
		if err != nil {
			return
		}
		defer c.Close(ctx)
		_, _ = c.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s WITH (FORCE)", name))
	}
	return URLFor(name), drop, nil
}

func ensureTemplate(ctx context.Context, admin *pgx.Conn, tmpl string) error {
	if _, err := admin.Exec(ctx, "SELECT pg_advisory_lock($1)", lockID); err != nil {
		return err
	}
	defer func() { _, _ = admin.Exec(ctx, "SELECT pg_advisory_unlock($1)", lockID) }()
	var ready bool
	err := admin.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1 AND datistemplate)", tmpl).Scan(&ready)
	if err != nil || ready {
		return err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("DROP DATABASE IF EXISTS %s", tmpl)); err != nil {
		return err
	}
	if _, err := admin.Exec(ctx, fmt.Sprintf("CREATE DATABASE %s", tmpl)); err != nil {
		return fmt.Errorf("create template: %w", err)
	}
	if _, err := schema.Migrate(ctx, URLFor(tmpl)); err != nil {
		return fmt.Errorf("migrate template: %w", err)
	}
	_, err = admin.Exec(ctx, fmt.Sprintf("ALTER DATABASE %s WITH is_template true", tmpl))
	return err
}
