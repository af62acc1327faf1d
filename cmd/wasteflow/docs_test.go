package main

import (
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
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
// the same data. One server and one new demo database per page and
// database kind (as each page's first lines tell a reader: see
// TestWalkthroughsStartFresh), the pages in a shuffled order, logged with
// its seed; WASTEFLOW_TEST_WALKTHROUGH_SEED repeats an order. An expect
// block shows all its run block prints (see unmatched).
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
	type walkthrough struct {
		page  string
		steps []step
	}
	var pages []walkthrough
	for _, page := range walkthroughPages(t) {
		src, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		steps, err := walkthroughSteps(docs.Parse(src).Blocks)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if len(steps) > 0 {
			pages = append(pages, walkthrough{page, steps})
		}
	}
	seed := time.Now().UnixNano()
	if v := os.Getenv("WASTEFLOW_TEST_WALKTHROUGH_SEED"); v != "" {
		var err error
		if seed, err = strconv.ParseInt(v, 10, 64); err != nil {
			t.Fatalf("WASTEFLOW_TEST_WALKTHROUGH_SEED: %v", err)
		}
	}
	rand.New(rand.NewPCG(uint64(seed), 0)).Shuffle(len(pages), func(i, j int) { pages[i], pages[j] = pages[j], pages[i] })
	var order []string
	for _, w := range pages {
		order = append(order, w.page)
	}
	t.Logf("the pages in the order %s (WASTEFLOW_TEST_WALKTHROUGH_SEED=%d repeats it)", strings.Join(order, ", "), seed)
	for _, w := range pages {
		page, steps := w.page, w.steps
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

// freshDatabase is where the README says how to start a walk-through
// from a new demo database.
const freshDatabase = "README.md#a-fresh-demo-database"

// saysFresh checks that a page with a walk-through says, in its first
// lines (before its first run block and within its first 10 lines, the
// README before its tour), that it starts from a fresh demo database,
// linking to the README's section: a reader who ran another page's
// walk-through first would see other data (the test gives every page its
// own database, in a shuffled order).
func saysFresh(page string, p docs.Page, firstRun int) error {
	for _, l := range p.Links {
		target, anchor := docs.Resolve(page, l.Dest)
		if target+"#"+anchor == freshDatabase && l.Line < firstRun && (page == "README.md" || l.Line <= 10) {
			return nil
		}
	}
	return fmt.Errorf("%s: its first lines do not link to %s (a walk-through starts from a fresh demo database)", page, freshDatabase)
}

// Every page with a walk-through says in its first lines that it starts
// from a fresh demo database.
func TestWalkthroughsStartFresh(t *testing.T) {
	for _, page := range walkthroughPages(t) {
		src, err := os.ReadFile(filepath.Join("..", "..", page))
		if err != nil {
			t.Fatal(err)
		}
		p := docs.Parse(src)
		steps, err := walkthroughSteps(p.Blocks)
		if err != nil {
			t.Fatalf("%s: %v", page, err)
		}
		if len(steps) > 0 {
			if err := saysFresh(page, p, steps[0].line); err != nil {
				t.Error(err)
			}
		}
	}
	// A page that says it elsewhere, or not at all, fails.
	late := docs.Parse([]byte("# G\n\nIntro.\n\n```sh run\necho\n```\n\nSee [fresh](../README.md#a-fresh-demo-database).\n"))
	if saysFresh("docs/g.md", late, late.Blocks[0].Line) == nil {
		t.Error("a note after the first run block passed")
	}
	other := docs.Parse([]byte("# G\n\nSee [the tour](../README.md#a-five-minute-tour).\n\n```sh run\necho\n```\n"))
	if saysFresh("docs/g.md", other, other.Blocks[0].Line) == nil {
		t.Error("a link to another section passed")
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
		if s.expect == nil {
			continue
		}
		if bad := unmatched(outputs[i], s.expect); bad != "" {
			t.Errorf("%s: the output of the block at line %d differs from its expect block: %s; the output:\n%s", page, s.line, bad, outputs[i])
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

// unmatched says how output differs from the wanted lines ("" when it
// does not). Every non-empty line of the output is matched, in order, by
// one wanted line, whole (leading and trailing spaces aside): "…" in a
// wanted line stands for any text within the line, and a wanted line that
// is "…" alone for any number of lines (none included). An expect block
// shows all that its block prints, so an extra line, a missing one or a
// longer one fails.
func unmatched(output string, want []string) string {
	var lines []string
	for _, l := range strings.Split(output, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	res := make([]*regexp.Regexp, len(want))
	for i, w := range want {
		if w == "…" {
			continue
		}
		parts := strings.Split(w, "…")
		for j := range parts {
			parts[j] = regexp.QuoteMeta(parts[j])
		}
		res[i] = regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
	}
	// match reports whether lines[at:] is matched by want[w:]; furthest
	// records how far a match got, for the message.
	furthest, furthestWant := 0, 0
	seen := map[[2]int]bool{}
	var match func(at, w int) bool
	match = func(at, w int) bool {
		if at > furthest || at == furthest && w > furthestWant {
			furthest, furthestWant = at, w
		}
		if seen[[2]int{at, w}] {
			return false
		}
		seen[[2]int{at, w}] = true
		switch {
		case w == len(want):
			return at == len(lines)
		case res[w] == nil: // "…": any number of lines
			return match(at, w+1) || at < len(lines) && match(at+1, w)
		default:
			return at < len(lines) && res[w].MatchString(lines[at]) && match(at+1, w+1)
		}
	}
	if match(0, 0) {
		return ""
	}
	switch {
	case furthest == len(lines):
		return fmt.Sprintf("the output ends where %q is expected", want[furthestWant])
	case furthestWant == len(want):
		return fmt.Sprintf("output line %d %q is not in the expect block", furthest+1, lines[furthest])
	default:
		return fmt.Sprintf("output line %d %q does not match %q", furthest+1, lines[furthest], want[furthestWant])
	}
}

// The expect matcher: every output line in order, whole; "…" as any
// text in a line, and alone as any lines.
func TestWalkthroughExpectMatching(t *testing.T) {
	out := "a\n{\"state\": \"SUBMITTED\", \"version\": \"2\"}\n\nb\nDE-2026-000007\n"
	for want, ok := range map[string]bool{
		"a\n\"state\": \"SUBMITTED\"…\"version\"…\nb\nDE-2026-…":   false, // a line shown is the whole line
		"a\n{\"state\": \"SUBMITTED\"…\"version\"…}\nb\nDE-2026-…": true,
		"…\nb\nDE-2026-…":               true,
		"a\n…\nDE-2026-000007":          true,
		"a\n…":                          true,
		"…":                             true,
		"a\n…\nb\n…\nDE-2026-000007\n…": true,
		"DE-2026-…\n…\na":               false, // out of order
		"a\n{\"state\": \"DRAFT\"…}\nb\nDE-2026-…": false,
		"a\nb":                      false, // lines left out: the README's one deadline of three
		"a\n{…}\nb":                 false, // the last line missing
		"a\n{…}\nb\nDE-2026-…\nc":   false, // a line the output lacks
		"a\n{…}\n{…}\nb\nDE-2026-…": false, // a line too many
	} {
		var lines []string
		for _, l := range strings.Split(want, "\n") {
			lines = append(lines, strings.TrimSpace(l))
		}
		if bad := unmatched(out, lines); (bad == "") != ok {
			t.Errorf("%q: matched %v (%s), want %v", want, bad == "", bad, ok)
		}
	}
	if _, err := walkthroughSteps([]docs.Block{{Lang: "json", Tags: []string{"expect"}}}); err == nil {
		t.Error("an expect block without a run block before it passed")
	}
}
