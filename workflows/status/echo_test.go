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
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			if (isSel(call.Fun, "fmt", "Sprintf") || isSel(call.Fun, "fmt", "Errorf")) && len(call.Args) > 0 && !serversOwnWords(rel) {
				if lit, ok := call.Args[0].(*ast.BasicLit); ok {
					if s, _ := strconv.Unquote(lit.Value); strings.Contains(s, "%q") {
						t.Errorf("%s:%d: fmt quotes a value with %%q: use echo.Sprintf or echo.Errorf (rules/echo), which cut what a client sent, or list the file in serversOwnWords if it quotes only the server's own values", rel, fset.Position(call.Pos()).Line)
					}
				}
			}
			// A helper that formats its caller's format and arguments
			// (errorf(format, args...)) formats values the caller quotes.
			if (isSel(call.Fun, "fmt", "Sprintf") || isSel(call.Fun, "fmt", "Errorf")) && call.Ellipsis.IsValid() && !serversOwnWords(rel) {
				if _, lit := call.Args[0].(*ast.BasicLit); !lit {
					t.Errorf("%s:%d: fmt formats a caller's format and arguments: use echo.Sprintf or echo.Errorf, so that a value quoted with %%q is cut", rel, fset.Position(call.Pos()).Line)
				}
			}
			if !isSel(call.Fun, "status", "Invalid") {
				return true
			}
			for _, arg := range call.Args {
				if in, ok := arg.(*ast.CallExpr); ok && isSel(in.Fun, "fmt", "Sprintf") && len(in.Args) > 0 {
					if lit, ok := in.Args[0].(*ast.BasicLit); ok {
						if s, _ := strconv.Unquote(lit.Value); strings.Contains(s, "%q") {
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

// serversOwnWords are the files whose fmt.Sprintf and fmt.Errorf quote
// only the server's own values (declarations, embedded data, settings,
// files an operator gives the command line): their messages never reach a
// client with a value the client sent.
func serversOwnWords(rel string) bool {
	switch {
	case strings.HasPrefix(rel, "cmd/"), strings.HasPrefix(rel, "configs/"), strings.HasPrefix(rel, "proto/"):
		return true // the command line and the configuration: an operator's values
	}
	switch rel {
	case "handlers/codec/schema.go", "handlers/codec/limits.go", "handlers/codec/marshal.go", "handlers/contract/proto.go", "handlers/rpc/wire.go",
		"workflows/documents/declare.go", "workflows/documents/registry.go", "workflows/documents/face.go", "workflows/engine/engine.go",
		"models/qpar/apply.go", "models/store.go": // the declarations of types, kinds and lists, checked at start
		return true
	case "rules/echo/echo.go": // the cutter itself
		return true
	case "rules/wastecodes/data.go", "rules/wastecodes/wastecodes.go", "rules/calendar/zones.go": // embedded data; wastecodes cuts its own quotes
		return true
	case "models/db.go", "models/migrate.go", "models/flatjson.go", "models/transportstore.go", "schedulers/scheduler.go", "workflows/tokens/keys.go":
		return true // drivers, migrations, stored rows, schedules, key files
	case "workflows/auth/admin.go", "workflows/bootstrap/transport.go", "workflows/bootstrap/bootstrap.go": // the admin commands and bootstrap files
		return true
	}
	return false
}

func isSel(e ast.Expr, pkg, name string) bool {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != name {
		return false
	}
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg
}
