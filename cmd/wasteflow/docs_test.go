package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/docs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// walkthroughPages are the pages whose `sh run` blocks TestDocsWalkthroughs
// runs: the README and every guide (the reference is generated and has none).
func walkthroughPages(t *testing.T) []string {
	t.Helper()
	pages := []string{"README.md"}
	for _, p := range docs.Pages() {
		if !strings.HasPrefix(p, "reference/") {
			pages = append(pages, filepath.Join("docs", p))
		}
	}
	return pages
}

// TestDocsWalkthroughs runs the walk-throughs of the README and the guides
// as a reader would after `make run`: in a directory holding bin/wasteflow,
// `bin/wasteflow demo`, then `bin/wasteflow serve` with make run's settings,
// then every block fenced as `sh run` of the page, in order, in one bash
// (set -euo pipefail, so a failing command or a failed `jq -e` fails the
// test), with 127.0.0.1:8080 pointed at the server and 127.0.0.1:8081 at
// its metrics (WASTEFLOW_METRICS_ADDR's default; and grpcurl on the
// PATH when a block calls it). A block fenced
// as `… expect` after a run block lists lines its output must contain, in
// order; "…" in a line stands for any text. On PostgreSQL the server and
// the blocks share WASTEFLOW_DATABASE_URL, so `bin/wasteflow admin …` sees
// the same data. One server per page and database.
func TestDocsWalkthroughs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and serves the binary")
	}
	for _, tool := range []string{"bash", "curl", "jq", "openssl"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("the walk-throughs need %s (.ci/run installs it)", tool)
			}
			t.Skipf("the walk-throughs need %s", tool)
		}
	}
	bin := buildBinary(t)
	for _, page := range walkthroughPages(t) {
		src, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		steps, err := walkthroughSteps(docs.Parse(src).Blocks)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if len(steps) == 0 {
			continue
		}
		for _, backend := range []string{"sqlite", "postgres"} {
			t.Run(backend+"/"+page, func(t *testing.T) {
				t.Parallel()
				var db string
				if backend == "postgres" {
					db = dbtest.Postgres(t).URL
				}
				runWalkthrough(t, bin, db, page, steps)
			})
		}
	}
}

// step is a run block and what its output must show.
type step struct {
	line   int
	script string
	expect []string
}

func walkthroughSteps(blocks []docs.Block) ([]step, error) {
	var steps []step
	for _, b := range blocks {
		switch {
		case b.Tagged("run"):
			if b.Lang != "sh" && b.Lang != "bash" {
				return nil, fmt.Errorf("line %d: a run block must be sh or bash, not %q", b.Line, b.Lang)
			}
			steps = append(steps, step{line: b.Line, script: b.Text})
		case b.Tagged("expect"):
			if len(steps) == 0 || steps[len(steps)-1].expect != nil {
				return nil, fmt.Errorf("line %d: an expect block must follow a run block (one each)", b.Line)
			}
			var want []string
			for _, l := range strings.Split(b.Text, "\n") {
				if l = strings.TrimSpace(l); l != "" {
					want = append(want, l)
				}
			}
			steps[len(steps)-1].expect = want
		}
	}
	return steps, nil
}

// grpcurlTool builds grpcurl (a tool of go.mod) once per test process,
// for the walk-throughs that call the gRPC face.
func grpcurlTool(t *testing.T) string {
	t.Helper()
	grpcurlBuild.once.Do(func() {
		dir, err := os.MkdirTemp("", "wasteflow-grpcurl-")
		if err != nil {
			grpcurlBuild.err = err
			return
		}
		grpcurlBuild.bin = filepath.Join(dir, "grpcurl")
		if out, err := exec.Command("go", "build", "-o", grpcurlBuild.bin, "github.com/fullstorydev/grpcurl/cmd/grpcurl").CombinedOutput(); err != nil {
			grpcurlBuild.err = fmt.Errorf("building grpcurl: %v\n%s", err, out)
		}
	})
	if grpcurlBuild.err != nil {
		t.Fatal(grpcurlBuild.err)
	}
	return grpcurlBuild.bin
}

var grpcurlBuild struct {
	once sync.Once
	bin  string
	err  error
}

var blockMark = regexp.MustCompile(`(?m)^@@wasteflow-walkthrough-step (\d+)@@\n`)

func runWalkthrough(t *testing.T, bin, dbURL, page string, steps []step) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(bin, filepath.Join(dir, "bin", "wasteflow")); err != nil {
		t.Fatal(err)
	}
	// make run's settings; the rest of the caller's environment stays
	// (PATH, HOME), its WASTEFLOW_ variables do not.
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "WASTEFLOW_") {
			env = append(env, kv)
		}
	}
	if dbURL != "" {
		env = append(env, "WASTEFLOW_DATABASE_URL="+dbURL)
	}
	demo := exec.Command("bin/wasteflow", "demo")
	demo.Dir, demo.Env = dir, env
	env = append(env, "WASTEFLOW_UI_APP_TOKEN=demo-app-token-dev-1-0123456789abcdef", "WASTEFLOW_SIGNER_KEYS=./data/signer-keys")
	if out, err := demo.CombinedOutput(); err != nil {
		t.Fatalf("bin/wasteflow demo: %v\n%s", err, out)
	}
	serve := exec.Command("bin/wasteflow", "serve")
	serve.Dir, serve.Env = dir, append(env, "WASTEFLOW_ADDR=127.0.0.1:0", "WASTEFLOW_METRICS_ADDR=127.0.0.1:0")
	base, metrics := listeningWithMetrics(t, serve)

	var script strings.Builder
	script.WriteString("set -euo pipefail\n")
	for i, s := range steps {
		fmt.Fprintf(&script, "echo '@@wasteflow-walkthrough-step %d@@'\n", i)
		script.WriteString(strings.NewReplacer("127.0.0.1:8080", strings.TrimPrefix(base, "http://"), "127.0.0.1:8081", metrics).Replace(s.script))
		script.WriteString("\n")
	}
	sh := exec.Command("bash", "-c", script.String())
	sh.Dir, sh.Env = dir, env
	if strings.Contains(script.String(), "grpcurl ") {
		sh.Env = append(env, "PATH="+filepath.Dir(grpcurlTool(t))+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	var out, errb bytes.Buffer
	sh.Stdout, sh.Stderr = &out, &errb
	start := time.Now()
	err := sh.Run()
	outputs := map[int]string{}
	marks := blockMark.FindAllStringSubmatchIndex(out.String(), -1)
	last := -1
	for i, m := range marks {
		end := out.Len()
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		var n int
		fmt.Sscan(out.String()[m[2]:m[3]], &n)
		outputs[n] = out.String()[m[1]:end]
		last = n
	}
	if err != nil {
		s := steps[max(last, 0)]
		t.Fatalf("%s: the block at line %d failed (%v):\n%s\n--- its output:\n%s\n--- stderr:\n%s", page, s.line, err, s.script, outputs[last], errb.String())
	}
	for i, s := range steps {
		if bad := unmatched(outputs[i], s.expect); bad != "" {
			t.Errorf("%s: the output of the block at line %d lacks %q (in order):\n%s", page, s.line, bad, outputs[i])
		}
	}
	t.Logf("%s: %d blocks in %s", page, len(steps), time.Since(start).Round(time.Millisecond))
	if page == "README.md" && dbURL == "" {
		checkServedDocs(t, base)
	}
}

var hrefRe = regexp.MustCompile(`(?:href|src)="([^"#:]+\.(?:md|png))(?:#[^"]*)?"`)

// checkServedDocs reads the docs as a browser would from the server:
// /docs leads to the index, every page is HTML, every page's links to
// other pages and images answer 200, and an unknown page is 404 in the
// gateway's shape.
func checkServedDocs(t *testing.T, base string) {
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(u string) (int, string, string) {
		resp, err := client.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Location") + resp.Header.Get("Content-Type"), string(b)
	}
	if st, loc, _ := get(base + "/docs"); st != http.StatusFound || !strings.HasPrefix(loc, "/docs/README.md") {
		t.Fatalf("/docs: %d %s", st, loc)
	}
	seen := map[string]bool{}
	for _, p := range docs.Pages() {
		u := base + "/docs/" + p
		st, ct, body := get(u)
		if st != 200 || !strings.HasPrefix(ct, "text/html") || !strings.Contains(body, "<h1") {
			t.Fatalf("%s: %d %s", u, st, ct)
		}
		for _, m := range hrefRe.FindAllStringSubmatch(body, -1) {
			target := path.Join(path.Dir("/docs/"+p), m[1])
			if seen[target] {
				continue
			}
			seen[target] = true
			if st, _, _ := get(base + target); st != 200 {
				t.Errorf("%s links to %s: %d", u, target, st)
			}
		}
	}
	if st, ct, body := get(base + "/docs/no-such-page.md"); st != 404 || !strings.HasPrefix(ct, "application/json") || !strings.Contains(body, `"code":5`) {
		t.Errorf("an unknown page: %d %s %s", st, ct, body)
	}
	t.Logf("/docs: %d pages, %d links followed", len(docs.Pages()), len(seen))
}

// unmatched returns the first wanted line the output does not show in
// order ("" when all are there); "…" in a wanted line matches any text.
func unmatched(output string, want []string) string {
	lines := strings.Split(output, "\n")
	at := 0
	for _, w := range want {
		parts := strings.Split(w, "…")
		for i := range parts {
			parts[i] = regexp.QuoteMeta(parts[i])
		}
		re := regexp.MustCompile(strings.Join(parts, ".*"))
		found := false
		for at < len(lines) {
			l := lines[at]
			at++
			if re.MatchString(l) {
				found = true
				break
			}
		}
		if !found {
			return w
		}
	}
	return ""
}

// The expect matcher: lines in order, "…" as any text.
func TestWalkthroughExpectMatching(t *testing.T) {
	out := "a\n{\"state\": \"SUBMITTED\", \"version\": \"2\"}\nb\nDE-2026-000007\n"
	for want, ok := range map[string]bool{
		"\"state\": \"SUBMITTED\"…\"version\"\nDE-2026-…": true,
		"DE-2026-…\n\"state\": \"SUBMITTED\"":             false, // out of order
		"\"state\": \"DRAFT\"":                            false,
		"a\nb":                                            true,
	} {
		var lines []string
		for _, l := range strings.Split(want, "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		if got := unmatched(out, lines) == ""; got != ok {
			t.Errorf("%q: matched %v, want %v", want, got, ok)
		}
	}
	if _, err := walkthroughSteps([]docs.Block{{Lang: "json", Tags: []string{"expect"}}}); err == nil {
		t.Error("an expect block without a run block before it passed")
	}
}
