package tests

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/models/dbtest"
	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
)

// noRedirects is a client that shows a redirect instead of following it.
var noRedirects = &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func getWith(t *testing.T, u string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, body
}

// Issue 44.5: every HTML page the server serves (found in the OpenAPI
// description: each GET path that answers text/html) leaves with a
// Content-Security-Policy that lets nobody frame it and runs no inline
// script, X-Frame-Options: DENY, a Referrer-Policy and nosniff; the pages
// under /ui load their own scripts and styles only; every other answer
// carries nosniff too.
func TestPagesSendSecurityHeaders(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	_, printed := d.printed(t, "alice", co, d.submitted(t), "en")
	token := printed["inspectionLink"].(string)
	token = token[strings.LastIndex(token, "/")+1:]

	doc := d.openapi()
	var pages []string
	for p, item := range doc.Paths.Map() {
		if item.Get == nil {
			continue
		}
		ok := item.Get.Responses.Status(200)
		if ok == nil || ok.Value == nil || ok.Value.Content.Get("text/html") == nil {
			continue
		}
		p = strings.NewReplacer("{token}", token, "/docs/{page}", "/docs/operators.md", "/docs/reference/{page}", "/docs/reference/settings.md").Replace(p)
		if strings.Contains(p, "{") {
			t.Fatalf("an HTML page with a parameter this test does not fill: %s", p)
		}
		pages = append(pages, p)
	}
	pages = append(pages, "/mail/unsubscribe?t=x", "/mail/confirm?t=x", "/ui/") // a query; the console's address with a slash (a redirect)
	sort.Strings(pages)
	for _, want := range []string{"/ui", "/ui/deadlines", "/ui/sign", "/docs", "/docs/operators.md", "/inspect/" + token} {
		if !containsString(pages, want) {
			t.Fatalf("the HTML pages %v lack %s", pages, want)
		}
	}
	for _, p := range pages {
		resp, body := getWith(t, d.url+p, map[string]string{"Accept": "text/html"})
		h := resp.Header
		if !strings.HasPrefix(h.Get("Content-Type"), "text/html") {
			t.Errorf("%s: %d %s, want an HTML page: %.200s", p, resp.StatusCode, h.Get("Content-Type"), body)
			continue
		}
		csp := h.Get("Content-Security-Policy")
		directives := map[string]string{}
		for _, d := range strings.Split(csp, ";") {
			name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
			directives[name] = value
		}
		if directives["frame-ancestors"] != "'none'" || directives["default-src"] != "'none'" || directives["base-uri"] != "'none'" {
			t.Errorf("%s: Content-Security-Policy %q, want default-src, base-uri and frame-ancestors 'none'", p, csp)
		}
		if s, ok := directives["script-src"]; ok && s != "'self'" {
			t.Errorf("%s: script-src %q, want only the server's own scripts", p, s)
		}
		if strings.HasPrefix(p, "/ui") && resp.StatusCode == 200 && (directives["script-src"] != "'self'" || directives["style-src"] != "'self'" || directives["connect-src"] != "'self'") {
			t.Errorf("%s: %q, want script-src, style-src and connect-src 'self'", p, csp)
		}
		if h.Get("X-Frame-Options") != "DENY" || h.Get("Referrer-Policy") == "" || h.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: X-Frame-Options %q, Referrer-Policy %q, X-Content-Type-Options %q", p, h.Get("X-Frame-Options"), h.Get("Referrer-Policy"), h.Get("X-Content-Type-Options"))
		}
		if strings.Contains(strings.ToLower(string(body)), "<script>") || strings.Contains(string(body), " onclick=") {
			t.Errorf("%s holds an inline script", p)
		}
	}
	// The pages' own scripts and styles, the API's answers: nosniff.
	for _, p := range []string{"/ui/console.js", "/ui/console.css", "/openapi.json", "/healthz", "/nowhere"} {
		resp, _ := getWith(t, d.url+p, nil)
		if resp.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: %d without X-Content-Type-Options: nosniff", p, resp.StatusCode)
		}
		if resp.Header.Get("Content-Security-Policy") != "" && !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
			t.Errorf("%s: a policy on a %s answer", p, resp.Header.Get("Content-Type"))
		}
	}
	st, h, _ := d.do(t, call{path: "/svc.core.v1.api.DiscoveryApi/ListProvider", body: []byte(`{}`)})
	if h.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("ListProvider: %d, X-Content-Type-Options %q", st, h.Get("X-Content-Type-Options"))
	}
}

func containsString(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// Issue 44.17: GET / sends a browser to the console, and tells any other
// client where the API is described (200, links).
func TestRootGuidesBrowsersAndClients(t *testing.T) {
	parallel(t)
	e := start(t, dbtest.SQLite(t))
	browser := "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
	resp, _ := getWith(t, e.url+"/", map[string]string{"Accept": browser})
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != "/ui" {
		t.Fatalf("a browser at /: %d Location %q, want 302 to /ui", resp.StatusCode, resp.Header.Get("Location"))
	}
	for _, accept := range []string{"", "*/*", "application/json", "text/html;q=0, application/json"} {
		st, h, body := e.do(t, call{method: http.MethodGet, path: "/", headers: map[string]string{"Accept": accept}})
		var m struct {
			Links map[string]string `json:"links"`
		}
		if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "application/json") || json.Unmarshal(body, &m) != nil {
			t.Fatalf("Accept %q at /: %d %s %s", accept, st, h.Get("Content-Type"), body)
		}
		if m.Links["openapi"] != "/openapi.yaml" || m.Links["docs"] != "/docs" || m.Links["console"] != "/ui" {
			t.Fatalf("Accept %q at /: links %v", accept, m.Links)
		}
		for _, l := range m.Links {
			if r, _ := getWith(t, e.url+l, nil); r.StatusCode != 200 && r.StatusCode != http.StatusFound {
				t.Errorf("the link %s: %d", l, r.StatusCode)
			}
		}
	}
	// Only GET: a POST to / is no operation.
	if st, _, body := e.do(t, call{path: "/", body: []byte(`{}`)}); st == 200 {
		t.Fatalf("POST /: %d %s", st, body)
	}
}

// printLinkWithHost prints a document over REST with the request's Host
// header set to host and returns the inspection link of the answer.
func printLinkWithHost(t *testing.T, d *docEnv, id, host string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"documentId": id})
	req, err := http.NewRequest(http.MethodPost, d.url+co+"PrintDocument", strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("provider_id", "dev-1")
	req.Header.Set("Authorization", "Bearer "+d.token(t, "alice"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if resp.StatusCode != 200 || json.Unmarshal(raw, &m) != nil {
		t.Fatalf("print with Host %s: %d %.300s", host, resp.StatusCode, raw)
	}
	return m["inspectionLink"].(string)
}

// printLinkOverGRPC prints over native gRPC with the call's :authority
// set to host.
func printLinkOverGRPC(t *testing.T, d *docEnv, id, host string) string {
	t.Helper()
	u, _ := url.Parse(d.url)
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithAuthority(host),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(rpc.MaxResponseBytes)))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(grpcLogin(t, conn, "alice"), 20*time.Second)
	defer cancel()
	r, err := diwass.NewCompanyDocumentApiClient(conn).PrintDocument(ctx, &diwass.CompanyDocumentApiPrintDocumentRequest{DocumentId: id})
	if err != nil {
		t.Fatal(err)
	}
	return r.GetInspectionLink()
}

// Issue 44.6: a forged Host header never puts an inspection token under
// another name. In production (where serve needs WASTEFLOW_PUBLIC_URL) the
// link is under the public address, over REST and gRPC; outside
// production without it, under the address the request came to only when
// that is this machine (loopback), else under WASTEFLOW_ADDR.
func TestInspectionLinkIgnoresForgedHost(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		t.Run("production", func(t *testing.T) {
			d := &docEnv{authEnv: startServerIn(t, dbcfg, "production", 1000, 100000, time.Hour), tokens: map[string]string{}}
			d.deps.Config.PublicURL = "https://wasteflow.example.org"
			id := d.submitted(t)
			for _, link := range []string{printLinkWithHost(t, d, id, "evil.example"), printLinkOverGRPC(t, d, id, "evil.example:443")} {
				if !strings.HasPrefix(link, "https://wasteflow.example.org/inspect/") || strings.Contains(link, "evil") {
					t.Fatalf("the link of a print with a forged Host: %q", link)
				}
			}
		})
		t.Run("development", func(t *testing.T) {
			d := startDocs(t, dbcfg)
			id := d.submitted(t)
			u, _ := url.Parse(d.url)
			for _, link := range []string{printLinkWithHost(t, d, id, "evil.example"), printLinkWithHost(t, d, id, "evil.example:"+u.Port()), printLinkOverGRPC(t, d, id, "evil.example")} {
				if !strings.HasPrefix(link, "http://127.0.0.1:8080/inspect/") || strings.Contains(link, "evil") {
					t.Fatalf("the link of a print with a forged Host: %q, want it under WASTEFLOW_ADDR", link)
				}
			}
			for _, host := range []string{u.Host, "localhost:" + u.Port()} {
				link := printLinkWithHost(t, d, id, host)
				if !strings.HasPrefix(link, "http://"+host+"/inspect/") {
					t.Fatalf("the link of a print at %s: %q", host, link)
				}
				if st, _, body := inspect(t, strings.Replace(link, "localhost", "127.0.0.1", 1), ""); st != 200 {
					t.Fatalf("the link: %d %.200s", st, body)
				}
			}
		})
	})
}
