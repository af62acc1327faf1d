package main

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules"
)

// The committed reference pages are what the code generates: a changed
// operation, intent, rule, setting, event kind or command that was not
// regenerated (make docs) fails here.
func TestReferenceIsCurrent(t *testing.T) {
	t.Parallel()
	cfg, err := configs.Load(environment(t, dbtest.SQLite(t)))
	if err != nil {
		t.Fatal(err)
	}
	pages, err := referencePages(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join("..", "..", "docs", "reference")
	var stale []string
	for name, b := range pages {
		if old, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(old) != string(b) {
			stale = append(stale, name)
		}
	}
	committed, _ := filepath.Glob(filepath.Join(dir, "*.md"))
	for _, f := range committed {
		if _, ok := pages[filepath.Base(f)]; !ok {
			stale = append(stale, filepath.Base(f)+" (no longer generated)")
		}
	}
	sort.Strings(stale)
	if len(stale) > 0 {
		t.Fatalf("docs/reference is not what the code generates; run make docs and commit: %s", strings.Join(stale, ", "))
	}
}

// The catalogue of business errors holds every code a rule package
// declares, once, and each is declared by an intent of some kind (and no
// intent declares a code the catalogue lacks), so the reference says when
// each occurs and who raises it.
func TestBusinessErrorCatalogue(t *testing.T) {
	var catalogue []string
	for _, c := range rules.BusinessErrors {
		if slices.Contains(catalogue, c.Code) {
			t.Errorf("%s is in the catalogue twice", c.Code)
		}
		if strings.TrimSpace(c.When) == "" {
			t.Errorf("%s says nothing of when it occurs", c.Code)
		}
		catalogue = append(catalogue, c.Code)
	}
	// Every code constant of the rule packages ("Err… = \"CODE\"").
	constRe := regexp.MustCompile(`\bErr[A-Z]\w*\s*=\s*"([A-Z][A-Z_]+)"`)
	files, _ := filepath.Glob(filepath.Join("..", "..", "rules", "*", "*.go"))
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range constRe.FindAllSubmatch(src, -1) {
			if !slices.Contains(catalogue, string(m[1])) {
				t.Errorf("%s declares %s, which the catalogue (rules.BusinessErrors) lacks", f, m[1])
			}
		}
	}
	declared := map[string]bool{}
	for _, k := range documentKinds() {
		for _, c := range k.Codes {
			declared[c] = true
			if !slices.Contains(catalogue, c) {
				t.Errorf("kind %s declares %s, which the catalogue lacks", k.Name(), c)
			}
		}
	}
	for _, c := range catalogue {
		if !declared[c] {
			t.Errorf("no intent declares %s", c)
		}
	}
}
