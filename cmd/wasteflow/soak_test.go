package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestSoak is part of `make stress`: the server process on PostgreSQL, its
// scheduler on, idle and then under a mixed load of 64 clients for 10
// minutes (WASTEFLOW_SOAK_SECONDS): logins with token rotation, creates,
// filings and acknowledgements, information requests and replies (each
// document at most ten times, then a fresh one: the documents' histories
// stay short, so the load stays the same), reads and lists. Every few
// seconds it samples the process's resident memory (/proc) and the Go
// runtime's goroutines and heap (/metrics). It passes when no request
// failed with a server error, the resident memory after the warm-up (the
// first fifth, at least a minute) stays flat (the last quarter's median
// within 10 % of the median of the quarter after the warm-up), and the
// goroutines return to their idle count when the load stops (no leak).
func TestSoak(t *testing.T) {
	if os.Getenv("WASTEFLOW_SOAK") == "" {
		t.Skip("the soak runs with WASTEFLOW_SOAK=1 (make stress)")
	}
	duration := 10 * time.Minute
	if s, err := strconv.Atoi(os.Getenv("WASTEFLOW_SOAK_SECONDS")); err == nil && s > 0 {
		duration = time.Duration(s) * time.Second
	}
	bin, _, env := stressSetup(t)
	addr, metricsAddr := freeAddr(), freeAddr()
	base := "http://" + addr
	env = append(env, "WASTEFLOW_ADDR="+addr, "WASTEFLOW_METRICS_ADDR="+metricsAddr)
	var stderr bytes.Buffer
	proc := &exec.Cmd{Path: bin, Args: []string{bin, "serve"}, Env: env, Stderr: &stderr}
	if err := proc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = proc.Process.Kill()
		_ = proc.Wait()
		if t.Failed() {
			t.Logf("server's log:\n%.4000s", stderr.String())
		}
	}()
	for end := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(end) {
			t.Fatal("the server did not get ready")
		}
	}

	var requests, serverErrors, clientErrors atomic.Int64
	read := func() sample {
		s := sample{rssMB: rssMB(t, proc.Process.Pid)}
		m := metrics(t, "http://"+metricsAddr)
		s.goroutines, s.heapMB, s.served = m["go_goroutines"], m["go_memstats_heap_inuse_bytes"]/(1<<20), float64(requests.Load())
		return s
	}
	time.Sleep(5 * time.Second)
	idle := read()
	t.Logf("idle: rss %.1f MB, heap %.1f MB, %v goroutines", idle.rssMB, idle.heapMB, idle.goroutines)

	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
	post := func(path, token string, body any) (int, map[string]any) {
		raw, _ := json.Marshal(body)
		req, _ := http.NewRequest(http.MethodPost, base+path, bytes.NewReader(raw))
		req.Header.Set("provider_id", "dev-1")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := client.Do(req)
		requests.Add(1)
		if err != nil {
			serverErrors.Add(1)
			t.Logf("%s: %v", path, err)
			return 0, nil
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		switch {
		case resp.StatusCode >= 500:
			if serverErrors.Add(1) <= 5 {
				t.Logf("%s: HTTP %d %.300s", path, resp.StatusCode, out)
			}
		case resp.StatusCode != 200 || bytes.Contains(out, []byte(`"businessErrors":[{`)):
			if clientErrors.Add(1) <= 5 {
				t.Logf("%s: HTTP %d %.300s", path, resp.StatusCode, out)
			}
		}
		return resp.StatusCode, m
	}
	const co, au = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/", "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/"
	// One session per user (logins are throttled per account), its access
	// token shared by the clients and renewed every minute by rotating the
	// refresh token (RequestAccess answers with the next one).
	type session struct{ refresh, access atomic.Value }
	login := func(user string) *session {
		_, m := post("/svc.core.v1.api.AuthApi/IssueRefreshToken", "", map[string]any{
			"usernameCredentials": map[string]string{"username": user, "password": user + "-demo-password"}, "appToken": "demo-app-token-dev-1-0123456789abcdef"})
		s := &session{}
		s.refresh.Store(m["refreshToken"])
		return s
	}
	rotate := func(s *session) {
		_, m := post("/svc.core.v1.api.AuthApi/RequestAccess", s.refresh.Load().(string), nil)
		if at, ok := m["accessToken"].(string); ok {
			s.access.Store(at)
			s.refresh.Store(m["refreshToken"])
		}
	}
	alice, noor := login("alice"), login("noor")
	rotate(alice)
	rotate(noor)
	if alice.access.Load() == nil || noor.access.Load() == nil {
		t.Fatal("no access tokens")
	}
	day := func(n int) string { return time.Now().UTC().AddDate(0, 0, n).Format(time.DateOnly) }
	org := func(id string) map[string]any { return map[string]any{"organisationId": id} }
	notification := map[string]any{
		"notifier": org("acme"), "consignee": org("recyc"), "facility": org("recyc"), "producers": []any{org("acme")}, "carriers": []any{org("truck")},
		"competentAuthorities":  map[string]any{"dispatch": org("auth-de-by"), "destination": org("auth-nl"), "transit": []any{org("auth-be")}},
		"wasteClassifications":  []any{map[string]any{"list": "EU_LIST_OF_WASTE", "code": "16 02 13*"}},
		"recoveryDisposalCodes": []any{"R4"}, "totalQuantity": map[string]any{"tonnes": map[string]any{"units": "100"}}, "numberOfShipments": 5,
		"shipmentPeriod": map[string]any{"firstDeparture": day(7), "lastDeparture": day(300)}, "packagingTypes": []any{"BULK"},
		"route": map[string]any{"transitCountries": []any{"BE"}, "meansOfTransport": []any{"ROAD"}},
	}
	// act fires an intent on the document at version *ver, keeping *ver
	// as the answer says: the next version, or, stale, the current one
	// (then once more).
	act := func(path, token string, ver *string, body map[string]any) {
		for try := 0; try < 2; try++ {
			body["version"] = *ver
			st, m := post(path, token, body)
			if v := docVersion(m); st == 200 && v != "" {
				*ver = v
				return
			}
			if v := currentVersion(m); st == 409 && v != "" {
				*ver = v
				continue
			}
			return
		}
	}
	fresh := func(company, authority string) (string, string) {
		_, m := post(co+"CreateSubmission", company, map[string]any{"notification": notification})
		doc, _ := m["document"].(map[string]any)
		id, _ := doc["id"].(string)
		ver := docVersion(m)
		act(co+"SetSubmission", company, &ver, map[string]any{"documentId": id, "notification": notification})
		act(au+"SubmitAcknowledgement", authority, &ver, map[string]any{"documentId": id})
		return id, ver
	}

	ctx, cancel := context.WithTimeout(context.Background(), duration)
	defer cancel()
	var samples []sample
	var smu sync.Mutex
	began := time.Now()
	go func() {
		for tick := time.NewTicker(5 * time.Second); ctx.Err() == nil; <-tick.C {
			s := read()
			s.at = time.Since(began)
			smu.Lock()
			samples = append(samples, s)
			smu.Unlock()
		}
	}()
	go func() {
		for tick := time.NewTicker(time.Minute); ctx.Err() == nil; <-tick.C {
			rotate(alice)
			rotate(noor)
		}
	}()
	var wg sync.WaitGroup
	for c := range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			company, authority := alice.access.Load().(string), noor.access.Load().(string)
			id, ver := fresh(company, authority)
			for i := 0; ctx.Err() == nil; i++ {
				if i%40 == 0 {
					company, authority = alice.access.Load().(string), noor.access.Load().(string)
				}
				switch {
				case i%40 == 39: // ten request-reply cycles per document, then a fresh one
					id, ver = fresh(company, authority)
				case i%4 == 0:
					act(au+"SetRequestInformation", authority, &ver, map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"the analysis"}}})
				case i%4 == 1:
					act(co+"SetReplyToRequestInformation", company, &ver, map[string]any{"documentId": id,
						"replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
				case c%2 == 0:
					post(co+"GetDocument", company, map[string]any{"documentId": id})
				default:
					post(co+"ListDocuments", company, map[string]any{"qpar": map[string]any{"pageSize": 20,
						"sort": []any{map[string]any{"path": "created_at", "direction": "DESC"}}}})
				}
			}
		}()
	}
	wg.Wait()
	time.Sleep(3 * time.Second) // keep-alive connections closed by the client's transport below
	client.CloseIdleConnections()
	time.Sleep(2 * time.Second)
	after := read()
	smu.Lock()
	defer smu.Unlock()
	for _, s := range samples {
		t.Logf("%4.0fs rss %6.1f MB heap %6.1f MB goroutines %4.0f requests %8.0f", s.at.Seconds(), s.rssMB, s.heapMB, s.goroutines, s.served)
	}
	warm := max(duration/5, time.Minute)
	var settled []sample
	for _, s := range samples {
		if s.at >= warm {
			settled = append(settled, s)
		}
	}
	if len(settled) < 8 {
		t.Fatalf("%d samples after the warm-up: run longer", len(settled))
	}
	q := len(settled) / 4
	early, late := medianRSS(settled[:q]), medianRSS(settled[len(settled)-q:])
	rate := float64(requests.Load()) / duration.Seconds()
	fmt.Printf("soak seconds=%.0f clients=64 requests=%d rate=%.0f server_errors=%d client_errors=%d rss_idle_mb=%.1f rss_early_mb=%.1f rss_late_mb=%.1f goroutines_idle=%.0f goroutines_after=%.0f\n",
		duration.Seconds(), requests.Load(), rate, serverErrors.Load(), clientErrors.Load(), idle.rssMB, early, late, idle.goroutines, after.goroutines)
	if n := serverErrors.Load(); n > 0 {
		t.Errorf("%d requests failed with a server error or none at all", n)
	}
	if n := clientErrors.Load(); n > 0 {
		t.Errorf("%d requests were refused (the load's requests are all valid)", n)
	}
	if late > early*1.10 {
		t.Errorf("resident memory grew after the warm-up: median %.1f MB early, %.1f MB late", early, late)
	}
	if after.goroutines > idle.goroutines+5 {
		t.Errorf("goroutines: %v idle before the load, %v after it (a leak)", idle.goroutines, after.goroutines)
	}
}

// sample is the soak's reading of the server at one time.
type sample struct {
	at                 time.Duration
	rssMB, heapMB      float64
	goroutines, served float64
}

func medianRSS(s []sample) float64 {
	v := make([]float64, len(s))
	for i := range s {
		v[i] = s[i].rssMB
	}
	slices.Sort(v)
	return v[len(v)/2]
}

// rssMB is process pid's resident memory in MB (VmRSS of /proc).
func rssMB(t *testing.T, pid int) float64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if v, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 64)
			return kb / 1024
		}
	}
	t.Fatal("no VmRSS")
	return 0
}

// metrics reads the series of the server's /metrics by name, labels
// included (`wasteflow_waiters{kind="events"}`; base is
// WASTEFLOW_METRICS_ADDR's).
func metrics(t *testing.T, base string) map[string]float64 {
	resp, err := http.Get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			name, v := line[:i], line[i+1:]
			out[name], _ = strconv.ParseFloat(v, 64)
		}
	}
	return out
}
