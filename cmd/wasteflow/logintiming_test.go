package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestLoginTimingTellsNoUsername measures, from outside, whether a failed
// login answers faster for a username that does not exist than for one
// that does (issue 44.9): 200 tries each against a served demo database,
// in random order (strictly alternating tries fall into step with the
// garbage collector's rhythm, each hash allocating 19 MiB, and showed a
// difference of 7 ms that random order does not), known usernames drawn
// from the demo accounts, unknown ones new each time, as a guesser's are.
// The difference of the medians must stay within the noise: its 99 %
// bootstrap interval holds 0, or it is under 1 ms. make stress runs it (WASTEFLOW_STRESS=1); the
// work both paths do is held equal by TestFailedLoginsDoTheSameWork.
func TestLoginTimingTellsNoUsername(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("the login timing runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		env := environment(t, cfg, "WASTEFLOW_ADDR", "127.0.0.1:0",
			"WASTEFLOW_LOGIN_MAX_FAILURES", "100000", "WASTEFLOW_LOGIN_MAX_FAILURES_PER_IP", "100000")
		if code, _, stderr := runCmd(t, env, "demo"); code != exitOK {
			t.Fatalf("demo: %d %s", code, stderr)
		}
		ctx, cancel := context.WithCancel(context.Background())
		addr, exit := make(chan string, 1), make(chan int, 1)
		go func() {
			exit <- run(ctx, []string{"serve", "-no-scheduler"}, strings.NewReader(""), io.Discard, io.Discard, env, func(a string) { addr <- a })
		}()
		t.Cleanup(func() { cancel(); <-exit })
		var base string
		select {
		case a := <-addr:
			base = "http://" + a
		case code := <-exit:
			t.Fatalf("serve exited %d", code)
		case <-time.After(60 * time.Second):
			t.Fatal("serve did not start")
		}

		known := []string{"alice", "tom", "rita", "bernd", "noor", "bart", "dora"}
		try := func(username string) time.Duration {
			body := fmt.Sprintf(`{"usernameCredentials":{"username":%q,"password":"not-the-password"},"appToken":"demo-app-token-dev-1-0123456789abcdef"}`, username)
			req, _ := http.NewRequest(http.MethodPost, base+"/svc.core.v1.api.AuthApi/IssueRefreshToken", bytes.NewBufferString(body))
			req.Header.Set("provider_id", "dev-1")
			begin := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			took := time.Since(begin)
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("a failed login of %s answered %d", username, resp.StatusCode)
			}
			return took
		}
		seed := rand.Uint64()
		r := rand.New(rand.NewPCG(seed, 44))
		for i := range 20 { // warm up
			try(known[i%len(known)])
			try(fmt.Sprintf("nobody-warm-%d", i))
		}
		const n = 200
		var k, u []float64
		for len(k) < n || len(u) < n {
			if len(u) >= n || (len(k) < n && r.IntN(2) == 0) {
				k = append(k, ms(try(known[r.IntN(len(known))])))
			} else {
				u = append(u, ms(try(fmt.Sprintf("nobody-%d-%d", seed%1000, len(u)))))
			}
		}
		diff := median(k) - median(u)
		// The noise: a bootstrap of the difference of the medians, each
		// group resampled from itself; its 99 % interval.
		var boot []float64
		rk, ru := make([]float64, n), make([]float64, n)
		for range 2000 {
			for i := range n {
				rk[i], ru[i] = k[r.IntN(n)], u[r.IntN(n)]
			}
			boot = append(boot, median(rk)-median(ru))
		}
		slices.Sort(boot)
		lo, hi := boot[len(boot)/200], boot[len(boot)-1-len(boot)/200]
		t.Logf("%s, seed %d: known usernames median %.2f ms (p10 %.2f, p90 %.2f), unknown %.2f ms (p10 %.2f, p90 %.2f); difference %+.2f ms, 99 %% interval [%+.2f, %+.2f] ms",
			cfg.Driver, seed, median(k), pct(k, 10), pct(k, 90), median(u), pct(u, 10), pct(u, 90), diff, lo, hi)
		if (lo > 0 || hi < 0) && abs(diff) > 1 {
			t.Errorf("a failed login tells whether its username exists: the medians differ by %+.2f ms (99 %% interval [%+.2f, %+.2f] ms, which leaves out 0)", diff, lo, hi)
		}
	})
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func median(xs []float64) float64 { return pct(xs, 50) }

func pct(xs []float64, p int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}
