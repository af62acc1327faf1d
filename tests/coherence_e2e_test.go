package tests

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
)

// secondInstance is another server on a's database, as a second process
// behind a load balancer would be: the same token keys, its own session
// cache and change feed.
func (a *authEnv) secondInstance(t *testing.T, dbcfg configs.Database) *authEnv {
	t.Helper()
	first := a.deps.Auth
	svc, err := auth.New(context.Background(), auth.Service{Store: first.Store, Tokens: first.Tokens, Hasher: first.Hasher, Keyring: first.Keyring,
		Config: first.Config, Now: first.Now, Sessions: auth.NewSessionCache(1000)})
	if err != nil {
		t.Fatal(err)
	}
	listen(t, dbcfg, map[string]models.Feed{models.SessionChannel: models.Sessions(svc.Sessions)}, svc.Sessions.Live)
	deps := a.deps
	deps.Auth = svc
	srv, err := handlers.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, srv)
	t.Cleanup(hs.Close)
	return &authEnv{env: &env{url: hs.URL, srv: srv, t: t}, deps: deps, db: a.db, clock: a.clock, keys: a.keys, issuer: a.issuer, notes: a.notes}
}

// Coherence across instances (PostgreSQL): what ends a credential on one
// instance (or on the database, as the admin command does) is refused by
// another instance that had just accepted it, within a second, here within
// milliseconds: revoking a session, changing a password, revoking a client
// id (sessions: the session cache's LISTEN/NOTIFY feed), unregistering a
// group (group tokens: the same cache, its row's trigger announcing the
// removal), and changing an account's organisation or scopes with admin
// apply (its sessions end with the change, announced like any other).
func TestCoherenceAcrossInstances(t *testing.T) {
	dbcfg := dbtest.Postgres(t)
	a := startAuth(t, dbcfg, 10)
	b := a.secondInstance(t, dbcfg)
	accepted := func(t *testing.T, at string) {
		t.Helper()
		if st, _, body := b.get(t, opSession, hdr("dev-1", at)); st != 200 {
			t.Fatalf("the second instance refused a live token: %d %s", st, body)
		}
	}
	within := func(t *testing.T, at string) {
		t.Helper()
		took := b.refusedWithin(t, at, time.Second)
		t.Logf("refused by the second instance %s after the change", took)
	}
	loginAs := func(t *testing.T, user, pw string) (string, string) {
		t.Helper()
		rt := a.login(t, "dev-1", user, pw, appUI)
		return a.access(t, "dev-1", rt)
	}

	t.Run("a session revoked", func(t *testing.T) {
		at, rt := loginAs(t, "alice", "alice-password-1")
		accepted(t, at)
		if st, _, body := a.post(t, "/svc.core.v1.api.AuthApi/RevokeRefreshToken", hdr("dev-1", at), map[string]any{"refreshToken": rt}); st != 200 {
			t.Fatalf("revoke: %d %s", st, body)
		}
		within(t, at)
	})
	t.Run("a password changed", func(t *testing.T) {
		at, _ := loginAs(t, "alice", "alice-password-1")
		accepted(t, at)
		if st, _, body := a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "alice-password-1"},
			"newPassword": "alice-password-2"}); st != 200 {
			t.Fatalf("change: %d %s", st, body)
		}
		within(t, at)
	})
	t.Run("a client id revoked", func(t *testing.T) {
		at, _ := loginAs(t, "alice", "alice-password-2")
		_, m, body := a.post(t, "/svc.core.v1.api.AuthApi/IssueClientId", hdr("dev-1", at), map[string]any{"description": "erp"})
		id, _ := m["clientId"].(string)
		if id == "" {
			t.Fatalf("IssueClientId: %s", body)
		}
		_, lm, _ := a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"clientIdCredentials": map[string]string{"clientId": id, "clientSecret": m["clientSecret"].(string)}, "appToken": appUI})
		cat, _ := a.access(t, "dev-1", lm["refreshToken"].(string))
		accepted(t, cat)
		if st, _, body := a.post(t, "/svc.core.v1.api.AuthApi/RevokeClientId", hdr("dev-1", at), map[string]any{"clientId": id}); st != 200 {
			t.Fatalf("revoke: %d %s", st, body)
		}
		within(t, cat)
	})
	t.Run("a group unregistered", func(t *testing.T) {
		at, _ := loginAs(t, "noor", "noor-password-1")
		_, g, body := a.post(t, "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/RegisterGroup", hdr("dev-1", at), map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE"}})
		if g["groupId"] == nil {
			t.Fatalf("register: %s", body)
		}
		_, lg, _ := b.post(t, "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
		gt := lg["groupToken"].(string)
		list := func() int {
			st, _, _ := b.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
			return st
		}
		if st := list(); st != 200 {
			t.Fatalf("the group's token on the second instance: %d", st)
		}
		if st, _, body := a.post(t, "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/UnregisterGroup", hdr("dev-1", at), map[string]any{"groupId": g["groupId"]}); st != 200 {
			t.Fatalf("unregister: %d %s", st, body)
		}
		// the second instance keeps the group in its session cache and
		// forgets it when the row's trigger announces the removal
		start := time.Now()
		for list() != 401 {
			if time.Since(start) > time.Second {
				t.Fatalf("a group unregistered on one instance is still accepted on the other after a second")
			}
			time.Sleep(2 * time.Millisecond)
		}
		t.Logf("refused by the second instance %s after the change", time.Since(start))
	})
	t.Run("an account's scopes and organisation changed by admin apply", func(t *testing.T) {
		bobAt, _ := loginAs(t, "bob", "bob-password-12")
		ritaAt, _ := loginAs(t, "rita", "rita-password-1")
		list := func(at string) (int, []byte) { // an operation of their scopes
			st, _, body := b.post(t, co+"ListDocuments", hdr("dev-1", at), map[string]any{})
			return st, body
		}
		for _, at := range []string{bobAt, ritaAt} {
			if st, body := list(at); st != 200 {
				t.Fatalf("the second instance refused a live token: %d %s", st, body)
			}
		}
		fixture := strings.NewReplacer(
			"username: bob, password: \"bob-password-12\", scopes: [documents:read, documents:write, transport, signing]",
			"username: bob, password: \"bob-password-12\", scopes: [documents:read]",
			"organisation: recyc, username: rita", "organisation: acme, username: rita",
			// the passwords as they are now: only bob's scopes and rita's organisation change
			"alice-password-1", "alice-password-2").Replace(authFixture)
		f, err := bootstrap.Parse(strings.NewReader(fixture))
		if err != nil {
			t.Fatal(err)
		}
		other := dbtest.Open(t, dbcfg) // the admin command's process
		applier := &bootstrap.Applier{Store: models.NewSeedStore(other), Hasher: a.deps.Auth.Hasher, Keyring: a.deps.Auth.Keyring}
		if _, err := applier.Apply(context.Background(), f); err != nil {
			t.Fatal(err)
		}
		changed := time.Now()
		for _, at := range []string{bobAt, ritaAt} {
			for {
				st, body := list(at)
				if st == 401 {
					wantError(t, 401, 16, st, body, "session has ended")
					break
				}
				if time.Since(changed) > time.Second {
					t.Fatalf("a token of an account changed elsewhere is still accepted after a second: %d %s", st, body)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
		t.Logf("both refused by the second instance %s after the change", time.Since(changed))
		if at, _ := loginAs(t, "bob", "bob-password-12"); at == "" {
			t.Fatal("bob cannot log in again")
		}
	})
}
