package tests

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// metric reads one value of the server's metrics (serve gives them an
// address of their own, WASTEFLOW_METRICS_ADDR; here they are read from
// the same handler without one).
func (a *authEnv) metric(t *testing.T, name string) float64 {
	t.Helper()
	return metricOf(t, a.srv, name)
}

// metricOf reads one value of srv's metrics.
func metricOf(t *testing.T, srv *handlers.Server, name string) float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	srv.Metrics().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if rec.Code != http.StatusOK {
		t.Fatalf("metrics: %d", rec.Code)
	}
	sc := bufio.NewScanner(rec.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no metric %s", name)
	return 0
}

// refusedWithin calls ListSessions with at until it is refused as an
// ended session (401, UNAUTHENTICATED) and returns how long that took.
func (a *authEnv) refusedWithin(t *testing.T, at string, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	for {
		st, _, body := a.get(t, opSession, hdr("dev-1", at))
		if st == 401 {
			wantError(t, 401, 16, st, body, "session has ended")
			return time.Since(start)
		}
		if st != 200 {
			t.Fatalf("ListSessions: HTTP %d %s", st, body)
		}
		if time.Since(start) > limit {
			t.Fatalf("a session revoked elsewhere is still accepted after %s", limit)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// The session cache: a session is read once and kept, and a change made
// by anything else sharing the database (another instance, the admin
// command, an operator's SQL: here a connection of its own, as another
// process) is refused within a second (PostgreSQL: its trigger's NOTIFY,
// here within milliseconds; SQLite: its trigger's row, read every 250
// ms); with the feed cut (PostgreSQL: the listening connection ended;
// SQLite: the changes' table unreadable), nothing is kept, and a change
// made while it was down is not missed.
func TestSessionCacheHearsChangesMadeElsewhere(t *testing.T) {
	dbtest.Each(t, sessionCacheHearsChangesMadeElsewhere)
}

func sessionCacheHearsChangesMadeElsewhere(t *testing.T, dbcfg configs.Database) {
	a := startAuth(t, dbcfg, 10)
	other := dbtest.Open(t, dbcfg) // another process's connection to the same database
	revoke := func(t *testing.T, at string) {
		t.Helper()
		var id string
		if err := other.Raw(`SELECT id FROM sessions WHERE revoked_at IS NULL ORDER BY created_at DESC LIMIT 1`).Scan(&id).Error; err != nil || id == "" {
			t.Fatalf("no session to revoke: %v", err)
		}
		if err := other.Exec(`UPDATE sessions SET revoked_at = created_at, revoked_reason = 'operator' WHERE id = ?`, id).Error; err != nil {
			t.Fatal(err)
		}
	}
	login := func(t *testing.T) string {
		at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
		return at
	}

	t.Run("kept, then refused once revoked elsewhere", func(t *testing.T) {
		at := login(t)
		hits := a.metric(t, "wasteflow_session_cache_hits_total")
		for range 5 {
			if st, _, body := a.get(t, opSession, hdr("dev-1", at)); st != 200 {
				t.Fatalf("ListSessions: HTTP %d %s", st, body)
			}
		}
		if got := a.metric(t, "wasteflow_session_cache_hits_total") - hits; got < 4 {
			t.Fatalf("%v of 5 session checks were answered by the cache, want at least 4 (the first reads the row)", got)
		}
		revoke(t, at)
		t.Logf("refused %s after the revocation's commit", a.refusedWithin(t, at, time.Second))
	})

	t.Run("a group is kept, then refused once removed elsewhere", func(t *testing.T) {
		const n = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"
		st, m, body := a.post(t, n+"RegisterGroup", hdr("dev-1", login(t)), map[string]any{"name": "kept", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		if st != 200 {
			t.Fatalf("RegisterGroup: %d %s", st, body)
		}
		id := m["groupId"].(string)
		st, lm, body := a.post(t, n+"Login", hdr("dev-1", ""), map[string]any{"groupId": id, "groupSecret": m["groupSecret"]})
		if st != 200 {
			t.Fatalf("group login: %d %s", st, body)
		}
		gt := lm["groupToken"].(string)
		// ListNotifications reads no group row of its own: the group is
		// checked where the token is (the cache, or its row)
		poll := func() (int, []byte) {
			st, _, body := a.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"waitSeconds": 0})
			return st, body
		}
		hits := a.metric(t, "wasteflow_session_cache_hits_total")
		for range 5 {
			if st, body := poll(); st != 200 {
				t.Fatalf("ListNotifications: HTTP %d %s", st, body)
			}
		}
		if got := a.metric(t, "wasteflow_session_cache_hits_total") - hits; got < 4 {
			t.Fatalf("%v of 5 group checks were answered by the cache, want at least 4 (the first reads the row)", got)
		}
		if err := other.Exec(`DELETE FROM notifier_groups WHERE id = ?`, id).Error; err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for {
			st, body := poll()
			if st == 401 {
				wantError(t, 401, 16, st, body, "no longer registered")
				break
			}
			if st != 200 {
				t.Fatalf("ListNotifications: HTTP %d %s", st, body)
			}
			if time.Since(start) > time.Second {
				t.Fatal("a group removed elsewhere is still accepted after a second")
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Logf("refused %s after the removal's commit", time.Since(start))
		// the session that registered it ends too: revoke (below) takes the
		// latest session open, and this one was made in the same instant
		if err := other.Exec(`UPDATE sessions SET revoked_at = created_at, revoked_reason = 'operator' WHERE revoked_at IS NULL`).Error; err != nil {
			t.Fatal(err)
		}
	})

	t.Run("with the feed cut nothing is kept; it listens again", func(t *testing.T) {
		at := login(t)
		a.get(t, opSession, hdr("dev-1", at)) // kept
		if a.metric(t, "wasteflow_session_cache_live") != 1 {
			t.Fatal("the feed is not live")
		}
		if dbcfg.Driver == "postgres" {
			// Cut this server's feed connection (its schema's: the feeds of
			// tests running beside it keep theirs).
			if err := other.Exec(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = ?`, models.FeedApplicationNameOf(dbcfg.DSN)).Error; err != nil {
				t.Fatal(err)
			}
			revoke(t, at) // its notification has no listener
		} else {
			// The changes' table away: the poll fails, the cache empties
			// and stops (the triggers follow the rename and write there).
			if err := other.Exec(`ALTER TABLE session_changes RENAME TO session_changes_away`).Error; err != nil {
				t.Fatal(err)
			}
			for deadline := time.Now().Add(10 * time.Second); a.metric(t, "wasteflow_session_cache_live") != 0; time.Sleep(20 * time.Millisecond) {
				if time.Now().After(deadline) {
					t.Fatal("the cache is still live with its changes unreadable")
				}
			}
			revoke(t, at)
			a.refusedWithin(t, at, time.Second)
			if err := other.Exec(`ALTER TABLE session_changes_away RENAME TO session_changes`).Error; err != nil {
				t.Fatal(err)
			}
		}
		a.refusedWithin(t, at, time.Second)
		for deadline := time.Now().Add(10 * time.Second); a.metric(t, "wasteflow_session_cache_live") != 1; time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the feed did not listen again")
			}
		}
		at = login(t)
		a.get(t, opSession, hdr("dev-1", at))
		revoke(t, at)
		a.refusedWithin(t, at, time.Second)
	})
}
