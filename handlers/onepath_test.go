package handlers_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// One call path (issue 48.1, 48.4): no RPC call is made into an HTTP
// request for gin to serve. No file of the server constructs an
// http.Request (a composite literal, http.NewRequest…) or a response
// recorder, and none carries a "this came from gRPC" flag in a context;
// the faces meet in Server.Admit and Server.Invoke.
func TestNoCallIsMadeUpAsAnHTTPRequest(t *testing.T) {
	var files []string // handlers and the packages beside it: the RPC face (rpc), api, contract, codec
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") && !strings.Contains(path, "testdata") {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, filepath.Join("rpc", "face.go")) {
		t.Fatalf("the RPC face is not among the files read: %v", files)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CompositeLit:
				if sel, ok := n.Type.(*ast.SelectorExpr); ok && isPkg(sel.X, "http") && sel.Sel.Name == "Request" {
					t.Errorf("%s: an http.Request is made up", fset.Position(n.Pos()))
				}
			case *ast.SelectorExpr:
				if (isPkg(n.X, "http") && strings.HasPrefix(n.Sel.Name, "NewRequest")) || (isPkg(n.X, "httptest") && n.Sel.Name == "NewRecorder") {
					t.Errorf("%s: %s.%s", fset.Position(n.Pos()), n.X.(*ast.Ident).Name, n.Sel.Name)
				}
			case *ast.Ident:
				if n.Name == "fromGRPC" || n.Name == "viaGRPCKey" || n.Name == "dispatch" {
					t.Errorf("%s: %s: a call that knows which face it came from", fset.Position(n.Pos()), n.Name)
				}
			}
			return true
		})
	}
}

func isPkg(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}
