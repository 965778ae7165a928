package api_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestHandlersRespondOneWay: handlers answer JSON through api.Send (which
// also sets the ETag of a versioned resource); only Send itself and the
// error envelope's writer call Fiber's Ctx.JSON.
func TestHandlersRespondOneWay(t *testing.T) {
	allowed := map[string]bool{"etag.go": true, "errors.go": true}
	found := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) != 1 {
				return true
			}
			if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "JSON" {
				return true
			}
			if !allowed[path] {
				t.Errorf("%s: answers with Ctx.JSON; use api.Send", path)
			}
			found++
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if found < len(allowed) {
		t.Fatalf("found %d Ctx.JSON calls, want at least %d (Send and the error envelope): the check no longer sees them", found, len(allowed))
	}
}
