package handlers

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// Pages for people (the console, the deadline and signing pages, /docs,
// the inspection page, the pages of mail links) get their protection
// here, in one place: every answer whose Content-Type is HTML leaves with
// a Content-Security-Policy (its path's, PlainPath.CSP, or cspDefault),
// X-Frame-Options: DENY and Referrer-Policy; every answer with
// X-Content-Type-Options: nosniff. A handler writes HTML without
// thinking of them, and cannot forget them.

const (
	// cspDefault is the policy of an HTML page that declared none: it
	// loads nothing, runs nothing, is framed by nobody.
	cspDefault = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	// cspScripted is the policy of the pages for people under /ui: their
	// own scripts and style sheets (no inline script, style or handler),
	// the fonts served with KERN UX (/ui/kern/fonts), calls to this
	// server's API, downloads made from blobs, KERN's icons (data: SVG).
	cspScripted = "default-src 'none'; script-src 'self'; style-src 'self'; font-src 'self'; connect-src 'self'; img-src 'self' data: blob:; " +
		"base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
	// cspStyled is the policy of a page with its style in the page or in
	// this server's style sheets (KERN UX and its fonts) and no script
	// (the docs).
	cspStyled = "default-src 'none'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	// cspInspection is the inspection page's: cspStyled with its QR code
	// and images given inline (data:) only.
	cspInspection = "default-src 'none'; style-src 'self' 'unsafe-inline'; font-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
	// cspStyledForm is cspStyled for a page whose button posts its form
	// back (the pages of mail links).
	cspStyledForm = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)

// ctxKeyCSP holds the policy of the path a request matched.
const ctxKeyCSP = "wasteflow.csp"

// pageHeaders is the writer of every answer: it adds the headers above
// when the header is sent, as the Content-Type is known then (gin's
// WriteHeader only records the status; the header leaves with
// WriteHeaderNow or the first byte of the body).
type pageHeaders struct {
	gin.ResponseWriter
	c    *gin.Context
	done bool
}

func (w *pageHeaders) protect() {
	if w.done {
		return
	}
	w.done = true
	h := w.ResponseWriter.Header()
	if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
		return
	}
	if h.Get("Content-Security-Policy") == "" {
		csp := cspDefault
		if v, ok := w.c.Get(ctxKeyCSP); ok {
			csp = v.(string)
		}
		h.Set("Content-Security-Policy", csp)
	}
	h.Set("X-Frame-Options", "DENY") // for browsers without frame-ancestors
	if h.Get("Referrer-Policy") == "" {
		h.Set("Referrer-Policy", "no-referrer")
	}
}

func (w *pageHeaders) WriteHeaderNow() { w.protect(); w.ResponseWriter.WriteHeaderNow() }

func (w *pageHeaders) Write(b []byte) (int, error) { w.protect(); return w.ResponseWriter.Write(b) }

func (w *pageHeaders) WriteString(s string) (int, error) {
	w.protect()
	return w.ResponseWriter.WriteString(s)
}

func (w *pageHeaders) Flush() { w.protect(); w.ResponseWriter.Flush() }

// securityHeaders wraps the writer of a request (see pageHeaders).
func securityHeaders(c *gin.Context) {
	c.Header("X-Content-Type-Options", "nosniff")
	c.Writer = &pageHeaders{ResponseWriter: c.Writer, c: c}
	c.Next()
}

// root answers GET /: a browser (Accept names text/html) goes to the
// console; any other client gets, with 200, where the API is described.
func (s *Server) root(c *gin.Context) {
	if acceptsHTML(c.GetHeader("Accept")) {
		c.Redirect(http.StatusFound, "/ui")
		return
	}
	c.JSON(http.StatusOK, gin.H{
		"name":    "wasteflow",
		"version": s.version,
		"message": "This is the wasteflow API: each operation is a POST to /PACKAGE.SERVICE/METHOD with a provider_id header, as the OpenAPI description says (links).",
		"links": gin.H{
			"openapi":     "/openapi.yaml",
			"openapiJson": "/openapi.json",
			"docs":        "/docs",
			"console":     "/ui",
			"health":      "/healthz",
			"ready":       "/readyz",
		},
	})
}

// acceptsHTML reports whether an Accept header names text/html (or
// application/xhtml+xml) with a weight above 0.
func acceptsHTML(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		media, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		media = strings.ToLower(strings.TrimSpace(media))
		if media != "text/html" && media != "application/xhtml+xml" {
			continue
		}
		refused := false
		for _, p := range strings.Split(params, ";") {
			k, v, _ := strings.Cut(strings.TrimSpace(p), "=")
			if strings.EqualFold(strings.TrimSpace(k), "q") {
				v = strings.TrimSpace(v)
				refused = strings.Trim(v, "0.") == "" // q=0, q=0.0, q=0.000
			}
		}
		if !refused {
			return true
		}
	}
	return false
}
