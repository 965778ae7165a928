package schema_test

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"testing"

	"tracker/schema"
)

// sumFile pins the SHA-256 of every landed migration, one
// "<sha256>  <file>" line each (the format of `sha256sum`).
const sumFile = "migrations.sum"

var update = flag.Bool("update", false, "append the checksums of new migrations to "+sumFile+" (never rewrites a pinned one)")

// TestMigrationsArePinned fails when a landed migration changed or vanished,
// and when a new migration has no checksum yet. A database migrated before an
// edit keeps the old schema forever, so fixes are new migrations.
func TestMigrationsArePinned(t *testing.T) {
	pinned, order, err := readSums(sumFile)
	if err != nil {
		t.Fatal(err)
	}
	names, err := fs.Glob(schema.Migrations(), "*.sql")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(names)
	onDisk := map[string]bool{}
	var missing []string
	for _, n := range names {
		onDisk[n] = true
		b, err := fs.ReadFile(schema.Migrations(), n)
		if err != nil {
			t.Fatal(err)
		}
		sum := checksum(b)
		want, ok := pinned[n]
		switch {
		case !ok:
			missing = append(missing, fmt.Sprintf("%s  %s", sum, n))
		case want != sum:
			t.Errorf("migration %s changed (pinned %s, now %s): a landed migration never changes; "+
				"write a new migration instead (restore it with `git checkout -- schema/migrations/%s`)", n, want, sum, n)
		}
	}
	for _, n := range order {
		if !onDisk[n] {
			t.Errorf("migration %s is pinned in %s but gone: a landed migration never changes; write a new migration", n, sumFile)
		}
	}
	if len(missing) == 0 {
		return
	}
	if *update {
		f, err := os.OpenFile(sumFile, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		for _, l := range missing {
			if _, err := fmt.Fprintln(f, l); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("pinned %d new migration(s) in %s", len(missing), sumFile)
		return
	}
	t.Errorf("new migration(s) without a checksum: run `go test ./schema -run TestMigrationsArePinned -update`, "+
		"or append these lines to schema/%s:\n%s", sumFile, strings.Join(missing, "\n"))
}

func checksum(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// readSums parses the pin file, refusing a duplicate or malformed line.
func readSums(path string) (map[string]string, []string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	var order []string
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 2 || len(fields[0]) != 64 {
			return nil, nil, fmt.Errorf("%s:%d: want \"<sha256>  <file>\", got %q", path, line, text)
		}
		if _, dup := sums[fields[1]]; dup {
			return nil, nil, fmt.Errorf("%s:%d: %s pinned twice", path, line, fields[1])
		}
		sums[fields[1]] = fields[0]
		order = append(order, fields[1])
	}
	return sums, order, sc.Err()
}
