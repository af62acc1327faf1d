package handlers

import (
	"bytes"
	"html/template"
	"net/http"
	"path"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/wasteflow/wasteflow/docs"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The guides and the reference, embedded in the binary (package docs),
// served at /docs as HTML: the documentation of the version that runs,
// with no network. Pages keep their Markdown names (/docs/integrators.md),
// so the links between them work unchanged; a link out of docs/ (to the
// README or to a source file) points at the index, or loses its link and
// keeps its text.

var docPage = template.Must(template.New("doc").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}} · wasteflow docs</title>
<style>
body{font:16px/1.55 system-ui,sans-serif;margin:0;color:#1b1f24;background:#fff}
header{padding:.6rem 1.2rem;border-bottom:1px solid #d0d7de;background:#f6f8fa;display:flex;flex-wrap:wrap;gap:.2rem 1rem}
header a{white-space:nowrap}
main{max-width:60rem;margin:0 auto;padding:1rem 1.2rem 4rem;overflow-wrap:break-word}
td code,p code,li code{overflow-wrap:anywhere}
pre{background:#f6f8fa;padding:.8rem;overflow:auto;border-radius:6px}
code{font:14px ui-monospace,monospace}
table{border-collapse:collapse;display:block;overflow:auto}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;vertical-align:top}
img{max-width:100%}
a{color:#0969da}
</style></head><body>
<header>{{$b := .Base}}<a href="{{$b}}README.md">Documentation</a><a href="{{$b}}integrators.md">Integrators</a><a href="{{$b}}ui-builders.md">UI builders</a><a href="{{$b}}operators.md">Operators</a><a href="{{$b}}compliance.md">Compliance</a><a href="{{$b}}transport-documents.md">Transport documents</a><a href="{{$b}}reference/README.md">Reference</a></header>
<main>{{.Body}}</main></body></html>
`))

type renderedDocs struct {
	mu    sync.Mutex
	pages map[string][]byte // by path under docs/, rendered when first asked for
}

var docSite renderedDocs

// docFile answers a page (rendered) or an image of the docs.
func docFile(c *gin.Context, name string) {
	if strings.HasSuffix(name, ".png") {
		if b, err := docs.Files.ReadFile(name); err == nil {
			c.Header("Cache-Control", "public, max-age=3600")
			c.Data(http.StatusOK, "image/png", b)
			return
		}
	}
	if !strings.HasSuffix(name, ".md") {
		renderError(c, status.New(status.NotFound, "Not Found"))
		return
	}
	docSite.mu.Lock()
	if docSite.pages == nil {
		docSite.pages = map[string][]byte{}
	}
	html, ok := docSite.pages[name]
	docSite.mu.Unlock()
	if !ok {
		src, err := docs.Files.ReadFile(name)
		if err != nil {
			renderError(c, status.New(status.NotFound, "Not Found"))
			return
		}
		if html, err = renderDoc(name, src); err != nil {
			renderError(c, err)
			return
		}
		docSite.mu.Lock()
		docSite.pages[name] = html
		docSite.mu.Unlock()
	}
	c.Data(http.StatusOK, "text/html; charset=utf-8", html)
}

func renderDoc(name string, src []byte) ([]byte, error) {
	dir := path.Dir(name)
	body, err := docs.Render(src, func(dest string) string {
		if strings.Contains(dest, "://") || strings.HasPrefix(dest, "#") || strings.HasPrefix(dest, "mailto:") {
			return dest
		}
		target, _ := docs.Resolve(dir+"/x", dest)
		switch target = path.Clean(target); {
		case !strings.HasPrefix(target, "../"):
			if _, err := docs.Files.Open(target); err == nil {
				return dest // a page or image served here
			}
		case target == "../README.md": // the repository's README: the index here
			return relRoot(dir) + "README.md"
		}
		return "" // a file of the repository that is not served: its text stays
	})
	if err != nil {
		return nil, status.Wrap(err, status.Internal, "the page cannot be rendered")
	}
	title := name
	if line, _, _ := bytes.Cut(src, []byte("\n")); bytes.HasPrefix(line, []byte("# ")) {
		title = string(bytes.TrimPrefix(line, []byte("# ")))
	}
	var out bytes.Buffer
	if err := docPage.Execute(&out, map[string]any{"Title": title, "Base": relRoot(dir), "Body": template.HTML(body)}); err != nil {
		return nil, status.Wrap(err, status.Internal, "the page cannot be rendered")
	}
	return out.Bytes(), nil
}

// relRoot is the way from a directory under docs/ back to docs/ ("" or
// "../").
func relRoot(dir string) string {
	if dir == "." || dir == "" {
		return ""
	}
	return strings.Repeat("../", strings.Count(dir, "/")+1)
}

// docPaths are the plain paths of the docs.
func (s *Server) docPaths() []PlainPath {
	return []PlainPath{
		{Path: "/docs", Summary: "The documentation (redirects to its index)", ContentType: "text/html",
			Description: "Redirects to /docs/README.md: the guides for integrators, UI builders, operators, compliance staff and " +
				"users of the transport documents, and the reference generated from the code, rendered to HTML from the Markdown " +
				"embedded in the binary (the documentation of the running version; no login, no network).",
			CSP: cspStyled, handler: func(c *gin.Context) { c.Redirect(http.StatusFound, "/docs/README.md") }},
		{Path: "/docs/:page", Summary: "A page of the documentation (or an image of it)", ContentType: "text/html", Also: []string{"image/png"},
			Description: "A guide as HTML (integrators.md, ui-builders.md, operators.md, compliance.md, transport-documents.md), or a screenshot it shows. An unknown page is 404 (code 5).",
			CSP:         cspStyled, handler: func(c *gin.Context) { docFile(c, c.Param("page")) }},
		{Path: "/docs/reference/:page", Summary: "A page of the reference generated from the code", ContentType: "text/html",
			Description: "operations.md, business-errors.md, workflows.md, settings.md, events.md, commands.md, registers.md: generated by `wasteflow docs` from the declarations.",
			CSP:         cspStyled, handler: func(c *gin.Context) { docFile(c, "reference/"+c.Param("page")) }},
	}
}
