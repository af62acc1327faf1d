package tests

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// cspWatch collects what the browser's console says about Content
// Security Policy (a refused script, style, connection or frame) until
// ctx ends.
type cspWatch struct {
	mu   sync.Mutex
	seen []string
}

func watchCSP(ctx context.Context, wg *sync.WaitGroup) *cspWatch {
	w := &cspWatch{}
	messages := chromedp.Console(ctx)
	wg.Go(func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if strings.Contains(m.Text, "Content Security Policy") || strings.Contains(m.Text, "X-Frame-Options") {
				w.mu.Lock()
				w.seen = append(w.seen, m.String())
				w.mu.Unlock()
			}
		}
	})
	return w
}

func (w *cspWatch) violations() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.seen...)
}

// Issue 44.5: a page of another origin that frames the console, the
// deadline page or the signing page gets an error page in its frame, not
// the page (the Sign button cannot be clickjacked); the browser says why.
// An answer that is no page (/healthz) still loads in the same frame, so
// the check sees what a framed page would be.
func TestPagesRefuseFraming(t *testing.T) {
	exe := chromium(t)
	t.Parallel()
	d := startDocs(t, dbtest.SQLite(t))
	targets := []string{"/ui", "/ui/deadlines", "/ui/sign?process=x", "/docs/README.md", "/healthz"}
	attacker := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		var b strings.Builder
		b.WriteString("<!doctype html><title>a page of another origin</title>")
		for i, p := range targets {
			fmt.Fprintf(&b, `<iframe name="f%d" src="%s%s" width="400" height="300"></iframe>`, i, d.url, p)
		}
		_, _ = w.Write([]byte(b.String()))
	}))
	t.Cleanup(attacker.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-background-networking", true), chromedp.UserDataDir(t.TempDir()))
	defer cancelAlloc()
	bctx, cancelBrowser := chromedp.NewContext(alloc)
	defer cancelBrowser()
	if err := chromedp.Do(bctx); err != nil {
		t.Fatal(err)
	}
	wctx, stop := context.WithCancel(bctx)
	var watchers sync.WaitGroup
	defer watchers.Wait()
	defer stop()
	csp := watchCSP(wctx, &watchers)
	if err := chromedp.Do(bctx, chromedp.Navigate(attacker.URL)); err != nil {
		t.Fatal(err)
	}
	// frames: the frame's name -> what it shows (its URL, or the address it
	// could not show).
	var frames map[string]*cdp.Frame
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		tree, err := chromedp.Call(bctx, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			t.Fatal(err)
		}
		frames = map[string]*cdp.Frame{}
		for _, c := range tree.FrameTree.ChildFrames {
			frames[c.Frame.Name] = c.Frame
		}
		loaded := 0
		for _, f := range frames {
			if f.URL != "" && f.URL != "about:blank" {
				loaded++
			}
		}
		if loaded == len(targets) {
			break
		}
		if time.Now().After(end) {
			t.Fatalf("the frames did not load: %d of %d", loaded, len(targets))
		}
	}
	for i, p := range targets {
		f := frames[fmt.Sprintf("f%d", i)]
		framed := f != nil && strings.HasPrefix(f.URL, d.url) && f.UnreachableURL == ""
		if want := p == "/healthz"; framed != want {
			t.Errorf("%s in a frame of another origin: shown %v (frame %+v), want %v", p, framed, f, want)
		}
	}
	time.Sleep(200 * time.Millisecond) // the console's last words
	refused := strings.Join(csp.violations(), "\n")
	if !strings.Contains(refused, "frame-ancestors") {
		t.Errorf("the browser did not say why it refused the frames: %q", refused)
	}
}
