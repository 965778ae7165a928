// The layer rule of docs/ARCHITECTURE.md, enforced: imports point down,
// never back up. This file is the only Go file at the module root, a test
// of the module's own import graph.
package tracker_test

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// mayImport lists, per top-level folder, the top-level folders its non-test
// code may import (besides its own). internal/ is the floor: it imports
// nothing above it. A folder missing here (cmd, e2e) may import anything.
var mayImport = map[string][]string{
	"internal":   {},
	"schema":     {"internal"},
	"docs":       {"internal"},
	"store":      {"internal", "schema"},
	"domain":     {"internal", "schema", "store"},
	"activities": {"internal", "store", "domain"},
	"workflows":  {"internal", "store", "domain", "activities"},
	"worker":     {"internal", "store", "workflows"},
	"api":        {"internal", "domain", "docs"},
}

// workerMay are the only packages of an importable folder that worker/ may
// reach: the shared kit of workflows/ (no feature) and the outbox's table.
// A feature plugs into the worker through a registration, never the other
// way round.
var workerMay = map[string]bool{"tracker/store": true, "tracker/store/outboxdb": true, "tracker/workflows": true}

// jobKindContract is the one package of worker/ a job kind may import: the
// registration it hands the worker (a leaf). A kind never imports the
// worker itself, which would run back up and cycle with it.
const jobKindContract = "tracker/worker/jobkind"

// testHelper reports whether a package is test code: its name ends in
// "test" (storetest, apitest, ...) or it is the fixture factory.
func testHelper(path string) bool {
	base := path[strings.LastIndex(path, "/")+1:]
	return strings.HasSuffix(base, "test") || base == "testfactory"
}

// TestNoUpwardImports walks every package of the module and fails on a
// non-test import that runs back up the layers: internal/ above itself,
// store/ into domain/ or api/, domain/ into api/ or the job kinds, api/ into
// store/ (handlers go through domain/), worker/ into a feature, a job kind
// into worker/ beyond worker/jobkind, and any
// non-test code into a test helper. A test helper is held to its own
// folder's rule, with store/ and other helpers allowed (fixtures are SQL).
func TestNoUpwardImports(t *testing.T) {
	n := 0
	err := filepath.WalkDir(".", func(dir string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if name := d.Name(); dir != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		pkg, err := build.ImportDir(dir, 0)
		if err != nil || len(pkg.GoFiles) == 0 {
			return nil // no non-test Go files here
		}
		n++
		from := "tracker/" + filepath.ToSlash(dir)
		top := strings.SplitN(filepath.ToSlash(dir), "/", 2)[0]
		allowed, ruled := mayImport[top]
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, "tracker/") {
				continue
			}
			to := strings.SplitN(strings.TrimPrefix(imp, "tracker/"), "/", 2)[0]
			switch {
			case testHelper(imp) && !testHelper(from):
				t.Errorf("%s (non-test code) imports the test helper %s", from, imp)
			case !ruled || to == top && top != "worker" || testHelper(from) && (testHelper(imp) || to == "store"):
			case top == "worker" && (strings.HasPrefix(imp, "tracker/worker/") || to == "internal" || workerMay[imp]):
			case top == "workflows" && imp == jobKindContract:
			case top == "worker":
				t.Errorf("%s imports %s: worker/ knows no feature; the feature registers itself with it", from, imp)
			default:
				ok := false
				for _, a := range allowed {
					ok = ok || a == to
				}
				if !ok {
					t.Errorf("%s imports %s: %s/ may import only %v (docs/ARCHITECTURE.md, the layer rule)", from, imp, top, allowed)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 50 {
		t.Fatalf("walked %d packages; the check saw almost nothing", n)
	}
}

// ioInWorkflows are what a job kind's non-test code under workflows/ never
// writes: the wall clock (workflows use workflow.Now) and the database
// (queries go through store.DB's Q, Pool or InTx). Both belong in
// activities/<kind>, where a dispatcher calls them too.
var ioInWorkflows = []string{"time.Now(", ".Q()", ".Pool.", ".InTx("}

// TestWorkflowsDoNoIO fails when a non-test file under workflows/ (test
// helpers aside) reads the clock or queries the database.
func TestWorkflowsDoNoIO(t *testing.T) {
	n := 0
	err := filepath.WalkDir("workflows", func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && (d.Name() == "testdata" || testHelper(d.Name())):
			return filepath.SkipDir
		case d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go"):
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		n++
		for _, s := range ioInWorkflows {
			if strings.Contains(string(b), s) {
				t.Errorf("%s contains %q: no clock and no SQL in workflows/; move it into activities/", path, s)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("read %d files under workflows/; the check saw almost nothing", n)
	}
}
