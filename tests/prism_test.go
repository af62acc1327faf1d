package tests

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// prismDir holds the pinned Stoplight Prism (package.json, package-lock.json),
// installed with npm ci like tools/openapi-lint.
const prismDir = "../tools/prism"

// prismBinary returns the path of the pinned prism CLI, installing it with
// npm ci when node_modules lacks it or holds another version. Without Node.js
// the test is skipped, except under CI, where Prism must run.
func prismBinary(t *testing.T) string {
	t.Helper()
	unavailable := func(format string, args ...any) {
		t.Helper()
		msg := fmt.Sprintf(format, args...)
		if os.Getenv("CI") != "" {
			t.Fatalf("%s (CI is set: the contract test must run)", msg)
		}
		t.Skipf("%s; the Prism contract test is skipped", msg)
	}
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			unavailable("%s is not on PATH: the contract test runs Stoplight Prism (%s/package.json) and needs Node.js and npm", tool, prismDir)
		}
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	raw, err := os.ReadFile(filepath.Join(prismDir, "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	want := pkg.DevDependencies["@stoplight/prism-cli"]
	installed := func() bool {
		var got struct{ Version string }
		raw, err := os.ReadFile(filepath.Join(prismDir, "node_modules", "@stoplight", "prism-cli", "package.json"))
		return err == nil && json.Unmarshal(raw, &got) == nil && got.Version == want
	}
	if !installed() {
		cmd := exec.Command("npm", "ci", "--prefix", prismDir, "--no-audit", "--no-fund", "--loglevel=error")
		if out, err := cmd.CombinedOutput(); err != nil || !installed() {
			unavailable("npm ci --prefix %s failed: %v\n%s", prismDir, err, out)
		}
	}
	bin, err := filepath.Abs(filepath.Join(prismDir, "node_modules", ".bin", "prism"))
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// prismProxy is `prism proxy` running in front of a server.
//
// It runs without --errors on purpose: with it Prism answers a request
// violation itself (422) without forwarding it, and replaces an answer that
// violates the description with its own 500 problem, so the server's error
// paths would go untested and a flow would stop at its first violation.
// Without it every exchange reaches the server and comes back unchanged, and
// Prism reports what it found, request and response alike, in the
// sl-violations header of that answer and as a "Violation:" line in its log.
// The test reads both.
type prismProxy struct {
	url      string
	mu       sync.Mutex
	log      bytes.Buffer
	reported int // violations the sl-violations headers reported, in all findings
}

// Write collects Prism's output (stdout and stderr).
func (p *prismProxy) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.log.Write(b)
}

func (p *prismProxy) output() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return ansi.ReplaceAllString(p.log.String(), "")
}

var ansi = regexp.MustCompile("\x1b\\[[0-9;]*m")

// startPrism serves spec (the description's text) with Prism's validating
// proxy on a free loopback port in front of upstream.
func startPrism(t *testing.T, spec []byte, upstream string) *prismProxy {
	t.Helper()
	bin := prismBinary(t)
	path := filepath.Join(t.TempDir(), "openapi.yaml")
	if err := os.WriteFile(path, spec, 0o600); err != nil {
		t.Fatal(err)
	}
	// Prism validates nothing against a schema ajv refuses to compile, and
	// says nothing of it: make sure there is none.
	if out, err := exec.Command("node", filepath.Join(prismDir, "compile-schemas.js"), path).CombinedOutput(); err != nil {
		t.Fatalf("Prism's validator cannot use every schema of the description (%v):\n%s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	p := &prismProxy{url: fmt.Sprintf("http://127.0.0.1:%d", port)}
	cmd := exec.Command(bin, "proxy", path, upstream, "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--cors=false")
	cmd.Stdout, cmd.Stderr = p, p
	if err := cmd.Start(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("start prism: %v", err)
		}
		t.Skipf("prism does not start (%v); the Prism contract test is skipped", err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(p.output(), "Prism is listening on") {
		select {
		case <-exited:
			t.Fatalf("prism exited before listening:\n%s", p.output())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("prism did not listen within 60 s:\n%s", p.output())
		}
	}
	return p
}

// violation is one entry of Prism's sl-violations header.
type violation struct {
	Location []string `json:"location"`
	Severity string   `json:"severity"`
	Code     any      `json:"code"`
	Message  string   `json:"message"`
}

func (v violation) String() string {
	return fmt.Sprintf("%s %s (%v: %s)", v.Severity, strings.Join(v.Location, "."), v.Code, v.Message)
}

// violations reads an answer's sl-violations header: Prism's findings on the
// request and on the response of one exchange.
func violationsOf(h http.Header) ([]violation, error) {
	v := h.Get("sl-violations")
	if v == "" {
		return nil, nil
	}
	var out []violation
	if err := json.Unmarshal([]byte(v), &out); err != nil {
		return nil, fmt.Errorf("unreadable sl-violations header (%v): %.300s", err, v)
	}
	return out, nil
}

// logged are the violations Prism's log names, one line each.
func (p *prismProxy) logged() []string {
	var out []string
	sc := bufio.NewScanner(strings.NewReader(p.output()))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		if _, after, ok := strings.Cut(sc.Text(), "Violation: "); ok {
			out = append(out, after)
		}
	}
	return out
}

// findings are Prism's verdicts on the exchanges e recorded since from:
// failures, and the number of request violations tolerated.
//
// A request violation is tolerated only where the server refused the
// request (status 400 or more: the call tests that refusal, as
// validateRecorded allows); a response violation never is, nor is a
// warning such as an undescribed route. An answer of Prism's own (a problem
// document: an upstream it could not reach, a request it would not
// forward) is a failure too, and so is a header Prism truncated.
func (p *prismProxy) findings(e *env, from int) (failures []string, checked, tolerated int) {
	e.mu.Lock()
	seen := append([]exchange(nil), e.seen[from:]...)
	e.mu.Unlock()
	reported := 0
	for _, x := range seen {
		name := x.req.Method + " " + x.req.URL.Path
		if strings.HasPrefix(x.header.Get("Content-Type"), "application/problem+json") {
			failures = append(failures, fmt.Sprintf("%s: Prism answered itself, HTTP %d: %.500s", name, x.status, x.respBody))
			continue
		}
		vs, err := violationsOf(x.header)
		if err != nil {
			failures = append(failures, fmt.Sprintf("%s: %v", name, err))
			continue
		}
		reported += len(vs)
		for _, v := range vs {
			if len(v.Location) > 0 && v.Location[0] == "request" && x.status >= 400 {
				tolerated++
				continue
			}
			failures = append(failures, fmt.Sprintf("%s (HTTP %d): %s", name, x.status, v))
		}
	}
	p.mu.Lock()
	p.reported += reported
	p.mu.Unlock()
	return failures, len(seen), tolerated
}

// check fails t for every finding (see findings).
func (p *prismProxy) check(t *testing.T, e *env, from int) {
	t.Helper()
	failures, checked, tolerated := p.findings(e, from)
	for _, f := range failures {
		t.Error(f)
	}
	t.Logf("Prism checked %d exchanges: %d violations; %d more on requests the server refused, as the calls intended", checked, len(failures), tolerated)
}

// checkLog fails t if Prism's log names more violations than the headers
// of all findings so far reported: none may escape the headers. Prism
// writes its log asynchronously, so it waits a little for the lines.
func (p *prismProxy) checkLog(t *testing.T) {
	t.Helper()
	p.mu.Lock()
	reported := p.reported
	p.mu.Unlock()
	logged := p.logged()
	for wait := time.Now().Add(2 * time.Second); len(logged) < reported && time.Now().Before(wait); logged = p.logged() {
		time.Sleep(50 * time.Millisecond)
	}
	if len(logged) > reported {
		t.Errorf("Prism logged %d violations, the sl-violations headers reported %d:\n%s", len(logged), reported, strings.Join(logged, "\n"))
	}
}

// through sends e's traffic through p from now on, until the test ends; it
// returns where e's record of exchanges stands now.
func (p *prismProxy) through(t *testing.T, e *env) int {
	upstream := e.url
	e.url = p.url
	t.Cleanup(func() { e.url = upstream }) // before Prism stops: validateRecorded reads /openapi.yaml
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.seen)
}

func fetchSpec(t *testing.T, base string) []byte {
	t.Helper()
	resp, err := http.Get(base + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	spec, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/openapi.yaml: %d %v", resp.StatusCode, err)
	}
	return spec
}

type selfTestRef struct {
	ID string `json:"id"`
}

type selfTestAnswer struct {
	N   int32        `json:"n"`
	Ref *selfTestRef `json:"ref"`
}

// selfTestSpec describes one operation, whose answer is a selfTestAnswer in
// the schemas the codec derives (every property required, a nil message
// null), so that these forms are what the self-test proves Prism reads.
func selfTestSpec(t *testing.T) []byte {
	t.Helper()
	comps := openapi3.Schemas{}
	answer, err := codec.ResponseSchemaRef(reflect.TypeFor[selfTestAnswer](), comps)
	if err != nil {
		t.Fatal(err)
	}
	errSchema := openapi3.NewObjectSchema().WithProperty("code", openapi3.NewInt32Schema())
	errSchema.Required = []string{"code"}
	reqSchema := openapi3.NewObjectSchema().WithProperty("name", openapi3.NewStringSchema())
	reqSchema.Required = []string{"name"}
	op := &openapi3.Operation{
		RequestBody: &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithJSONSchema(reqSchema)},
		Responses:   openapi3.NewResponses(),
	}
	op.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("OK").WithJSONSchemaRef(answer)})
	op.Responses.Set("default", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("error").WithJSONSchema(errSchema)})
	doc := &openapi3.T{OpenAPI: "3.0.3", Info: &openapi3.Info{Title: "prism self-test", Version: "1"},
		Paths: openapi3.NewPaths(), Components: &openapi3.Components{Schemas: comps}}
	doc.AddOperation("/thing", http.MethodPost, op)
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatal(err)
	}
	spec, err := doc.MarshalJSON() // JSON is YAML
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// The harness catches what it must: response violations (a wrong type, a
// missing required property, an object that is no message where a message
// or null belongs),
// request violations the server took, and it tolerates a request violation
// the server refused. Prism's findings are what the contract test trusts, so
// a Prism upgrade that stopped reporting them must fail here.
func TestPrismHarnessCatchesViolations(t *testing.T) {
	if testing.Short() {
		t.Skip("starts Node.js; skipped in -short mode")
	}
	t.Parallel() // it waits on Node.js starting
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch body, _ := io.ReadAll(r.Body); string(body) {
		case `{"name":"ok"}`:
			_, _ = w.Write([]byte(`{"n":1,"ref":null}`))
		case `{"name":"wrong type"}`:
			_, _ = w.Write([]byte(`{"n":"1","ref":{"id":"x"}}`))
		case `{"name":"missing"}`:
			_, _ = w.Write([]byte(`{"ref":null}`))
		case `{"name":"bad ref"}`:
			_, _ = w.Write([]byte(`{"n":1,"ref":{}}`))
		case `{}`: // a bad request the server takes, then one it refuses
			_, _ = w.Write([]byte(`{"n":1,"ref":null}`))
		default:
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"code":3}`))
		}
	}))
	t.Cleanup(hs.Close)
	p := startPrism(t, selfTestSpec(t), hs.URL)
	e := &env{url: p.url, t: t}
	send := func(body string) {
		e.do(t, call{path: "/thing", body: []byte(body)})
	}
	send(`{"name":"ok"}`)
	if failures, _, _ := p.findings(e, 0); len(failures) != 0 {
		t.Fatalf("a valid exchange failed: %v", failures)
	}
	for _, tc := range []struct {
		body, want string
	}{
		{`{"name":"wrong type"}`, "response.body.n"},
		{`{"name":"missing"}`, "response.body"},
		{`{"name":"bad ref"}`, "response.body.ref"},
		{`{}`, "request.body"},
	} {
		from := len(e.seen)
		send(tc.body)
		failures, _, _ := p.findings(e, from)
		if len(failures) == 0 || !strings.Contains(strings.Join(failures, "\n"), tc.want) {
			t.Errorf("%s: findings %q, want one at %s", tc.body, failures, tc.want)
		}
	}
	from := len(e.seen)
	send(`{"nom":"refused"}`)
	if failures, _, tolerated := p.findings(e, from); len(failures) != 0 || tolerated != 1 {
		t.Errorf("a bad request the server refused: findings %q, %d tolerated; want none, 1", failures, tolerated)
	}
	p.checkLog(t)
}
