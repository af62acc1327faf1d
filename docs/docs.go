// Package docs holds the guides and the generated reference (Markdown, the
// screenshots beside them) and what reads them: the fenced blocks the
// walk-through tests run, the links and anchors the link check follows,
// and the HTML the server shows at /docs. The pages are embedded, so the
// binary serves the documentation of its own version with no network.
package docs

import (
	"bytes"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Files are the pages (*.md, reference/*.md) and images (*.png).
//
//go:embed *.md reference/*.md *.png
var Files embed.FS

// Pages lists the Markdown pages of Files, index first.
func Pages() []string {
	var pages []string
	_ = fs.WalkDir(Files, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && p != "README.md" {
			pages = append(pages, p)
		}
		return nil
	})
	return append([]string{"README.md"}, pages...)
}

// Block is a fenced code block. Info is its info string ("sh run"): the
// language first, then tags.
type Block struct {
	Line int // 1-based line of the opening fence
	Lang string
	Tags []string
	Text string
}

// Tagged reports whether the block carries tag (after the language).
func (b Block) Tagged(tag string) bool {
	for _, t := range b.Tags {
		if t == tag {
			return true
		}
	}
	return false
}

// Link is a link or image destination in a page.
type Link struct {
	Line  int
	Dest  string
	Image bool
}

// Page is what a Markdown page holds that the checks and the server read.
type Page struct {
	Blocks []Block
	Links  []Link
	// Anchors are the ids of its headings as GitHub makes them (and as
	// Render sets them), plus explicit <a id="…"> / name anchors.
	Anchors map[string]bool
}

var md = goldmark.New(
	goldmark.WithExtensions(extension.GFM),
	goldmark.WithParserOptions(parser.WithASTTransformers(util.Prioritized(headingIDs{}, 100))),
	goldmark.WithRendererOptions(html.WithUnsafe()),
)

var anchorRe = regexp.MustCompile(`<a\s+(?:id|name)="([^"]+)"`)

// Parse reads a page.
func Parse(src []byte) Page {
	doc := md.Parser().Parse(text.NewReader(src))
	p := Page{Anchors: map[string]bool{}}
	for _, m := range anchorRe.FindAllSubmatch(src, -1) {
		p.Anchors[string(m[1])] = true
	}
	lineOf := func(offset int) int { return bytes.Count(src[:offset], []byte("\n")) + 1 }
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			if id, ok := n.AttributeString("id"); ok {
				p.Anchors[string(id.([]byte))] = true
			}
		case *ast.FencedCodeBlock:
			var b Block
			if n.Info != nil {
				f := strings.Fields(string(n.Info.Segment.Value(src)))
				if len(f) > 0 {
					b.Lang, b.Tags = f[0], f[1:]
				}
			}
			var sb strings.Builder
			for i := 0; i < n.Lines().Len(); i++ {
				seg := n.Lines().At(i)
				if i == 0 {
					b.Line = lineOf(seg.Start) - 1
				}
				sb.Write(seg.Value(src))
			}
			if n.Lines().Len() == 0 && n.Info != nil {
				b.Line = lineOf(n.Info.Segment.Start)
			}
			b.Text = sb.String()
			p.Blocks = append(p.Blocks, b)
		case *ast.Link:
			p.Links = append(p.Links, Link{Line: nodeLine(n, src, lineOf), Dest: string(n.Destination)})
		case *ast.Image:
			p.Links = append(p.Links, Link{Line: nodeLine(n, src, lineOf), Dest: string(n.Destination), Image: true})
		case *ast.AutoLink:
			p.Links = append(p.Links, Link{Line: nodeLine(n, src, lineOf), Dest: string(n.URL(src))})
		}
		return ast.WalkContinue, nil
	})
	return p
}

// nodeLine finds the line of an inline node through its first text.
func nodeLine(n ast.Node, src []byte, lineOf func(int) int) int {
	for c := n; c != nil; c = c.Parent() {
		if c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
			return lineOf(c.Lines().At(0).Start)
		}
	}
	return 0
}

// Render turns a page into HTML (GitHub Flavored Markdown, headings with
// GitHub's ids). rewrite, when set, maps each link destination: the server
// points links outside the pages elsewhere, or to "" to keep only the
// link's text.
func Render(src []byte, rewrite func(dest string) string) ([]byte, error) {
	doc := md.Parser().Parse(text.NewReader(src))
	if rewrite != nil {
		var unlink []*ast.Link
		_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
			if !entering {
				return ast.WalkContinue, nil
			}
			switch n := n.(type) {
			case *ast.Link:
				if n.Destination = []byte(rewrite(string(n.Destination))); len(n.Destination) == 0 {
					unlink = append(unlink, n)
				}
			case *ast.Image:
				n.Destination = []byte(rewrite(string(n.Destination)))
			}
			return ast.WalkContinue, nil
		})
		// A link rewritten to nothing keeps its text, without the link.
		for _, l := range unlink {
			parent := l.Parent()
			for c := l.FirstChild(); c != nil; {
				next := c.NextSibling()
				parent.InsertBefore(parent, l, c)
				c = next
			}
			parent.RemoveChild(parent, l)
		}
	}
	var out bytes.Buffer
	if err := md.Renderer().Render(&out, src, doc); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return out.Bytes(), nil
}

// Slug is the anchor GitHub gives a heading: lower case, letters, digits,
// hyphens and underscores kept, spaces made hyphens, the rest dropped.
func Slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// headingIDs sets each heading's id as GitHub does (a repeated heading
// gets -1, -2, …).
type headingIDs struct{}

func (headingIDs) Transform(doc *ast.Document, reader text.Reader, _ parser.Context) {
	src := reader.Source()
	seen := map[string]int{}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		id := Slug(plainText(h, src))
		if k := seen[id]; k > 0 {
			seen[id] = k + 1
			id = fmt.Sprintf("%s-%d", id, k)
		} else {
			seen[id] = 1
		}
		h.SetAttributeString("id", []byte(id))
		return ast.WalkSkipChildren, nil
	})
}

// plainText is the text of a node's inline children (code spans and
// emphasis included, markup dropped).
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for g := c.FirstChild(); g != nil; g = g.NextSibling() {
				if t, ok := g.(*ast.Text); ok {
					b.Write(t.Segment.Value(src))
				}
			}
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

// Resolve joins a relative link destination to the page that holds it:
// the path (slash-separated, relative to the page's base) and the anchor.
func Resolve(page, dest string) (target, anchor string) {
	target, anchor, _ = strings.Cut(dest, "#")
	if target == "" {
		return page, anchor
	}
	return path.Join(path.Dir(page), target), anchor
}
