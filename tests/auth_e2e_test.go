package tests

import (
	"bytes"
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/auth"
	wbmu "github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	wclock "github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/events"
	"github.com/wasteflow/wasteflow/workflows/kinds"
	"github.com/wasteflow/wasteflow/workflows/mail"
	"github.com/wasteflow/wasteflow/workflows/registers"
	"github.com/wasteflow/wasteflow/workflows/reports"
	"github.com/wasteflow/wasteflow/workflows/signer"
	"github.com/wasteflow/wasteflow/workflows/tokens"
	"github.com/wasteflow/wasteflow/workflows/transport"
	"github.com/wasteflow/wasteflow/workflows/wake"
	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.now }
func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

const authFixture = `
providers:
  - {id: dev-1, environment: development, name: Dev}
  - {id: dev-2, environment: development, name: Dev two}
organisations:
  - {id: acme, provider: dev-1, kind: company, name: ACME, country: DE, numbers: [I123E45678]}
  - {id: auth-nl, provider: dev-1, kind: authority, name: ILT, country: NL}
  - {id: acme, provider: dev-2, kind: company, name: ACME two, country: DE}
  - {id: recyc, provider: dev-1, kind: company, name: Recycling, country: NL}
  - {id: truck, provider: dev-1, kind: company, name: Carrier, country: DE, region: NW, numbers: [E234F56781]}
  - {id: dump, provider: dev-1, kind: company, name: Deponie Sued, country: DE, region: BY, numbers: [I345G67898]}
  - {id: barge, provider: dev-1, kind: company, name: Barge carrier, country: NL}
  - {id: evil, provider: dev-1, kind: company, name: Not a party, country: DE}
  - {id: auth-de, provider: dev-1, kind: authority, name: LfU Bayern, country: DE, region: BY}
  - {id: auth-be, provider: dev-1, kind: authority, name: OVAM, country: BE}
applications:
  - {provider: dev-1, name: ui, appToken: "app-token-ui-0123456789abcdef", scopes: [usermgt, documents:read, documents:write, transport, signing]}
  - {provider: dev-1, name: viewer, appToken: "app-token-viewer-0123456789ab", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-2, name: ui, appToken: "app-token-dev2-0123456789abcde", scopes: [usermgt]}
accounts:
  - {provider: dev-1, organisation: acme, username: alice, password: "alice-password-1", scopes: [usermgt, documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: acme, username: bob, password: "bob-password-12", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: auth-nl, username: noor, password: "noor-password-1", scopes: [usermgt, documents:read, documents:write, transport, signing]}
  - {provider: dev-2, organisation: acme, username: alice, password: "alice-two-pass", scopes: [usermgt]}
  - {provider: dev-1, organisation: recyc, username: rita, password: "rita-password-1", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: evil, username: eve, password: "eve-password-12", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: auth-de, username: bernd, password: "bernd-password-1", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: dump, username: dora, password: "dora-password-1", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: auth-be, username: bart, password: "bart-password-12", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: truck, username: tom, password: "tom-password-123", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: barge, username: sam, password: "sam-password-123", scopes: [documents:read, documents:write, transport, signing]}
  - {provider: dev-1, organisation: acme, username: nina, password: "nina-password-12", scopes: []}
templates:
  - {id: tpl-acme, provider: dev-1, organisation: acme, interneBezeichnung: "Monitore Sammeltour", art: N, firstNumber: "11681570210290", count: 5}
`

const (
	appUI     = "app-token-ui-0123456789abcdef"
	appViewer = "app-token-viewer-0123456789ab"
	appDev2   = "app-token-dev2-0123456789abcde"
)

type authEnv struct {
	*env
	db    *gorm.DB
	clock *clock
	// deps start another instance on the same database; hs serves this one.
	deps     handlers.Deps
	hs       *httptest.Server
	keys     *tokens.Keys
	issuer   *tokens.Issuer
	notes    *documents.Runner
	trust    *wbmu.Trust      // whose transport-document signatures count
	signKeys *testKeys        // the signing keys of accounts
	queue    *models.JobQueue // the job queue, not worked until workJobs
	hooks    *webhooks.Service
	mails    *mail.Service
	working  bool // the job queue is worked (workJobs)
}

// runWebhooks works the job queue and fans events out into webhook
// deliveries until the test ends.
func (a *authEnv) runWebhooks(t testing.TB) {
	t.Helper()
	a.workJobs(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); a.hooks.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
}

// workJobs starts working the job queue (register exports) until the
// test ends.
func (a *authEnv) workJobs(t testing.TB) {
	t.Helper()
	if a.working {
		return
	}
	a.working = true
	if err := a.queue.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = a.queue.Stop(ctx)
	})
}

// testKeys are signing keys by username (and trusted when added).
type testKeys struct {
	mu    sync.Mutex
	m     map[string]*signer.Key
	trust *wbmu.Trust
}

func (k *testKeys) KeyFor(provider, username string) (*signer.Key, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if key, ok := k.m[username]; ok {
		return key, nil
	}
	return nil, fmt.Errorf("no signing key for %s", username)
}

func (k *testKeys) add(username string, key crypto.Signer, cert *x509.Certificate) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.m[username] = &signer.Key{Signer: key, Cert: cert}
	k.trust.Add(cert)
}

func startAuth(t testing.TB, dbcfg configs.Database, maxFailures int) *authEnv {
	return startAuthLimits(t, dbcfg, maxFailures, 1000)
}

func startAuthLimits(t testing.TB, dbcfg configs.Database, maxFailures, maxPerIP int) *authEnv {
	return startServer(t, dbcfg, maxFailures, maxPerIP, 5*time.Minute)
}

func startServer(t testing.TB, dbcfg configs.Database, maxFailures, maxPerIP int, accessTTL time.Duration) *authEnv {
	t.Helper()
	return startServerIn(t, dbcfg, "development", maxFailures, maxPerIP, accessTTL)
}

// startServerIn starts a server of environment (the fixture's providers
// belong to it).
func startServerIn(t testing.TB, dbcfg configs.Database, environment string, maxFailures, maxPerIP int, accessTTL time.Duration) *authEnv {
	t.Helper()
	db := dbtest.Open(t, dbcfg)
	ring, _ := credentials.NewKeyring(bytes.Repeat([]byte{9}, 32))
	hasher := credentials.NewHasher(runtime.NumCPU()) // the default of WASTEFLOW_PASSWORD_HASH_CONCURRENCY
	if hashCheaply {
		hasher.WithParams(cheapHashes)
	}
	f, err := bootstrap.Parse(strings.NewReader(strings.ReplaceAll(authFixture, "environment: development", "environment: "+environment)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&bootstrap.Applier{Store: models.NewSeedStore(db), Hasher: hasher, Keyring: ring}).Apply(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	keys := tokens.NewKeys(priv)
	clk := &clock{now: time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)} // a Tuesday
	issuer := &tokens.Issuer{Keys: keys, Name: "wasteflow", Now: clk.Now}
	svc, err := auth.New(context.Background(), auth.Service{
		Store: models.NewAuthStore(db), Tokens: issuer, Hasher: hasher, Keyring: ring, Now: clk.Now,
		Config: auth.Config{AccessTTL: accessTTL, RefreshTTL: 720 * time.Hour, GroupTTL: 15 * time.Minute,
			MaxFailures: maxFailures, MaxFailuresPerIP: maxPerIP, FailureWindow: 15 * time.Minute},
	})
	if err != nil {
		t.Fatal(err)
	}
	var evWake, signWake *wake.Hub
	if dbcfg.Driver == "postgres" { // as cmd serve does: the session cache, the waits' hubs and their feed
		svc.Sessions, evWake, signWake = auth.NewSessionCache(1000), &wake.Hub{}, &wake.Hub{}
		seq := models.NewSequencer(db, testLog())
		listen(t, dbcfg, map[string]models.Feed{models.SessionChannel: models.Sessions(svc.Sessions),
			models.EventChannel: evWake, models.SigningChannel: signWake, models.EventsAddedChannel: seq}, signWake.Live)
		seqCtx, stopSeq := context.WithCancel(context.Background())
		seqDone := make(chan struct{})
		go func() { defer close(seqDone); seq.Run(seqCtx) }()
		t.Cleanup(func() { stopSeq(); <-seqDone })
	} else { // as cmd serve does on SQLite: the session cache fed by the changes' rows (migration 00037)
		svc.Sessions = auth.NewSessionCache(1000)
		pollCtx, stopPoll := context.WithCancel(context.Background())
		pollDone := make(chan struct{})
		go func() {
			defer close(pollDone)
			models.PollSessionChanges(pollCtx, db, svc.Sessions, models.SessionPollEvery, testLog())
		}()
		t.Cleanup(func() { stopPoll(); <-pollDone })
		for deadline := time.Now().Add(10 * time.Second); !svc.Sessions.Live(); time.Sleep(time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatal("the session changes are not read")
			}
		}
	}
	cfg, _ := configs.Load(func(string) (string, bool) { return "", false })
	cfg.Database = dbcfg
	cfg.Environment = environment
	notes, err := documents.New(db, clk.Now, kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	notes.Clocks = wclock.New(db, environment)
	checked(notes)
	cfg.UIAppToken = appUI
	trust := &wbmu.Trust{Now: clk.Now}
	cd, _ := rbmu.CheckDigitMethod(rbmu.DefaultCheckDigit)
	store := &transport.Service{Store: models.NewTransportStore(db), Mapping: wbmu.Ours{}, Now: clk.Now}
	bmuSvc := &wbmu.Service{Mapping: wbmu.Ours{}, Trust: trust, CheckDigit: cd, Now: clk.Now, Numbers: store.TakeNumber}
	signKeys := &testKeys{m: map[string]*signer.Key{}, trust: trust}
	cfg.WatchInterval = 20 * time.Millisecond
	// The job queue inserts here; the tests of exports work it (workJobs).
	queue, err := models.NewJobQueue(db, models.JobConfig{Workers: 2, Poll: 50 * time.Millisecond, JobTimeout: 20 * time.Second, RescueAfter: 30 * time.Second,
		Queues: map[string]int{webhooks.Queue: 4, mail.Queue: 2}}, testLog())
	if err != nil {
		t.Fatal(err)
	}
	regs := &registers.Service{Store: models.NewExportStore(db), Docs: notes, BMU: bmuSvc, Jobs: queue, Now: clk.Now, PageSize: 7}
	regs.Register(queue)
	// Webhooks retry within a test's time (the schedule's shape, scaled down).
	hooks := &webhooks.Service{Store: models.NewWebhookStore(db), Groups: models.NewEventStore(db), Jobs: queue, Keyring: ring,
		Guard: &webhooks.Guard{Sandbox: wclock.Sandbox(environment)}, Kinds: auth.EventKinds, Log: testLog(), Clocks: notes.Clocks, Now: clk.Now,
		Config: webhooks.Config{Retries: []time.Duration{50 * time.Millisecond, 100 * time.Millisecond, 200 * time.Millisecond, 400 * time.Millisecond, 400 * time.Millisecond},
			DisableAfter: time.Hour, Timeout: 2 * time.Second, Poll: 50 * time.Millisecond}}
	hooks.Init()
	hooks.Register(queue)
	// Mails go nowhere until a test gives them a mail server (startMailpit).
	mails := &mail.Service{Store: models.NewMailStore(db), Jobs: queue, Keyring: ring, Clocks: notes.Clocks, Now: clk.Now, Log: testLog(),
		Retry: func(int) time.Duration { return 100 * time.Millisecond }}
	mails.Register(queue)
	deps := handlers.Deps{Registers: regs, Webhooks: hooks, Mail: mails, Log: testLog(), Config: cfg, DB: db, Auth: svc, JWKS: keys.JWKS(), Documents: notes,
		BMU:       bmuSvc,
		Transport: store,
		Signer:    &signer.Service{Store: models.NewSignerStore(db), BMU: bmuSvc, Keys: signKeys, Now: clk.Now, Poll: 20 * time.Millisecond, Wake: signWake},
		Reports:   &reports.Service{Store: models.NewReportStore(db), Now: clk.Now, Clocks: notes.Clocks},
		Events:    &events.Service{Store: models.NewEventStore(db), Poll: 20 * time.Millisecond, Wake: evWake}}
	deps = withOracle(deps)
	srv, err := handlers.New(deps)
	if err != nil {
		t.Fatal(err)
	}
	hs := serveH2C(t, srv)
	t.Cleanup(hs.Close)
	e := &env{url: hs.URL, srv: srv}
	if overGRPC(t) {
		e.grpc = dialGRPC(t, hs.URL)
	}
	if tt, ok := t.(*testing.T); ok { // benchmarks record nothing
		e.t = tt
		t.Cleanup(e.validateRecorded)
	}
	return &authEnv{env: e, deps: deps, hs: hs, db: db, clock: clk, keys: keys, issuer: issuer, notes: notes, trust: trust, signKeys: signKeys, queue: queue, hooks: hooks, mails: mails}
}

const (
	opLogin   = "/svc.core.v1.api.AuthApi/IssueRefreshToken"
	opAccess  = "/svc.core.v1.api.AuthApi/RequestAccess"
	opSession = "/svc.core.v1.api.AuthApi/ListSessions"
	opChange  = "/svc.core.v1.api.AuthApi/ChangePassword"
	opRevoke  = "/svc.core.v1.api.AuthApi/RevokeRefreshToken"
)

func hdr(provider, token string) map[string]string {
	h := map[string]string{"provider_id": provider}
	if token != "" {
		h["Authorization"] = "Bearer " + token
	}
	return h
}

func (a *authEnv) post(t *testing.T, path string, headers map[string]string, body any) (int, map[string]any, []byte) {
	t.Helper()
	var b []byte
	if body != nil {
		b, _ = json.Marshal(body)
	}
	st, _, resp := a.do(t, call{path: path, headers: headers, body: b})
	var m map[string]any
	_ = json.Unmarshal(resp, &m)
	return st, m, resp
}

func (a *authEnv) get(t *testing.T, path string, headers map[string]string) (int, map[string]any, []byte) {
	t.Helper()
	st, _, resp := a.do(t, call{method: http.MethodGet, path: path, headers: headers})
	var m map[string]any
	_ = json.Unmarshal(resp, &m)
	return st, m, resp
}

func (a *authEnv) login(t *testing.T, provider, user, pw, app string) string {
	t.Helper()
	st, m, body := a.post(t, opLogin, hdr(provider, ""), map[string]any{
		"usernameCredentials": map[string]string{"username": user, "password": pw}, "appToken": app})
	if st != 200 {
		t.Fatalf("login %s: HTTP %d %s", user, st, body)
	}
	return m["refreshToken"].(string)
}

// access exchanges rt and returns the access token and the next refresh token.
func (a *authEnv) access(t *testing.T, provider, rt string) (string, string) {
	t.Helper()
	st, m, body := a.post(t, opAccess, hdr(provider, rt), nil)
	if st != 200 {
		t.Fatalf("RequestAccess: HTTP %d %s", st, body)
	}
	return m["accessToken"].(string), m["refreshToken"].(string)
}

func TestAuthFlow(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startAuth(t, dbcfg, 10)

		t.Run("login, access, protected call; scopes are app ∩ account", func(t *testing.T) {
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			st, m, body := a.get(t, opSession, hdr("dev-1", at))
			if st != 200 || len(m["sessions"].([]any)) != 1 {
				t.Fatalf("ListSessions: %d %s", st, body)
			}
			// viewer app lacks usermgt: alice's token from it lacks it too.
			at2, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appViewer))
			st, _, body = a.get(t, opSession, hdr("dev-1", at2))
			wantError(t, 403, 7, st, body, "usermgt")
			// bob's account lacks usermgt although the app has it.
			at3, _ := a.access(t, "dev-1", a.login(t, "dev-1", "bob", "bob-password-12", appUI))
			st, _, body = a.get(t, opSession, hdr("dev-1", at3))
			wantError(t, 403, 7, st, body)
		})

		t.Run("wrong credentials all look the same", func(t *testing.T) {
			var messages []string
			for _, c := range []struct{ provider, user, pw, app string }{
				{"dev-1", "alice", "wrong-password-x", appUI},
				{"dev-1", "nobody", "alice-password-1", appUI},
				{"dev-1", "alice", "alice-password-1", "not-an-app-token-at-all-xx"},
				{"dev-1", "alice", "alice-password-1", appDev2}, // another provider's app
				{"dev-2", "bob", "bob-password-12", appDev2},    // bob is of dev-1
			} {
				st, m, body := a.post(t, opLogin, hdr(c.provider, ""), map[string]any{
					"usernameCredentials": map[string]string{"username": c.user, "password": c.pw}, "appToken": c.app})
				wantError(t, 401, 16, st, body)
				messages = append(messages, m["message"].(string))
			}
			for _, msg := range messages[1:] {
				if msg != messages[0] {
					t.Fatalf("login failures differ: %q", messages)
				}
			}
			st, _, body := a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"appToken": appUI})
			wantError(t, 400, 3, st, body)
		})

		t.Run("rotation and reuse detection", func(t *testing.T) {
			rt0 := a.login(t, "dev-1", "alice", "alice-password-1", appUI)
			at1, rt1 := a.access(t, "dev-1", rt0)
			_, rt2 := a.access(t, "dev-1", rt1)
			st, _, body := a.post(t, opAccess, hdr("dev-1", rt0), nil) // replay an ancestor
			wantError(t, 401, 16, st, body, "already used")
			for _, tok := range []string{rt1, rt2} {
				st, _, body = a.post(t, opAccess, hdr("dev-1", tok), nil)
				wantError(t, 401, 16, st, body)
			}
			st, _, body = a.get(t, opSession, hdr("dev-1", at1))
			wantError(t, 401, 16, st, body)
			var reason string
			a.db.Raw("SELECT revoked_reason FROM sessions WHERE revoked_at IS NOT NULL AND revoked_reason = 'reuse'").Scan(&reason)
			if reason != "reuse" {
				t.Fatal("session not revoked with reason reuse")
			}
		})

		t.Run("token kinds, providers and expiry", func(t *testing.T) {
			rt := a.login(t, "dev-1", "alice", "alice-password-1", appUI)
			at, rt2 := a.access(t, "dev-1", rt)
			st, _, body := a.get(t, opSession, hdr("dev-1", rt2)) // refresh token as access token
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, opAccess, hdr("dev-1", at), nil) // access token as refresh token
			wantError(t, 401, 16, st, body)
			st, _, body = a.get(t, opSession, hdr("dev-2", at)) // another provider's header
			wantError(t, 401, 16, st, body)
			a.clock.Advance(5*time.Minute + 31*time.Second) // past exp + leeway
			st, _, body = a.get(t, opSession, hdr("dev-1", at))
			wantError(t, 401, 16, st, body)
			at2, _ := a.access(t, "dev-1", rt2) // the refresh token still works
			if st, _, _ := a.get(t, opSession, hdr("dev-1", at2)); st != 200 {
				t.Fatal("fresh access token refused")
			}
		})

		t.Run("tampered tokens are refused", func(t *testing.T) {
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			parts := strings.Split(at, ".")
			b64 := base64.RawURLEncoding.EncodeToString
			_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
			other := &tokens.Issuer{Keys: tokens.NewKeys(otherKey), Name: "wasteflow", Now: a.clock.Now}
			foreign, _, _ := other.Sign(tokens.Access, tokens.Claims{Provider: "dev-1"}, time.Minute)
			flipped := []byte(parts[1])
			flipped[5] ^= 1
			for name, tok := range map[string]string{
				"alg none":     b64([]byte(`{"alg":"none","typ":"at+jwt"}`)) + "." + parts[1] + ".",
				"alg nOnE":     b64([]byte(`{"alg":"nOnE","typ":"at+jwt","kid":"x"}`)) + "." + parts[1] + "." + parts[2],
				"HS256":        b64([]byte(`{"alg":"HS256","typ":"at+jwt"}`)) + "." + parts[1] + "." + parts[2],
				"unknown kid":  b64([]byte(`{"alg":"EdDSA","typ":"at+jwt","kid":"nope"}`)) + "." + parts[1] + "." + parts[2],
				"flipped bit":  parts[0] + "." + string(flipped) + "." + parts[2],
				"other key":    foreign,
				"100,000 dots": strings.Repeat(".", 100_000),
				"garbage":      "not-a-jwt",
				"two segments": parts[0] + "." + parts[1],
				"missing exp":  parts[0] + "." + b64([]byte(`{"iss":"wasteflow","sub":"1","aud":["wasteflow/api"],"prv":"dev-1","jti":"x"}`)) + "." + parts[2],
				"wrong typ":    b64([]byte(`{"alg":"EdDSA","typ":"rt+jwt"}`)) + "." + parts[1] + "." + parts[2],
			} {
				st, _, body := a.get(t, opSession, hdr("dev-1", tok))
				if st != 401 && !(name == "100,000 dots" && st == 431) {
					t.Errorf("%s: HTTP %d %s", name, st, body)
				}
			}
		})

		t.Run("password change", func(t *testing.T) {
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "bob", "bob-password-12", appUI))
			creds := func(pw string) map[string]string { return map[string]string{"username": "bob", "password": pw} }
			st, _, body := a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds("wrong-password-x"), "newPassword": "a-new-password-1"})
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds("bob-password-12"), "newPassword": "short"})
			wantError(t, 400, 3, st, body, "at least 12 characters")
			st, _, body = a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds("bob-password-12"), "newPassword": "BOB"})
			wantError(t, 400, 3, st, body)
			st, _, body = a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds("bob-password-12"), "newPassword": "bobs-new-password"})
			if st != 200 {
				t.Fatalf("change: %d %s", st, body)
			}
			// bob's sessions end: his (scope-less) access token is refused outright.
			st, _, body = a.post(t, "/svc.core.v1.api.AuthApi/IssueClientId", hdr("dev-1", at), map[string]any{})
			wantError(t, 401, 16, st, body)
			a.login(t, "dev-1", "bob", "bobs-new-password", appUI)

			// Another account's password: needs alice's access token with usermgt.
			body2 := map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "alice-password-1"},
				"newPassword": "reset-by-alice-1", "targetUsername": "bob"}
			st, _, body = a.post(t, opChange, hdr("dev-1", ""), body2)
			wantError(t, 401, 16, st, body)
			atAlice, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			st, _, body = a.post(t, opChange, hdr("dev-1", atAlice), body2)
			if st != 200 {
				t.Fatalf("change bob by alice: %d %s", st, body)
			}
			a.login(t, "dev-1", "bob", "reset-by-alice-1", appUI)
			body2["targetUsername"] = "noor" // another organisation
			st, _, body = a.post(t, opChange, hdr("dev-1", atAlice), body2)
			wantError(t, 404, 5, st, body)
		})

		t.Run("client ids", func(t *testing.T) {
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			st, m, body := a.post(t, "/svc.core.v1.api.AuthApi/IssueClientId", hdr("dev-1", at), map[string]any{"description": "erp export"})
			if st != 200 {
				t.Fatalf("IssueClientId: %d %s", st, body)
			}
			id, secret := m["clientId"].(string), m["clientSecret"].(string)
			st, m, body = a.get(t, "/svc.core.v1.api.AuthApi/ListClientIds", hdr("dev-1", at))
			if st != 200 || strings.Contains(string(body), secret) || strings.Contains(string(body), "ecret") || len(m["clientIds"].([]any)) != 1 {
				t.Fatalf("ListClientIds: %d %s", st, body)
			}
			st, lm, body := a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"clientIdCredentials": map[string]string{"clientId": id, "clientSecret": secret}, "appToken": appUI})
			if st != 200 {
				t.Fatalf("client login: %d %s", st, body)
			}
			cat, _ := a.access(t, "dev-1", lm["refreshToken"].(string))
			st, _, body = a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"clientIdCredentials": map[string]string{"clientId": id, "clientSecret": "wrong"}, "appToken": appUI})
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, "/svc.core.v1.api.AuthApi/RevokeClientId", hdr("dev-1", at), map[string]any{"clientId": id})
			if st != 200 {
				t.Fatalf("revoke: %d %s", st, body)
			}
			st, _, body = a.get(t, opSession, hdr("dev-1", cat)) // the client's session ended
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, opLogin, hdr("dev-1", ""), map[string]any{"clientIdCredentials": map[string]string{"clientId": id, "clientSecret": secret}, "appToken": appUI})
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, "/svc.core.v1.api.AuthApi/RevokeClientId", hdr("dev-1", at), map[string]any{"clientId": id})
			wantError(t, 404, 5, st, body)
		})

		t.Run("sessions are listed and revoked one by one", func(t *testing.T) {
			atA, _ := a.access(t, "dev-1", a.login(t, "dev-1", "noor", "noor-password-1", appUI))
			rtB := a.login(t, "dev-1", "noor", "noor-password-1", appUI)
			atB, rtB2 := a.access(t, "dev-1", rtB)
			st, m, body := a.get(t, opSession, hdr("dev-1", atA))
			if st != 200 || len(m["sessions"].([]any)) != 2 {
				t.Fatalf("ListSessions: %d %s", st, body)
			}
			first := m["sessions"].([]any)[0].(map[string]any)
			if first["credentialType"] != "USERNAME_PASSWORD" || first["applicationName"] != "ui" || first["clientIp"] != "127.0.0.1" {
				t.Fatalf("session entry: %v", first)
			}
			// Revoke B by its refresh token: B's tokens stop at once, A goes on.
			st, _, body = a.post(t, opRevoke, hdr("dev-1", atA), map[string]any{"refreshToken": rtB2})
			if st != 200 {
				t.Fatalf("revoke: %d %s", st, body)
			}
			st, _, body = a.get(t, opSession, hdr("dev-1", atB))
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, opAccess, hdr("dev-1", rtB2), nil)
			wantError(t, 401, 16, st, body)
			st, m, _ = a.get(t, opSession, hdr("dev-1", atA))
			if st != 200 || len(m["sessions"].([]any)) != 1 {
				t.Fatalf("after revoke: %v", m)
			}
			// Another account's session is not found.
			atAlice, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			own := m["sessions"].([]any)[0].(map[string]any)["sessionId"]
			st, _, body = a.post(t, opRevoke, hdr("dev-1", atAlice), map[string]any{"sessionId": own})
			wantError(t, 404, 5, st, body)
		})

		t.Run("notifier groups", func(t *testing.T) {
			const n = "/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/"
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			st, m, body := a.post(t, n+"RegisterGroup", hdr("dev-1", at), map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE", "DOCUMENT_STATE_CHANGED"}})
			if st != 200 {
				t.Fatalf("RegisterGroup: %d %s", st, body)
			}
			id, secret := m["groupId"].(string), m["groupSecret"].(string)
			st, _, body = a.post(t, n+"RegisterGroup", hdr("dev-1", at), map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE"}})
			wantError(t, 409, 6, st, body)
			st, _, body = a.post(t, n+"RegisterGroup", hdr("dev-1", at), map[string]any{"name": "x"})
			wantError(t, 400, 3, st, body)
			st, lm, body := a.post(t, n+"Login", hdr("dev-1", ""), map[string]any{"groupId": id, "groupSecret": secret})
			if st != 200 {
				t.Fatalf("group login: %d %s", st, body)
			}
			gt := lm["groupToken"].(string)
			st, gm, body := a.get(t, n+"GetGroup", hdr("dev-1", gt))
			if st != 200 || gm["group"].(map[string]any)["name"] != "erp" {
				t.Fatalf("GetGroup: %d %s", st, body)
			}
			st, _, body = a.get(t, opSession, hdr("dev-1", gt)) // a group token is no access token
			wantError(t, 401, 16, st, body)
			st, _, body = a.get(t, n+"GetGroup", hdr("dev-1", at)) // nor the other way round
			wantError(t, 401, 16, st, body)
			st, _, body = a.post(t, n+"Login", hdr("dev-1", ""), map[string]any{"groupId": id, "groupSecret": "wrong"})
			wantError(t, 401, 16, st, body)
			st, lg, _ := a.get(t, n+"ListGroups", hdr("dev-1", at))
			if st != 200 || len(lg["groups"].([]any)) != 1 || strings.Contains(fmt.Sprint(lg), secret) {
				t.Fatalf("ListGroups: %v", lg)
			}
			st, _, body = a.post(t, n+"UnregisterGroup", hdr("dev-1", at), map[string]any{"groupId": id})
			if st != 200 {
				t.Fatalf("unregister: %d %s", st, body)
			}
			st, _, body = a.get(t, n+"GetGroup", hdr("dev-1", gt))
			wantError(t, 401, 16, st, body)
		})

		t.Run("secrets are not stored in clear", func(t *testing.T) {
			at, _ := a.access(t, "dev-1", a.login(t, "dev-1", "alice", "alice-password-1", appUI))
			_, m, _ := a.post(t, "/svc.core.v1.api.AuthApi/IssueClientId", hdr("dev-1", at), map[string]any{})
			secret := m["clientSecret"].(string)
			dump := dumpTables(t, a.db)
			for _, plain := range []string{"alice-password-1", "bob-password-12", appUI, secret, at} {
				if strings.Contains(dump, plain) {
					t.Errorf("%q… is stored in clear", plain[:8])
				}
			}
		})
	})
}

func dumpTables(t *testing.T, db *gorm.DB) string {
	var b strings.Builder
	for _, table := range []string{"providers", "organisations", "applications", "accounts", "client_ids", "sessions", "refresh_tokens", "auth_throttle", "notifier_groups"} {
		var rows []map[string]any
		if err := db.Table(table).Find(&rows).Error; err != nil {
			t.Fatal(err)
		}
		fmt.Fprintln(&b, rows)
	}
	return b.String()
}

func TestLoginThrottling(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startAuth(t, dbcfg, 3)
		wrong := map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "wrong-password-x"}, "appToken": appUI}
		right := map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "alice-password-1"}, "appToken": appUI}
		for i := 0; i < 2; i++ {
			st, _, body := a.post(t, opLogin, hdr("dev-1", ""), wrong)
			wantError(t, 401, 16, st, body)
		}
		// The change-password path shares the account's counter.
		st, _, body := a.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "nope-nope-nope"}, "newPassword": "whatever-123456"})
		wantError(t, 401, 16, st, body)
		st, h, body := a.do(t, call{path: opLogin, headers: hdr("dev-1", ""), body: mustJSON(right)})
		wantError(t, 429, 8, st, body)
		if h.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// Other accounts are not affected.
		a.login(t, "dev-1", "bob", "bob-password-12", appUI)
		// Not a lockout: after the window the right password works.
		a.clock.Advance(16 * time.Minute)
		a.login(t, "dev-1", "alice", "alice-password-1", appUI)

		// One address guessing across many accounts is throttled too.
		b := startAuthLimits(t, dbcfg, 100, 4)
		for i, user := range []string{"u1", "u2", "u3", "u4", "u5"} {
			st, h, body := b.do(t, call{path: opLogin, headers: hdr("dev-1", ""), body: mustJSON(map[string]any{
				"usernameCredentials": map[string]string{"username": user, "password": "guess-guess-guess"}, "appToken": appUI})})
			if i < 4 {
				wantError(t, 401, 16, st, body)
			} else {
				wantError(t, 429, 8, st, body)
				if h.Get("Retry-After") == "" {
					t.Fatal("429 without Retry-After")
				}
			}
		}
	})
}

func mustJSON(v any) []byte { b, _ := json.Marshal(v); return b }

// Twenty clients present one refresh token at once, fifty times: exactly one
// wins each time, and afterwards no token of the family works.
func TestConcurrentRequestAccessOnPostgres(t *testing.T) {
	a := startAuth(t, dbtest.Postgres(t), 1000)
	const clients, trials = 20, 50
	for trial := range trials {
		rt := a.login(t, "dev-1", "alice", "alice-password-1", appUI)
		var wg sync.WaitGroup
		results := make(chan map[string]any, clients)
		statuses := make(chan int, clients)
		start := make(chan struct{})
		for range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				req, _ := http.NewRequest(http.MethodPost, a.url+opAccess, nil)
				req.Header.Set("provider_id", "dev-1")
				req.Header.Set("Authorization", "Bearer "+rt)
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					statuses <- -1
					return
				}
				defer resp.Body.Close()
				var m map[string]any
				_ = json.NewDecoder(resp.Body).Decode(&m)
				statuses <- resp.StatusCode
				if resp.StatusCode == 200 {
					results <- m
				}
			}()
		}
		close(start)
		wg.Wait()
		close(statuses)
		close(results)
		wins := 0
		for st := range statuses {
			switch st {
			case 200:
				wins++
			case 401:
			default:
				t.Fatalf("trial %d: HTTP %d", trial, st)
			}
		}
		if wins != 1 {
			t.Fatalf("trial %d: %d winners, want exactly 1", trial, wins)
		}
		won := <-results
		for _, tok := range []string{rt, won["refreshToken"].(string)} {
			st, _, _ := a.post(t, opAccess, hdr("dev-1", tok), nil)
			if st != 401 {
				t.Fatalf("trial %d: a token of the family survived (HTTP %d)", trial, st)
			}
		}
		st, _, _ := a.get(t, opSession, hdr("dev-1", won["accessToken"].(string)))
		if st != 401 {
			t.Fatalf("trial %d: the winner's access token survived the family's revocation", trial)
		}
	}
}

// Fifty wrong passwords at once against a limit of five: no more than five
// are ever evaluated (each attempt is reserved before its hash is computed).
func TestParallelAttemptsAtTheThreshold(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		a := startAuth(t, dbcfg, 5)
		body := mustJSON(map[string]any{"usernameCredentials": map[string]string{"username": "alice", "password": "wrong-password-x"}, "appToken": appUI})
		counts := burst(t, 50, func(int) *http.Request {
			req, _ := http.NewRequest(http.MethodPost, a.url+opLogin, bytes.NewReader(body))
			req.Header.Set("provider_id", "dev-1")
			return req
		})
		if counts[401] > 5 || counts[401]+counts[429] != 50 {
			t.Fatalf("statuses %v: want at most 5 evaluated (401), the rest 429", counts)
		}
	})
}

func TestOpenAPIDeclaresSecurityAndScopes(t *testing.T) {
	a := startAuth(t, dbtest.SQLite(t), 10)
	doc := a.openapi()
	want := map[string]string{
		"/svc.core.v1.api.AuthApi/IssueRefreshToken":                             "none",
		"/svc.core.v1.api.AuthApi/RequestAccess":                                 "RefreshToken",
		"/svc.core.v1.api.AuthApi/ChangePassword":                                "optional",
		"/svc.core.v1.api.AuthApi/ListSessions":                                  "AccessToken",
		"/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/Login":           "none",
		"/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/GetGroup":        "GroupToken",
		"/svc.namespaced_notifier.v1.api.RegisteredGroupAuthApi/UnregisterGroup": "AccessToken",
	}
	for _, op := range a.srv.Operations() {
		if op.NoREST() {
			continue // gRPC only: not in the description
		}
		item := doc.Paths.Find(op.Path())
		o := item.GetOperation(op.Verb)
		if op.Scope != "" && !strings.Contains(o.Description, "`"+op.Scope+"`") {
			t.Errorf("%s: description does not name its scope %s", op.Path(), op.Scope)
		}
		kind, ok := want[op.Path()]
		if !ok {
			continue
		}
		got := "AccessToken" // the document default
		if o.Security != nil {
			switch sec := *o.Security; {
			case len(sec) == 0:
				got = "none"
			case len(sec) == 2:
				got = "optional"
			default:
				for name := range sec[0] {
					got = name
				}
			}
		}
		if got != kind {
			t.Errorf("%s: security %s, want %s", op.Path(), got, kind)
		}
	}
	checkRoutes(t, a.srv, doc)
	intent := doc.Components.Schemas["FollowUpIntent"].Value.Properties["intent"].Value
	if !slices.Contains(intent.Enum, any("DECISION")) || slices.Contains(intent.Enum, any("TACIT_CONSENT")) ||
		!strings.Contains(intent.Description, "DECISION: consent, consent with conditions, or object") {
		t.Errorf("intent values not derived from the machine: %v\n%s", intent.Enum, intent.Description)
	}
	if !slices.Contains(intent.Enum, any("CARRIER_TRANSFER")) || slices.Contains(intent.Enum, any("TAKE_BACK_COMPLETED")) {
		t.Errorf("Annex VII intents not derived from its machine: %v", intent.Enum)
	}
	// The codes of every kind, each once.
	code := doc.Components.Schemas["BusinessError"].Value.Properties["code"].Value
	var codes []string
	for _, k := range kinds.All() {
		for _, c := range k.Codes {
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	if len(code.Enum) != len(codes) || !slices.Contains(code.Enum, any("WASTE_NOT_GREEN_LISTED")) || !slices.Contains(code.Enum, any("SHIPMENT_PERIOD_INVALID")) {
		t.Errorf("business error codes: %v, want %v", code.Enum, codes)
	}
	if st, m, _ := a.get(t, "/.well-known/jwks.json", nil); st != 200 || len(m["keys"].([]any)) != 1 ||
		m["keys"].([]any)[0].(map[string]any)["kid"] != a.keys.SigningKID() {
		t.Fatalf("jwks: %d %v", st, m)
	}
}

// listen feeds the database's notifications to feeds until the test ends,
// as cmd serve does, and returns once live says they are heard.
func listen(t testing.TB, dbcfg configs.Database, feeds map[string]models.Feed, live func() bool) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		models.Listen(ctx, dbcfg.DSN, feeds, testLog())
	}()
	t.Cleanup(func() { cancel(); <-done })
	for deadline := time.Now().Add(10 * time.Second); !live(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the change feed does not listen")
		}
	}
}
