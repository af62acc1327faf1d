package handlers_test

// The gateway's own tests: the REST adapter's contract (paths, headers,
// limits, the decoding of every scalar kind, the error shape and the
// codes' statuses) over operations made for it, which no production
// operation has. The end-to-end suite of the workflows is in tests/.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Test-only operations: they give the gateway shapes no production
// operation has yet (every scalar kind, a token, a chosen status code).

type Op int32

func (Op) EnumNames() []string { return []string{"EQUAL", "NOT_EQUAL", "IS_NULL"} }

type Nested struct {
	PageStart int32 `json:"pageStart"`
	PageSize  int32 `json:"pageSize"`
}

type EchoMessage struct {
	ID       int64             `json:"id"`
	Count    int32             `json:"count"`
	Flag     bool              `json:"flag"`
	Name     string            `json:"name"`
	Data     []byte            `json:"data"`
	When     *time.Time        `json:"when"`
	Op       Op                `json:"op"`
	Tags     []string          `json:"tags"`
	Qpar     *Nested           `json:"qpar"`
	Items    []Nested          `json:"items"`
	Labels   map[string]string `json:"labels"`
	Metadata map[string]string `json:"metadata"`
	Provider string            `json:"provider"`
}

type FailRequest struct {
	Code  int32 `json:"code"`
	Panic bool  `json:"panic"`
}

type Empty struct{}

func echo(ctx context.Context, req *EchoMessage) (*EchoMessage, error) {
	info := reqctx.From(ctx)
	req.Metadata = map[string]string{}
	for k, v := range info.Metadata {
		req.Metadata[k] = strings.Join(v, ",")
	}
	req.Provider = info.ProviderID
	return req, nil
}

func fail(_ context.Context, req *FailRequest) (*Empty, error) {
	if req.Panic {
		panic("deliberate test panic with secret detail")
	}
	if req.Code == int32(status.Internal) {
		return nil, errors.New("pq: relation \"secret_table\" does not exist")
	}
	return nil, status.New(status.Code(req.Code), "failed with %d", req.Code)
}

func testOperations() []api.Operation {
	const pkg = "svc.test.v1.api"
	return []api.Operation{
		api.Unary(api.Operation{Package: pkg, Service: "EchoApi", Method: "Echo", Security: api.NoToken, Summary: "echo"}, echo),
		api.Unary(api.Operation{Package: pkg, Service: "EchoApi", Method: "EchoGet", Verb: http.MethodGet, Security: api.NoToken, Summary: "echo"}, echo),
		api.Unary(api.Operation{Package: pkg, Service: "EchoApi", Method: "Fail", Security: api.NoToken, Summary: "fail"}, fail),
		api.Unary(api.Operation{Package: pkg, Service: "EchoApi", Method: "Protected", Summary: "needs a token"}, echo),
	}
}

// env is a running server over loopback with a recorder of every exchange,
// which is validated against the server's own OpenAPI description.
type env struct {
	t    *testing.T
	url  string
	srv  *handlers.Server
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

// newServer starts the server with the test operations on a fresh database
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
	cfg.UnauthenticatedBodyLimit = cfg.BodyLimit // the echo operations take no token: they test the gateway's own limit
	srv, err := handlers.NewWithOperations(handlers.Deps{Config: cfg, DB: db}, testOperations()...)
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
}

func (e *env) do(t *testing.T, c call) (int, http.Header, []byte) {
	t.Helper()
	if c.method == "" {
		c.method = http.MethodPost
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
	resp, err := http.DefaultClient.Do(req)
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

var dev = map[string]string{"provider_id": "dev-1"}

func TestGateway(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		e := start(t, dbcfg)

		t.Run("ListProvider needs no headers and lists every environment", func(t *testing.T) {
			st, _, body := e.do(t, call{method: http.MethodGet, path: "/svc.core.v1.api.DiscoveryApi/ListProvider"})
			if st != 200 {
				t.Fatalf("HTTP %d: %s", st, body)
			}
			var got handlers.ListProviderResponse
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			want := []handlers.Provider{{ID: "dev-1", Name: "Dev", Environment: "development"}, {ID: "test-1", Name: "Test", Environment: "test"}}
			if !slices.Equal(got.Providers, want) {
				t.Fatalf("providers = %+v, want %+v", got.Providers, want)
			}
		})

		t.Run("provider_id missing, unknown or of another environment", func(t *testing.T) {
			for name, headers := range map[string]map[string]string{
				"missing":           nil,
				"unknown":           {"provider_id": "nope"},
				"other environment": {"provider_id": "test-1"},
				"oversized":         {"provider_id": strings.Repeat("p", 10_000)},
			} {
				t.Run(name, func(t *testing.T) {
					st, _, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: headers, body: []byte(`{}`)})
					m := wantError(t, 501, 12, st, body, "HTTP 404")
					if !strings.HasPrefix(m["message"].(string), "Bad gRPC response") {
						t.Fatalf("message %q does not begin with Bad gRPC response", m["message"])
					}
				})
			}
		})

		t.Run("unknown path, wrong verb, trailing slash", func(t *testing.T) {
			st, h, body := e.do(t, call{path: "/svc.core.v1.api.Nope/Nothing", headers: dev})
			wantError(t, 404, 5, st, body, "Not Found")
			if h.Get("Location") != "" {
				t.Fatal("redirect issued")
			}
			st, _, body = e.do(t, call{method: http.MethodPost, path: "/svc.core.v1.api.DiscoveryApi/ListProvider"})
			wantError(t, 501, 12, st, body, "Method Not Allowed")
			for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
				st, _, body = e.do(t, call{method: m, path: "/svc.test.v1.api.EchoApi/Echo", headers: dev})
				wantError(t, 501, 12, st, body)
			}
			st, h, body = e.do(t, call{method: http.MethodGet, path: "/svc.core.v1.api.DiscoveryApi/ListProvider/"})
			wantError(t, 404, 5, st, body)
			if h.Get("Location") != "" {
				t.Fatal("trailing slash redirected")
			}
		})

		t.Run("JSON: snake and camel in, camel out, unknown ignored, all fields emitted", func(t *testing.T) {
			st, _, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev, body: []byte(
				`{"id":"9007199254740993","count":"7","flag":true,"name":"x","data":"-_8","op":"NOT_EQUAL",
				  "qpar":{"page_start":3,"pageSize":20},"unknownField":{"deep":[1,2]},"State":"CONSENTED","when":"2026-01-02T03:04:05+01:00"}`), lenient: true})
			if st != 200 {
				t.Fatalf("HTTP %d: %s", st, body)
			}
			m := decode(t, body)
			if m["id"] != "9007199254740993" || m["count"] != float64(7) || m["op"] != "NOT_EQUAL" || m["data"] != "+/8=" {
				t.Fatalf("echo = %s", body)
			}
			if q := m["qpar"].(map[string]any); q["pageStart"] != float64(3) || q["pageSize"] != float64(20) {
				t.Fatalf("qpar = %v", q)
			}
			if m["when"] != "2026-01-02T02:04:05Z" {
				t.Fatalf("when = %v", m["when"])
			}
			if _, has := m["unknownField"]; has {
				t.Fatal("unknown field echoed")
			}
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev})
			if st != 200 {
				t.Fatalf("empty body: HTTP %d: %s", st, body)
			}
			m = decode(t, body)
			for k, want := range map[string]any{"id": "0", "count": float64(0), "flag": false, "name": "", "data": "", "when": nil, "op": "EQUAL", "qpar": nil} {
				if got, ok := m[k]; !ok || got != want {
					t.Errorf("empty request: %s = %#v (present %v), want %#v", k, got, ok, want)
				}
			}
			if tags, ok := m["tags"].([]any); !ok || len(tags) != 0 {
				t.Errorf("tags = %#v, want []", m["tags"])
			}
			if labels, ok := m["labels"].(map[string]any); !ok || len(labels) != 0 {
				t.Errorf("labels = %#v, want {}", m["labels"])
			}
		})

		t.Run("JSON: bad input is 400 code 3 naming the field", func(t *testing.T) {
			for body, field := range map[string]string{
				`{"id":`:                        "",
				`{"count":"x"}`:                 "count",
				`{"count":2147483648}`:          "count",
				`{"name":5}`:                    "name",
				`{"data":"***"}`:                "data",
				`{"op":"SOMETIMES"}`:            "op",
				`{"qpar":{"pageSize":1.5}}`:     "qpar.pageSize",
				`[1,2]`:                         "",
				`{"a":1} trailing`:              "",
				"{\"name\":\"\xff\"}":           "",
				`{"when":"yesterday"}`:          "when",
				`{"items":[{"pageStart":"z"}]}`: "items[0].pageStart",
			} {
				st, _, resp := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev, body: []byte(body)})
				m := wantError(t, 400, 3, st, resp)
				if field != "" && !strings.Contains(m["message"].(string), `"`+field+`"`) {
					t.Errorf("body %s: message %q does not name field %q", body, m["message"], field)
				}
			}
		})

		t.Run("GET takes dotted, snake or camel query fields", func(t *testing.T) {
			st, _, body := e.do(t, call{method: http.MethodGet, headers: dev,
				path: "/svc.test.v1.api.EchoApi/EchoGet?qpar.page_size=20&qpar.pageStart=5&tags=a&tags=b&id=12&op=2&flag=true&bogus=1", lenient: true})
			if st != 200 {
				t.Fatalf("HTTP %d: %s", st, body)
			}
			m := decode(t, body)
			q := m["qpar"].(map[string]any)
			if q["pageSize"] != float64(20) || q["pageStart"] != float64(5) || m["id"] != "12" || m["op"] != "IS_NULL" || m["flag"] != true {
				t.Fatalf("echo = %s", body)
			}
			if tags := m["tags"].([]any); len(tags) != 2 || tags[1] != "b" {
				t.Fatalf("tags = %v", tags)
			}
			st, _, body = e.do(t, call{method: http.MethodGet, headers: dev, path: "/svc.test.v1.api.EchoApi/EchoGet?count=many"})
			wantError(t, 400, 3, st, body, "count")
		})

		t.Run("body over the limit is 413 code 8 and the server stays up", func(t *testing.T) {
			big := bytes.Repeat([]byte(" "), 30_000_000)
			big[0] = '{'
			big[len(big)-1] = '}'
			st, _, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev, body: big})
			wantError(t, 413, 8, st, body)
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev, body: big, chunked: true})
			wantError(t, 413, 8, st, body)
			// Just under the limit is read and decoded.
			ok := bytes.Repeat([]byte(" "), 29_000_000)
			ok[0], ok[len(ok)-1] = '{', '}'
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", headers: dev, body: ok})
			if st != 200 {
				t.Fatalf("29 MB body: HTTP %d: %s", st, body)
			}
			st, _, _ = e.do(t, call{method: http.MethodGet, path: "/healthz"})
			if st != 200 {
				t.Fatalf("server not healthy after 413: %d", st)
			}
		})

		t.Run("metadata forwarding by deny-list, request id echoed or generated", func(t *testing.T) {
			st, h, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Echo", body: []byte(`{}`), headers: map[string]string{
				"provider_id": "dev-1", "X-Correlation": "abc", "User-Agent": "probe", "Accept-Language": "de",
				"Grpc-Timeout": "1S", "X-Request-Id": "req-123",
			}})
			if st != 200 {
				t.Fatalf("HTTP %d: %s", st, body)
			}
			if h.Get("X-Request-Id") != "req-123" {
				t.Fatalf("X-Request-Id = %q, want the one sent", h.Get("X-Request-Id"))
			}
			md := decode(t, body)["metadata"].(map[string]any)
			if md["x-correlation"] != "abc" || md["provider_id"] != "dev-1" || md["x-request-id"] != "req-123" {
				t.Fatalf("metadata lacks forwarded headers: %v", md)
			}
			for _, denied := range []string{"user-agent", "accept-language", "accept-encoding", "content-type", "content-length", "grpc-timeout", "host"} {
				if _, has := md[denied]; has {
					t.Errorf("metadata forwards %s", denied)
				}
			}
			if decode(t, body)["provider"] != "dev-1" {
				t.Fatal("provider not in request context")
			}
			_, h, _ = e.do(t, call{method: http.MethodGet, path: "/healthz"})
			if len(h.Get("X-Request-Id")) < 32 {
				t.Fatalf("generated X-Request-Id = %q", h.Get("X-Request-Id"))
			}
			long := strings.Repeat("r", 500)
			_, h, _ = e.do(t, call{method: http.MethodGet, path: "/healthz", headers: map[string]string{"X-Request-Id": long}})
			if h.Get("X-Request-Id") == long || h.Get("X-Request-Id") == "" {
				t.Fatal("an oversized X-Request-Id was echoed instead of replaced")
			}
		})

		t.Run("Authorization slot", func(t *testing.T) {
			st, h, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Protected", headers: dev, body: []byte(`{}`)})
			wantError(t, 401, 16, st, body)
			if !strings.HasPrefix(h.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("WWW-Authenticate = %q", h.Get("WWW-Authenticate"))
			}
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Protected", headers: map[string]string{"provider_id": "dev-1", "Authorization": "Basic abc"}})
			wantError(t, 401, 16, st, body)
			// A token is refused until token validation is configured: fail closed.
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Protected", headers: map[string]string{"provider_id": "dev-1", "Authorization": "Bearer x.y.z"}})
			wantError(t, 401, 16, st, body)
			// provider_id is checked before the token.
			st, _, body = e.do(t, call{path: "/svc.test.v1.api.EchoApi/Protected", body: []byte(`{}`)})
			wantError(t, 501, 12, st, body)
		})

		t.Run("every status code maps to its HTTP status", func(t *testing.T) {
			want := map[int]int{1: 499, 2: 500, 3: 400, 4: 504, 5: 404, 6: 409, 7: 403, 8: 429, 9: 400, 10: 409, 11: 400, 12: 501, 14: 503, 15: 500, 16: 401, 99: 500}
			for code, httpStatus := range want {
				st, _, body := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Fail", headers: dev, body: fmt.Appendf(nil, `{"code":%d}`, code)})
				wantError(t, httpStatus, code, st, body)
			}
		})

		t.Run("internal errors and panics show a request id, never the cause", func(t *testing.T) {
			for _, body := range []string{`{"code":13}`, `{"panic":true}`} {
				st, h, resp := e.do(t, call{path: "/svc.test.v1.api.EchoApi/Fail", headers: dev, body: []byte(body)})
				wantError(t, 500, 13, st, resp, h.Get("X-Request-Id"))
				if strings.Contains(string(resp), "secret") {
					t.Fatalf("cause leaked: %s", resp)
				}
			}
			if st, _, _ := e.do(t, call{method: http.MethodGet, path: "/healthz"}); st != 200 {
				t.Fatal("server down after panic")
			}
		})

		t.Run("healthz, readyz, metrics", func(t *testing.T) {
			st, _, body := e.do(t, call{method: http.MethodGet, path: "/readyz"})
			if st != 200 || decode(t, body)["status"] != "ready" {
				t.Fatalf("readyz: %d %s", st, body)
			}
			// The metrics need no login: they are not on the API's address
			// (serve gives them WASTEFLOW_METRICS_ADDR).
			if st, _, _ = e.do(t, call{method: http.MethodGet, path: "/metrics"}); st != 404 {
				t.Fatalf("/metrics on the API's address: %d, want 404", st)
			}
			rec := httptest.NewRecorder()
			e.srv.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
			body = rec.Body.Bytes()
			if rec.Code != 200 {
				t.Fatalf("metrics: %d", rec.Code)
			}
			for _, want := range []string{
				`wasteflow_requests_total{code="OK",http_status="200",operation="svc.core.v1.api.DiscoveryApi/ListProvider"}`,
				`wasteflow_requests_total{code="NOT_FOUND",http_status="404",operation="unmatched"}`,
				`wasteflow_request_duration_seconds_bucket{operation="svc.test.v1.api.EchoApi/Echo"`,
				`go_sql_max_open_connections{db_name="wasteflow"}`,
			} {
				if !strings.Contains(string(body), want) {
					t.Errorf("metrics lack %s", want)
				}
			}
		})
	})
}

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

// serveH2C serves srv over loopback as the binary does: HTTP/1.1, h2c,
// and native gRPC split off to the RPC face's own server.
func serveH2C(t testing.TB, srv *handlers.Server) *httptest.Server {
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.Protocols = rpc.HTTPProtocols()
	hs.Listener = srv.Listen(hs.Listener)
	hs.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return hs
}

// BenchmarkEchoPost measures the provider check, body read and JSON codec.
func BenchmarkEchoPost(b *testing.B) {
	base := newServer(b, dbtest.SQLite(b)).url
	body := `{"id":"42","count":7,"name":"waste","tags":["a","b","c"],"qpar":{"pageStart":0,"pageSize":50},"items":[{"pageStart":1},{"pageStart":2}]}`
	hammer(b, func() *http.Request {
		req, _ := http.NewRequest(http.MethodPost, base+"/svc.test.v1.api.EchoApi/Echo", strings.NewReader(body))
		req.Header.Set("provider_id", "dev-1")
		return req
	})
}

// hammer sends build's requests from parallel clients; each must be a 200.
func hammer(b *testing.B, build func() *http.Request) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			resp, err := client.Do(build())
			if err != nil {
				b.Error(err)
				return
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				b.Errorf("HTTP %d", resp.StatusCode)
				return
			}
		}
	})
}
