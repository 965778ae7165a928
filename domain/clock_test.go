package domain_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestDomainNeverCallsTimeNow parses every non-test source of domain/ (and
// its helper packages) and fails on any use of time.Now, or a package-level
// now() function: services tell the time through the domain.Clock their
// constructor took. SystemClock in clock.go and the token cache (below) are
// the exceptions.
func TestDomainNeverCallsTimeNow(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		// testfactory is linked only by tests: its fixtures stamp real times.
		if d.IsDir() && path == "testfactory" {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		// The token cache judges a cached token's expiry by the clock the JWT
		// library verified it with (the wall clock), or it would outlive it.
		wallClockOK := path == filepath.Join("account", "authcache.go")
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		checked++
		timeName := ""
		for _, imp := range f.Imports {
			if imp.Path.Value == `"time"` {
				timeName = "time"
				if imp.Name != nil {
					timeName = imp.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if n.Recv == nil && n.Name.Name == "now" {
					t.Errorf("%s: package-level now(): take a domain.Clock through the service's constructor", fset.Position(n.Pos()))
				}
				if path == "clock.go" && n.Recv != nil && n.Name.Name == "Now" {
					return false // SystemClock.Now is the wall clock
				}
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok && timeName != "" && id.Name == timeName && n.Sel.Name == "Now" && !wallClockOK {
					t.Errorf("%s: time.Now in domain code: use the service's domain.Clock", fset.Position(n.Pos()))
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 50 {
		t.Fatalf("checked only %d files; the walk is broken", checked)
	}
}
