package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/wasteflow/wasteflow/"

// The rooms of the house and what each may import of the others
// besides itself (docs/ARCHITECTURE.md): each floor imports only the floors
// below it.
var mayImport = map[string][]string{
	"cmd":        {"handlers", "schedulers", "workflows", "models", "configs", "rules", "proto", "docs"},
	"handlers":   {"workflows", "models", "configs", "rules", "proto", "docs"},
	"proto":      {},
	"docs":       {},
	"schedulers": {},
	"workflows":  {"models", "configs", "rules"},
	"models":     {"configs", "rules"},
	"configs":    {"rules"},
	"rules":      {},
}

// Only models speaks SQL through gorm and its drivers.
var storageOnly = []string{"gorm.io/", "github.com/glebarez/sqlite", "github.com/jackc/pgx", "database/sql"}

// gormCalls are gorm's query builders that no other library of ours has:
// models.DB is gorm's DB, so a room above models could build queries on
// it without importing gorm.
var gormCalls = map[string]bool{"Raw": true, "Exec": true, "Model": true, "Table": true, "Pluck": true, "Joins": true, "Preload": true, "ScanRows": true}

// sqlText is a string that reads as SQL: a statement's first word, or a
// condition with a placeholder.
var sqlText = regexp.MustCompile(`(?i)^\s*(select|insert into|update \w+ set|delete from|with \w+ as)\b|\w+ (=|<>|<|>|<=|>=|in|like) (\?|\$\d)`)

// TestTheHouseKeepsItsRooms reads every non-test Go file: no room imports
// one above it, and no file outside models imports gorm, a database driver
// or database/sql, calls gorm's query builders or holds SQL text.
func TestTheHouseKeepsItsRooms(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	files := 0
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if name := d.Name(); rel != "." && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "testdata" || name == "tools" || name == "bin") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		room, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		allowed, known := mayImport[room]
		if !known {
			t.Errorf("%s: %s is no room of the house (add it to mayImport and docs/ARCHITECTURE.md)", rel, room)
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		files++
		if room != "models" {
			ast.Inspect(f, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok && gormCalls[sel.Sel.Name] {
						t.Errorf("%s: %s calls %s: only models builds queries", rel, fset.Position(n.Pos()), sel.Sel.Name)
					}
				case *ast.BasicLit:
					if text, err := strconv.Unquote(n.Value); err == nil && n.Kind == token.STRING && sqlText.MatchString(text) {
						t.Errorf("%s: %s holds SQL (%.40q): only models speaks SQL", rel, fset.Position(n.Pos()), text)
					}
				}
				return true
			})
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if own, ok := strings.CutPrefix(p, module); ok {
				to, _, _ := strings.Cut(own, "/")
				if to != room && !contains(allowed, to) {
					t.Errorf("%s imports %s: %s may not import %s", rel, p, room, to)
				}
			}
			if room != "models" {
				for _, s := range storageOnly {
					if strings.HasPrefix(p, s) {
						t.Errorf("%s imports %s: only models speaks to the database", rel, p)
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("read %d files: the walk missed the tree", files)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
