package handlers

import (
	"bytes"
	"html/template"
	"net/http"
	"path"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/wasteflow/wasteflow/docs"
	"github.com/wasteflow/wasteflow/handlers/api"
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
<link rel="icon" href="data:,"><title>{{.Title}} · wasteflow docs</title>
<link rel="stylesheet" href="/ui/kern/fonts.css"><link rel="stylesheet" href="/ui/kern/kern.min.css">
<style>
*{box-sizing:border-box}
body{margin:0;font-family:var(--kern-typography-font-family-default,"Fira Sans"),sans-serif;font-size:1.125rem;line-height:1.6;color:var(--kern-color-layout-text-default,#131525);background:var(--kern-color-layout-background-default,#fff)}
.skip{position:absolute;left:-999rem;top:0}.skip:focus{left:1rem;top:.5rem;z-index:10;background:#fff;padding:.25rem .5rem}
.page-head{background:var(--kern-color-layout-layer-surface,#F3F4F7);border-bottom:2px solid var(--kern-color-action-default,#2044AA)}
.head-row{display:flex;flex-wrap:wrap;align-items:baseline;gap:.25rem 1.25rem;padding-top:.6rem;padding-bottom:.6rem}
.brand{margin:0;font-weight:600;color:var(--kern-color-action-default,#2044AA)}
.page-head nav ul{display:flex;flex-wrap:wrap;gap:.1rem 1.1rem;margin:0;padding:0;list-style:none}
.page-head nav a{white-space:nowrap}
main.kern-container{max-width:60rem;padding-top:1rem;padding-bottom:4rem;overflow-wrap:break-word}
main:focus{outline:none}
main h1,main h2,main h3,main h4{font-weight:600;line-height:1.25;margin:2rem 0 .75rem}
main h1{font-size:var(--kern-typography-font-size-large-adaptive,1.75rem);margin-top:1rem}
main h2{font-size:1.4rem;padding-top:.75rem;border-top:1px solid var(--kern-color-layout-border-level-1,#C0C3D5)}
main h3{font-size:1.2rem}
main h4{font-size:1.125rem}
main p,main ul,main ol{margin:0 0 1rem}
main li{margin:.2rem 0}
main a{color:var(--kern-color-action-default,#2044AA);text-underline-offset:3px}
main a:visited{color:var(--kern-color-action-visited,#75009E)}
a:focus-visible{outline:3px solid var(--kern-color-action-focus-default,#454B6B);outline-offset:2px}
.scroll:focus-visible,pre:focus-visible{outline:3px solid var(--kern-color-action-focus-default,#454B6B)!important;outline-offset:2px!important}
code{font-family:ui-monospace,"SFMono-Regular",Menlo,Consolas,monospace;font-size:.9em;background:var(--kern-color-layout-layer-surface,#F3F4F7);padding:.05em .3em;border-radius:2px}
td code,p code,li code{overflow-wrap:anywhere}
pre{margin:0 0 1rem;padding:.8rem 1rem;overflow:auto;background:var(--kern-color-layout-layer-surface,#F3F4F7);border-left:4px solid var(--kern-color-layout-border,#6E7597);line-height:1.45}
pre code{padding:0;background:none;font-size:.875rem;line-height:1.45}
.scroll{margin:0 0 1.25rem;overflow-x:auto}
.scroll .kern-table{min-width:100%;width:auto}
.kern-table .kern-table__header,.kern-table .kern-table__cell{font-size:1rem;padding:.45rem .6rem;vertical-align:top}
.kern-table__header code,.kern-table__cell code{font-size:.875rem}
blockquote{margin:0 0 1rem;padding:.5rem 1rem;border-left:4px solid var(--kern-color-feedback-info,#006B8C);background:var(--kern-color-feedback-info-background,#C0F3FF)}
blockquote p:last-child{margin:0}
img{max-width:100%;height:auto;border:1px solid var(--kern-color-layout-border-level-1,#C0C3D5)}
hr{border:0;border-top:1px solid var(--kern-color-layout-border,#6E7597);margin:2rem 0}
@media (max-width:47.99rem){body{font-size:1rem}main h1{font-size:1.6rem}main h2{font-size:1.35rem}}
</style></head><body>
<a class="skip kern-link" href="#main">Skip to the content</a>
<header class="page-head"><div class="kern-container head-row"><p class="brand">wasteflow</p>{{$b := .Base}}
<nav aria-label="Documentation"><ul><li><a class="kern-link" href="{{$b}}README.md">Documentation</a></li><li><a class="kern-link" href="{{$b}}integrators.md">Integrators</a></li><li><a class="kern-link" href="{{$b}}ui-builders.md">UI builders</a></li><li><a class="kern-link" href="{{$b}}operators.md">Operators</a></li><li><a class="kern-link" href="{{$b}}compliance.md">Compliance</a></li><li><a class="kern-link" href="{{$b}}transport-documents.md">Transport documents</a></li><li><a class="kern-link" href="{{$b}}reference/README.md">Reference</a></li></ul></nav></div></header>
<main id="main" class="kern-container" tabindex="-1">{{.Body}}</main></body></html>
`))

// kernHTML gives the HTML goldmark renders the classes of KERN UX, and
// makes what may scroll sideways reachable by keyboard: each table stands
// in a focusable region named by its column headers (it scrolls alone on a
// narrow screen, the page does not), each code block is focusable.
func kernHTML(body []byte) []byte {
	s := string(body)
	var out strings.Builder
	n := 0
	for {
		i := strings.Index(s, "<table>")
		if i < 0 {
			out.WriteString(s)
			break
		}
		n++
		out.WriteString(s[:i])
		s = s[i+len("<table>"):]
		// the region's name: "Table n" and its first headers, so that a
		// reader moving through the regions knows which one this is
		name := "Table " + strconv.Itoa(n)
		if head, _, ok := strings.Cut(s, "</tr>"); ok {
			var cols []string
			for _, c := range tableHead.FindAllStringSubmatch(head, 3) {
				if t := strings.TrimSpace(htmlTag.ReplaceAllString(c[1], "")); t != "" {
					cols = append(cols, t)
				}
			}
			if len(cols) > 0 {
				name += ": " + strings.Join(cols, ", ")
			}
		}
		out.WriteString(`<div class="scroll" role="region" tabindex="0" aria-label="` + template.HTMLEscapeString(name) + `"><table class="kern-table kern-table--striped">`)
		end := strings.Index(s, "</table>")
		if end < 0 {
			end = len(s)
		} else {
			end += len("</table>")
		}
		table := s[:end]
		table = cellOpen.ReplaceAllStringFunc(table, func(tag string) string {
			if strings.HasPrefix(tag, "<th") {
				return `<th class="kern-table__header"` + tag[len("<th"):]
			}
			return `<td class="kern-table__cell"` + tag[len("<td"):]
		})
		table = strings.NewReplacer("<thead>", `<thead class="kern-table__head">`, "<tbody>", `<tbody class="kern-table__body">`, "<tr>", `<tr class="kern-table__row">`).Replace(table)
		out.WriteString(table)
		if strings.HasSuffix(table, "</table>") {
			out.WriteString("</div>")
		}
		s = s[end:]
	}
	return []byte(strings.ReplaceAll(out.String(), "<pre>", `<pre tabindex="0">`))
}

var (
	tableHead = regexp.MustCompile(`<th[^>]*>(.*?)</th>`)
	htmlTag   = regexp.MustCompile(`<[^>]+>`)
	// cellOpen is a cell's opening tag: th becomes a header, td a cell.
	cellOpen = regexp.MustCompile(`<(th|td)(\s[^>]*)?>`)
)

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
	if err := docPage.Execute(&out, map[string]any{"Title": title, "Base": relRoot(dir), "Body": template.HTML(kernHTML(body))}); err != nil {
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
func (s *Server) docPaths() []api.PlainPath {
	return []api.PlainPath{
		{Path: "/docs", Summary: "The documentation (redirects to its index)", ContentType: "text/html",
			Description: "Redirects to /docs/README.md: the guides for integrators, UI builders, operators, compliance staff and " +
				"users of the transport documents, and the reference generated from the code, rendered to HTML from the Markdown " +
				"embedded in the binary (the documentation of the running version; no login, no network).",
			CSP: cspStyled, Get: func(c *gin.Context) { c.Redirect(http.StatusFound, "/docs/README.md") }},
		{Path: "/docs/:page", Summary: "A page of the documentation (or an image of it)", ContentType: "text/html", Also: []string{"image/png"},
			Description: "A guide as HTML (integrators.md, ui-builders.md, operators.md, compliance.md, transport-documents.md), or a screenshot it shows. An unknown page is 404 (code 5).",
			CSP:         cspStyled, Get: func(c *gin.Context) { docFile(c, c.Param("page")) }},
		{Path: "/docs/reference/:page", Summary: "A page of the reference generated from the code", ContentType: "text/html",
			Description: "operations.md, business-errors.md, workflows.md, settings.md, events.md, commands.md, registers.md: generated by `wasteflow docs` from the declarations.",
			CSP:         cspStyled, Get: func(c *gin.Context) { docFile(c, "reference/"+c.Param("page")) }},
	}
}
