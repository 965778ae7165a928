package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"tracker/schema"
	"tracker/worker/workertest"
)

// pgCluster is a PostgreSQL server of the test's own (initdb in a temporary
// directory, its own port): a test may stop and start it. The shared server
// of the suite is never restarted.
type pgCluster struct {
	t      testing.TB
	bin    string
	dir    string
	port   int
	asUser string // "postgres" when we are root (initdb refuses root)
}

// newPGCluster initialises and starts a private cluster; it is stopped and
// removed when the test ends. Skipped without PostgreSQL's server binaries.
func newPGCluster(t testing.TB) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_ctl")
	if len(bins) == 0 {
		t.Skip("no PostgreSQL server binaries under /usr/lib/postgresql")
	}
	sort.Strings(bins)
	c := &pgCluster{t: t, bin: filepath.Dir(bins[len(bins)-1]), port: workertest.FreePort(t)}
	dir, err := os.MkdirTemp("", "tracker-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if os.Geteuid() == 0 {
		u, err := osuser.Lookup("postgres")
		if err != nil {
			t.Skip("running as root and no postgres user to run a private cluster as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.asUser = "postgres"
	}
	c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
	c.Start()
	t.Cleanup(func() { c.Stop("immediate") })
	return c
}

func (c *pgCluster) data() string { return filepath.Join(c.dir, "data") }

func (c *pgCluster) run(tool string, args ...string) {
	c.t.Helper()
	name := filepath.Join(c.bin, tool)
	if c.asUser != "" {
		args = append([]string{"-u", c.asUser, "--", name}, args...)
		name = "runuser"
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = "/"
	if out, err := cmd.CombinedOutput(); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "postgres.log"))
		c.t.Fatalf("%s %v: %v\n%s\n%s", tool, args, err, out, log)
	}
}

// Start starts the server and waits until it accepts connections.
func (c *pgCluster) Start() {
	c.t.Helper()
	c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "postgres.log"), "-w", "-t", "60",
		"-o", fmt.Sprintf("-c listen_addresses=127.0.0.1 -p %d -c unix_socket_directories='' -c fsync=off -c max_connections=200", c.port),
		"start")
}

// Stop stops the server: "fast" rolls back open transactions and closes
// every connection (what a restart by an operator or a failover does),
// "immediate" is a crash.
func (c *pgCluster) Stop(mode string) {
	c.t.Helper()
	if _, err := os.Stat(filepath.Join(c.data(), "postmaster.pid")); err != nil {
		return
	}
	c.run("pg_ctl", "-D", c.data(), "-m", mode, "-w", "-t", "60", "stop")
}

// URL is the address of a database on the cluster.
func (c *pgCluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/%s?sslmode=disable", c.port, db)
}

// NewDatabase creates a migrated database and returns its URL.
func (c *pgCluster) NewDatabase(name string) string {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, c.URL("postgres"))
	if err != nil {
		c.t.Fatal(err)
	}
	defer admin.Close(ctx)
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		c.t.Fatal(err)
	}
	u := c.URL(name)
	if _, err := schema.Migrate(ctx, u); err != nil {
		c.t.Fatalf("migrate: %v", err)
	}
	return u
}
