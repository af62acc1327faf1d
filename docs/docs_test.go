package docs_test

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/docs"
	"github.com/wasteflow/wasteflow/rules"
)

// pagesOnDisk are the README and every page under docs/, slash paths from
// the repository's root.
func pagesOnDisk(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	err := filepath.WalkDir(".", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			pages = append(pages, path.Join("docs", filepath.ToSlash(p)))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(pages[1:])
	return pages
}

// Every relative link of the README and the docs reaches a file of the
// repository, and every anchor a heading (or an <a id>) of its page.
// Links to the web are not followed (no network); links to a running
// server (127.0.0.1) are the walk-throughs' business.
func TestLinksResolve(t *testing.T) {
	parsed := map[string]docs.Page{}
	read := func(p string) (docs.Page, error) {
		if pg, ok := parsed[p]; ok {
			return pg, nil
		}
		src, err := os.ReadFile(filepath.Join("..", filepath.FromSlash(p)))
		if err != nil {
			return docs.Page{}, err
		}
		pg := docs.Parse(src)
		parsed[p] = pg
		return pg, nil
	}
	checked := 0
	for _, page := range pagesOnDisk(t) {
		pg, err := read(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range pg.Links {
			d := l.Dest
			if d == "" {
				t.Errorf("%s:%d: an empty link", page, l.Line)
				continue
			}
			if strings.Contains(d, "://") || strings.HasPrefix(d, "mailto:") {
				continue
			}
			if strings.HasPrefix(d, "/") {
				t.Errorf("%s:%d: %s: link relative to the page, not to a root", page, l.Line, d)
				continue
			}
			target, anchor := docs.Resolve(page, d)
			if strings.HasPrefix(target, "../") {
				t.Errorf("%s:%d: %s leaves the repository", page, l.Line, d)
				continue
			}
			checked++
			info, err := os.Stat(filepath.Join("..", filepath.FromSlash(target)))
			if err != nil {
				t.Errorf("%s:%d: %s: no such file %s", page, l.Line, d, target)
				continue
			}
			if anchor == "" {
				continue
			}
			if info.IsDir() || !strings.HasSuffix(target, ".md") {
				t.Errorf("%s:%d: %s: an anchor into something that is not a page", page, l.Line, d)
				continue
			}
			tp, err := read(target)
			if err != nil {
				t.Fatal(err)
			}
			if !tp.Anchors[anchor] {
				t.Errorf("%s:%d: %s: %s has no heading #%s", page, l.Line, d, target, anchor)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d relative links checked: is the parser finding them?", checked)
	}
}

// The link check itself: a broken file, a broken anchor and a good one.
func TestLinkParsing(t *testing.T) {
	pg := docs.Parse([]byte("# Title\n\n## Lists and `work` queues!\n\n## Lists and work queues\n\nSee [a](#lists-and-work-queues-1) and ![i](x.png).\n\n```sh run\necho hi\n```\n"))
	for _, a := range []string{"title", "lists-and-work-queues", "lists-and-work-queues-1"} {
		if !pg.Anchors[a] {
			t.Errorf("no anchor %q in %v", a, pg.Anchors)
		}
	}
	if len(pg.Links) != 2 || pg.Links[0].Dest != "#lists-and-work-queues-1" || !pg.Links[1].Image || pg.Links[0].Line != 7 {
		t.Errorf("links: %+v", pg.Links)
	}
	if len(pg.Blocks) != 1 || pg.Blocks[0].Lang != "sh" || !pg.Blocks[0].Tagged("run") || pg.Blocks[0].Text != "echo hi\n" || pg.Blocks[0].Line != 9 {
		t.Errorf("blocks: %+v", pg.Blocks)
	}
	if target, anchor := docs.Resolve("docs/integrators.md", "reference/settings.md#x"); target != "docs/reference/settings.md" || anchor != "x" {
		t.Errorf("resolve: %s %s", target, anchor)
	}
}

// Every embedded page renders.
func TestPagesRender(t *testing.T) {
	for _, p := range docs.Pages() {
		src, err := docs.Files.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		html, err := docs.Render(src, nil)
		if err != nil || !strings.Contains(string(html), "<h1") {
			t.Errorf("%s: %v", p, err)
		}
	}
}

// A link rewritten to nothing keeps its text and loses its anchor.
func TestRenderUnlinks(t *testing.T) {
	html, err := docs.Render([]byte("# T\n\nSee [the code](../handlers/x.go) and [the guide](integrators.md).\n"), func(d string) string {
		if strings.HasPrefix(d, "../") {
			return ""
		}
		return d
	})
	if err != nil || !strings.Contains(string(html), "See the code and <a href=\"integrators.md\">the guide</a>.") {
		t.Fatalf("%v: %s", err, html)
	}
}

// The operators guide lists every provider setting with its default and
// range, as rules.ProviderSettings declares them.
func TestOperatorsGuideListsEverySetting(t *testing.T) {
	guide, err := os.ReadFile("operators.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range rules.ProviderSettings {
		row := fmt.Sprintf("| `%s` | %d | %d–%d |", s.Name, s.Default, s.Min, s.Max)
		at := strings.Index(string(guide), row)
		if at < 0 {
			t.Errorf("operators.md has no row %q", row)
			continue
		}
		if line, _, _ := strings.Cut(string(guide)[at:], "\n"); !strings.Contains(line, s.LegalBasis) {
			t.Errorf("operators.md's row of %s does not name its legal basis %q", s.Name, s.LegalBasis)
		}
	}
}
