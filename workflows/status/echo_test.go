package status_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Issue 44.15: a message quotes a value the client sent through New, Wrap
// or Invalidf, which cut it to echo.Max characters; a description
// formatted beside them with fmt.Sprintf and %q would not be cut. This
// reads every non-test Go file for status.Invalid(field, fmt.Sprintf("…%q…")).
func TestQuotedValuesGoThroughEcho(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "tools" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || !isSel(call.Fun, "status", "Invalid") {
				return true
			}
			for _, arg := range call.Args {
				if in, ok := arg.(*ast.CallExpr); ok && isSel(in.Fun, "fmt", "Sprintf") && len(in.Args) > 0 {
					if lit, ok := in.Args[0].(*ast.BasicLit); ok {
						if s, _ := strconv.Unquote(lit.Value); strings.Contains(s, "%q") {
							rel, _ := filepath.Rel(root, path)
							t.Errorf("%s:%d: status.Invalid with fmt.Sprintf quoting a value: use status.Invalidf", rel, fset.Position(call.Pos()).Line)
						}
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files: the walk missed the tree", files)
	}
}

func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
