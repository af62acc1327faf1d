package tests

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// Unauthenticated input is bounded: a 3,000-character username is 400
// naming the field (never 500, never echoed), a login body over 64 KiB is
// 413, headers over 1 MiB are 431 in the error shape, and throttle rows of
// long-past windows are expired.
func TestUnauthenticatedInputIsBounded(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startAuth(t, dbcfg, 5)
		long := strings.Repeat("x", 3000)
		st, _, raw := a.post(t, opLogin, hdr("dev-1", ""), map[string]any{
			"usernameCredentials": map[string]string{"username": long, "password": "pw"}, "appToken": appUI})
		wantError(t, 400, 3, st, raw, "usernameCredentials.username", "at most 200 bytes")
		if strings.Contains(string(raw), long[:100]) {
			t.Fatal("the username came back in the answer")
		}
		st, _, raw = a.post(t, opLogin, hdr("dev-1", ""), map[string]any{
			"usernameCredentials": map[string]string{"username": "alice", "password": strings.Repeat("p", 100_000)}, "appToken": appUI})
		wantError(t, 413, 8, st, raw)

		st, _, raw = a.do(t, call{method: http.MethodGet, path: "/svc.core.v1.api.DiscoveryApi/ListProvider",
			headers: map[string]string{"X-Big": strings.Repeat("h", 1<<20+10)}})
		wantError(t, 431, 8, st, raw, "headers")

		// Failed logins of many usernames leave rows only for the window.
		var before, after int64
		a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"usernameCredentials": map[string]string{"username": "ghost-1", "password": "pw"}, "appToken": appUI})
		a.db.Table("auth_throttle").Where("key LIKE ?", "%ghost-1").Count(&before)
		a.clock.Advance(2 * time.Hour)
		a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"usernameCredentials": map[string]string{"username": "ghost-2", "password": "pw"}, "appToken": appUI})
		a.db.Table("auth_throttle").Where("key LIKE ?", "%ghost-1").Count(&after)
		if before != 1 || after != 0 {
			t.Fatalf("throttle rows of ghost-1: %d before, %d after its window passed", before, after)
		}
	})
}

// Large bodies are read a few at once: with every slot held by a slow
// upload, the next large one gets 503 with Retry-After quickly.
func TestLargeBodiesWaitForASlot(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	tok := d.token(t, "alice")
	const size = 2 << 20
	var wg sync.WaitGroup
	release := make(chan struct{})
	started := make(chan struct{}, 4)
	for range 4 { // the default WASTEFLOW_LARGE_BODY_SLOTS
		wg.Add(1)
		go func() {
			defer wg.Done()
			pr, pw := io.Pipe()
			go func() {
				pw.Write([]byte(`{"docXml":"`))
				started <- struct{}{}
				<-release
				pw.CloseWithError(io.ErrUnexpectedEOF)
			}()
			req, _ := http.NewRequest(http.MethodPost, d.url+bmuAPI+"GetDocument", pr)
			req.ContentLength = size
			req.Header.Set("provider_id", "dev-1")
			req.Header.Set("Authorization", "Bearer "+tok)
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for range 4 {
		<-started
	}
	time.Sleep(200 * time.Millisecond) // the four hold their slots
	body := bytes.Repeat([]byte("x"), size)
	t0 := time.Now()
	st, h, raw := d.do(t, call{path: bmuAPI + "GetDocument", headers: hdr("dev-1", tok), body: body})
	waited := time.Since(t0)
	close(release)
	wg.Wait()
	wantError(t, 503, 14, st, raw, "WASTEFLOW_LARGE_BODY_SLOTS")
	if h.Get("Retry-After") == "" || waited > 5*time.Second {
		t.Fatalf("Retry-After %q after %s", h.Get("Retry-After"), waited)
	}
	// With the slots free again a large body is read.
	st, _, raw = d.do(t, call{path: bmuAPI + "GetDocument", headers: hdr("dev-1", tok), body: []byte(fmt.Sprintf(`{"docXml":"%s"}`, strings.Repeat("A", size)))})
	if st != 400 { // read, then refused as XML
		t.Fatalf("a large body after the slots freed: %d %.200s", st, raw)
	}
}

// A failure of the database, not of the request, is 503 with Retry-After,
// so clients retry.
func TestDatabaseFailureIsUnavailable(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	tok := d.token(t, "alice")
	sqlDB, err := d.db.DB()
	if err != nil {
		t.Fatal(err)
	}
	dbtest.SkipAtEnd(d.db) // closed: nothing to replay
	sqlDB.Close()
	st, h, raw := d.do(t, call{path: co + "GetNotification", headers: hdr("dev-1", tok), body: []byte(`{"documentId":"ntf_x"}`)})
	wantError(t, 503, 14, st, raw, "retry")
	if h.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if !models.IsUnavailable(fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF)) {
		t.Fatal("classifier")
	}
}
