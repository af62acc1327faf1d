package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Issue 44.6: in production, serve refuses to start without
// WASTEFLOW_PUBLIC_URL, saying so, before it touches the database (links
// would otherwise take the request's Host header).
func TestServeInProductionNeedsPublicURL(t *testing.T) {
	fresh := dbtest.SQLite(t)
	code, _, stderr := runCmd(t, environment(t, fresh, "WASTEFLOW_ENVIRONMENT", "production"), "serve")
	if code != exitError || !strings.Contains(stderr, "WASTEFLOW_PUBLIC_URL is not set") || !strings.Contains(stderr, "production") {
		t.Fatalf("serve in production without a public URL: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(fresh.DSN); !os.IsNotExist(err) {
		t.Fatalf("serve without a public URL touched the database: %v", err)
	}
	// Outside production the setting stays optional (the next check is
	// the keys', which production never makes).
	code, _, stderr = runCmd(t, environment(t, dbtest.SQLite(t), "WASTEFLOW_ENVIRONMENT", "production", "WASTEFLOW_PUBLIC_URL", "https://wasteflow.example.org"), "serve")
	if code != exitError || strings.Contains(stderr, "WASTEFLOW_PUBLIC_URL") {
		t.Fatalf("serve in production with a public URL: exit %d, %q; want it past the public URL", code, stderr)
	}
}

// lockedBuffer is a log written by several goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServing runs serve in this process with vars and returns the
// API's address, the log and what stops it (with serve's exit code).
func startServing(t *testing.T, vars ...string) (base string, log *lockedBuffer, stop func() int) {
	t.Helper()
	env := environment(t, dbtest.SQLite(t), append([]string{"WASTEFLOW_ADDR", "127.0.0.1:0", "WASTEFLOW_LOG_LEVEL", "info"}, vars...)...)
	ctx, cancel := context.WithCancel(context.Background())
	addr := make(chan string, 1)
	exit := make(chan int, 1)
	log = &lockedBuffer{}
	go func() {
		exit <- run(ctx, []string{"serve", "-no-scheduler"}, strings.NewReader(""), io.Discard, log, env, func(a string) { addr <- a })
	}()
	select {
	case a := <-addr:
		stopped := false
		stop = func() int {
			if stopped {
				return exitOK
			}
			stopped = true
			cancel()
			return <-exit
		}
		t.Cleanup(func() { stop() })
		return "http://" + a, log, stop
	case code := <-exit:
		cancel()
		return "", log, func() int { return code }
	case <-time.After(60 * time.Second):
		cancel()
		t.Fatalf("serve did not start:\n%s", log.String())
	}
	return "", nil, nil
}

func getStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var metricsInLog = regexp.MustCompile(`metrics=(\S+)`)

// Issue 44.10: /metrics needs no login, so it is not served on the API's
// address (404 there) but on WASTEFLOW_METRICS_ADDR (port 0: a free port,
// in the log line that says where serve listens), which serves nothing
// else; off serves it nowhere; an address in use stops serve, naming the
// setting.
func TestMetricsOnTheirOwnAddress(t *testing.T) {
	base, log, stop := startServing(t)
	if base == "" {
		t.Fatalf("serve did not start:\n%s", log.String())
	}
	m := metricsInLog.FindStringSubmatch(log.String())
	if m == nil || !strings.HasPrefix(m[1], "http://127.0.0.1:") || strings.HasSuffix(m[1], ":0/metrics") {
		t.Fatalf("the log does not say where the metrics are: %s", log.String())
	}
	metricsURL := m[1]
	if st, _ := getStatus(t, base+"/healthz"); st != 200 {
		t.Fatalf("/healthz: %d", st)
	}
	if st, body := getStatus(t, base+"/metrics"); st != 404 || strings.Contains(body, "wasteflow_requests_total") {
		t.Fatalf("/metrics on the API's address: %d %.200s, want 404", st, body)
	}
	st, body := getStatus(t, metricsURL)
	if st != 200 || !strings.Contains(body, `wasteflow_requests_total{code="OK",http_status="200",operation="/healthz"}`) ||
		!strings.Contains(body, `wasteflow_requests_total{code="NOT_FOUND",http_status="404",operation="unmatched"}`) {
		t.Fatalf("the metrics address: %d %.300s", st, body)
	}
	if st, _ := getStatus(t, strings.TrimSuffix(metricsURL, "/metrics")+"/healthz"); st != 404 {
		t.Fatalf("the metrics address serves /healthz too: %d", st)
	}

	// Another server asking for the same metrics address does not start.
	inUse := strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")
	if b2, log2, stop2 := startServing(t, "WASTEFLOW_METRICS_ADDR", inUse); b2 != "" || stop2() != exitError || !strings.Contains(log2.String(), "WASTEFLOW_METRICS_ADDR="+inUse) {
		t.Fatalf("a second server on the metrics address %s started at %q", inUse, b2)
	}
	if code := stop(); code != exitOK {
		t.Fatalf("serve exited %d", code)
	}

	// off: nowhere.
	base, log, stop = startServing(t, "WASTEFLOW_METRICS_ADDR", "off")
	if m := metricsInLog.FindStringSubmatch(log.String()); m == nil || m[1] != "off" {
		t.Fatalf("with metrics off the log says %v:\n%s", m, log.String())
	}
	if st, _ := getStatus(t, base+"/metrics"); st != 404 {
		t.Fatalf("/metrics with the metrics off: %d", st)
	}
	stop()
}
