package tests

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// env is a running server over loopback with a recorder of every exchange,
// which is validated against the server's own OpenAPI description.
type env struct {
	t   *testing.T
	url string
	srv *handlers.Server
	// grpc, when set, carries every operation's call as a gRPC call
	// (see grpc_e2e_test.go).
	grpc *grpc.ClientConn
	mu   sync.Mutex
	seen []exchange
}

type exchange struct {
	req      *http.Request
	reqBody  []byte
	lenient  bool
	status   int
	header   http.Header
	respBody []byte
}

func start(t *testing.T, dbcfg configs.Database) *env {
	t.Helper()
	e := newServer(t, dbcfg)
	e.t = t
	t.Cleanup(e.validateRecorded)
	return e
}

// newServer starts the server on a fresh database
// holding two providers: dev-1 (development, this server's) and test-1.
func newServer(t testing.TB, dbcfg configs.Database) *env {
	t.Helper()
	db := dbtest.Open(t, dbcfg)
	for _, p := range []models.Provider{
		{ID: "dev-1", Environment: "development", Name: "Dev"},
		{ID: "test-1", Environment: "test", Name: "Test"},
	} {
		if err := db.Create(&p).Error; err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := configs.Load(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = dbcfg
	cfg.UnauthenticatedBodyLimit = cfg.BodyLimit // as the gateway's own tests (handlers.TestGateway), whose operations take no token
	srv, err := handlers.New(withOracle(handlers.Deps{Config: cfg, DB: db}))
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, srv)
	t.Cleanup(hs.Close)
	return &env{url: hs.URL, srv: srv}
}

type call struct {
	method, path string
	headers      map[string]string
	body         []byte
	chunked      bool
	// lenient marks deliberately non-canonical input (numbers as strings,
	// enums as numbers) that the server accepts but the description does
	// not advertise; its request is not validated against the schema.
	lenient bool
	// rest keeps the call on REST when the env carries calls over gRPC.
	rest bool
}

func (e *env) do(t *testing.T, c call) (int, http.Header, []byte) {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
	}
	if e.grpc != nil && !c.rest && c.method == http.MethodPost && strings.Count(c.path, "/") == 2 && strings.Contains(c.path, "Api/") {
		return e.doGRPC(t, c)
	}
	var body io.Reader = bytes.NewReader(c.body)
	if c.chunked {
		body = io.MultiReader(bytes.NewReader(c.body)) // hides the length: chunked encoding
	}
	req, err := http.NewRequest(c.method, e.url+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range c.headers {
		req.Header.Set(k, v)
	}
	if c.body != nil && req.Header.Get("Content-Type") == "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := callClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", c.method, c.path, err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.body) < 1<<20 {
		e.mu.Lock()
		e.seen = append(e.seen, exchange{req: req, reqBody: c.body, lenient: c.lenient, status: resp.StatusCode, header: resp.Header, respBody: out})
		e.mu.Unlock()
	}
	return resp.StatusCode, resp.Header, out
}

// callClient sends env's calls: a call that gets no answer (a server, or
// Prism in front of it, that hangs) fails its test after two minutes, more
// than the longest long poll (30 s), instead of holding the package until
// its timeout.
var callClient = &http.Client{Timeout: 2 * time.Minute}

func decode(t *testing.T, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v: %s", err, b)
	}
	return m
}

// wantError checks the gateway's error shape, status and code.
func wantError(t *testing.T, httpStatus int, code int, gotStatus int, body []byte, msgContains ...string) map[string]any {
	t.Helper()
	if gotStatus != httpStatus {
		t.Fatalf("HTTP %d, want %d: %s", gotStatus, httpStatus, body)
	}
	m := decode(t, body)
	if len(m) != 3 {
		t.Fatalf("error body has keys %v, want exactly code, message, details", m)
	}
	if m["code"] != float64(code) {
		t.Fatalf("code %v, want %d: %s", m["code"], code, body)
	}
	if _, ok := m["details"].([]any); !ok {
		t.Fatalf("details is not an array: %s", body)
	}
	for _, s := range msgContains {
		if !strings.Contains(m["message"].(string), s) {
			t.Fatalf("message %q lacks %q", m["message"], s)
		}
	}
	return m
}

func TestOpenAPIDescribesEveryRoute(t *testing.T) {
	e := start(t, dbtest.SQLite(t))
	doc := e.openapi()
	if doc.OpenAPI != "3.0.3" || doc.Info.Version != "1.0.0" {
		t.Fatalf("openapi %s, info.version %s", doc.OpenAPI, doc.Info.Version)
	}
	for _, name := range []string{"AccessToken", "RefreshToken"} {
		if doc.Components.SecuritySchemes[name] == nil {
			t.Errorf("security scheme %s missing", name)
		}
	}
	if len(doc.Security) != 1 || doc.Security[0]["AccessToken"] == nil {
		t.Errorf("default security = %v, want AccessToken", doc.Security)
	}
	lp := doc.Paths.Find("/svc.core.v1.api.DiscoveryApi/ListProvider")
	if lp == nil || lp.Get == nil || lp.Get.Security == nil || len(*lp.Get.Security) != 0 {
		t.Fatalf("ListProvider must be GET with security: []")
	}
	if slices.ContainsFunc(lp.Get.Parameters, func(p *openapi3.ParameterRef) bool { return p.Value.Name == "provider_id" }) {
		t.Fatal("ListProvider must not require provider_id")
	}
	checkRoutes(t, e.srv, doc)
}

// checkRoutes: every route has a path in the description, every path a route.
func checkRoutes(t *testing.T, srv *handlers.Server, doc *openapi3.T) {
	t.Helper()
	routes := map[string]bool{}
	for _, r := range srv.Routes() {
		routes[r.Method+" "+r.Path] = true
		item := doc.Paths.Find(r.Path)
		if item == nil || item.GetOperation(r.Method) == nil {
			t.Errorf("route %s %s has no path in the OpenAPI description", r.Method, r.Path)
		}
	}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if !routes[method+" "+path] {
				t.Errorf("OpenAPI path %s %s has no route", method, path)
			}
		}
	}
}

// openapiYAML is the description the server serves.
func (e *env) openapiYAML() []byte {
	e.t.Helper()
	resp, err := http.Get(e.url + "/openapi.yaml")
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		e.t.Fatalf("GET /openapi.yaml: %d %v", resp.StatusCode, err)
	}
	return raw
}

func (e *env) openapi() *openapi3.T {
	e.t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(e.openapiYAML())
	if err != nil {
		e.t.Fatalf("load /openapi.yaml: %v", err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		e.t.Fatalf("/openapi.yaml is not valid: %v", err)
	}
	return doc
}

func init() {
	// The diagrams are plain text of a type kin-openapi does not know.
	for _, ct := range []string{"text/vnd.graphviz", "text/html", "text/css", "text/javascript", "text/csv"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
}

// validators holds a loaded description and its router by the served
// /openapi.yaml's digest: most servers of this package serve the same
// one, and loading it is a good part of a short test's time. Neither is
// changed after loading.
var validators sync.Map // [sha256.Size]byte -> *validator

type validator struct {
	once   sync.Once
	router routers.Router
	err    error
}

func (e *env) validator() routers.Router {
	e.t.Helper()
	raw := e.openapiYAML()
	v, _ := validators.LoadOrStore(sha256.Sum256(raw), &validator{})
	val := v.(*validator)
	val.once.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(raw)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err != nil {
			val.err = fmt.Errorf("/openapi.yaml: %w", err)
			return
		}
		doc.Servers = nil
		val.router, val.err = gorillamux.NewRouter(doc)
	})
	if val.err != nil {
		e.t.Fatal(val.err)
	}
	return val.router
}

// validateRecorded checks every recorded request and response of a known
// route against the OpenAPI description.
func (e *env) validateRecorded() {
	t := e.t
	if t.Failed() || len(e.seen) == 0 {
		return
	}
	router := e.validator()
	checked := 0
	for _, x := range e.seen {
		req := x.req.Clone(context.Background())
		req.Body = io.NopCloser(bytes.NewReader(x.reqBody))
		route, params, err := router.FindRoute(req)
		if err != nil {
			continue // unknown path or method: nothing to validate against
		}
		in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
		// Requests the server rejected are allowed to violate the schema.
		if x.status < 400 && !x.lenient {
			if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
				t.Errorf("request %s %s does not match the description: %v", req.Method, req.URL, err)
			}
		}
		out := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: x.status, Header: x.header,
			Body: io.NopCloser(bytes.NewReader(x.respBody)), Options: &openapi3filter.Options{IncludeResponseStatus: true}}
		if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
			t.Errorf("response %d to %s %s does not match the description: %v", x.status, req.Method, req.URL.Path, err)
		}
		checked++
	}
	if checked == 0 {
		t.Error("no recorded exchange was validated")
	}
}

// A database whose schema lags behind the build is not ready.
func TestReadyzWithoutMigrations(t *testing.T) {
	dbcfg := dbtest.SQLite(t)
	db, err := models.Open(context.Background(), dbcfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	cfg, _ := configs.Load(func(string) (string, bool) { return "", false })
	srv, err := handlers.New(withOracle(handlers.Deps{Config: cfg, DB: db}))
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, srv)
	defer hs.Close()
	resp, err := http.Get(hs.URL + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	wantError(t, 503, 14, resp.StatusCode, body, "wasteflow migrate")
	if _, err := models.Migrate(context.Background(), db, nil); err != nil {
		t.Fatal(err)
	}
	resp, err = http.Get(hs.URL + "/readyz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("after migrating: %v %v", resp, err)
	}
	resp.Body.Close()
}

// burst sends n requests at once (made by build) and counts the statuses.
func burst(t *testing.T, n int, build func(i int) *http.Request) map[int]int {
	t.Helper()
	var wg sync.WaitGroup
	var mu sync.Mutex
	counts := map[int]int{}
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := http.DefaultClient.Do(build(i))
			if err != nil {
				t.Error(err)
				return
			}
			resp.Body.Close()
			mu.Lock()
			counts[resp.StatusCode]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return counts
}
