// Package schema holds the numbered SQL migrations of the service, embedded
// in the binary and applied under tern's advisory lock, so any number of
// replicas may call Migrate at start-up without racing.
package schema

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"sort"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/tern/v2/migrate"
)

//go:embed migrations/*.sql
var files embed.FS

const versionTable = "schema_version"

// Migrations is the embedded migrations folder.
func Migrations() fs.FS {
	sub, err := fs.Sub(files, "migrations")
	if err != nil {
		panic(err) // the folder is embedded at build time
	}
	return sub
}

// Migrate applies every pending migration to the database at url and returns
// the version reached.
func Migrate(ctx context.Context, url string) (int32, error) {
	return MigrateTo(ctx, url, Latest())
}

// MigrateTo applies the pending migrations up to and including version
// target and returns the version reached; tests use it to walk an empty
// database one migration at a time.
func MigrateTo(ctx context.Context, url string, target int32) (int32, error) {
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return 0, fmt.Errorf("connect: %w", err)
	}
	defer conn.Close(ctx)
	m, err := migrate.NewMigrator(ctx, conn, versionTable)
	if err != nil {
		return 0, fmt.Errorf("migrator: %w", err)
	}
	if err := m.LoadMigrations(Migrations()); err != nil {
		return 0, fmt.Errorf("load migrations: %w", err)
	}
	if err := m.MigrateTo(ctx, target); err != nil {
		return 0, fmt.Errorf("migrate: %w", err)
	}
	return m.GetCurrentVersion(ctx)
}

// Latest is the number of the newest embedded migration.
func Latest() int32 {
	names, _ := fs.Glob(Migrations(), "*.sql")
	return int32(len(names))
}

// Fingerprint is a hash of every migration's name and content: test
// templates are keyed by it, so a changed migration gets a fresh template.
func Fingerprint() string {
	names, _ := fs.Glob(Migrations(), "*.sql")
	sort.Strings(names)
	h := sha256.New()
	for _, n := range names {
		b, _ := fs.ReadFile(Migrations(), n)
		h.Write([]byte(n))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// VersionQuery reads the applied version; used by /health.
const VersionQuery = "SELECT version FROM " + versionTable
