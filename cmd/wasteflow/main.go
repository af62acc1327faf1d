// Command wasteflow is the wasteflow server and its administration tool.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"time"

	"golang.org/x/net/netutil"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/contract"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/models"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/schedulers"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/events"
	"github.com/wasteflow/wasteflow/workflows/mail"
	"github.com/wasteflow/wasteflow/workflows/registers"
	"github.com/wasteflow/wasteflow/workflows/reports"
	"github.com/wasteflow/wasteflow/workflows/signer"
	"github.com/wasteflow/wasteflow/workflows/tokens"
	tstore "github.com/wasteflow/wasteflow/workflows/transport"
	"github.com/wasteflow/wasteflow/workflows/wake"
	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

// version is set by the Makefile (-ldflags "-X main.version=...").
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	for _, w := range configs.Unknown(os.Environ()) {
		fmt.Fprintf(os.Stderr, "wasteflow: warning: %s\n", w)
	}
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv, nil)
	stop()
	os.Exit(code)
}

// exit codes
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// run is the whole program; ready, when not nil, receives the address the
// server listens on (tests use it).
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool), ready func(addr string)) int {
	if len(args) == 0 {
		fmt.Fprint(stdout, usage())
		return exitUsage
	}
	// Help comes before the configuration is read: it opens no database,
	// starts nothing and writes no file, and works with any configuration.
	if wantsHelp(args) {
		return helpCmd(args, stdout, stderr)
	}
	if args[0] == "help" {
		return helpCmd(args[1:], stdout, stderr)
	}
	if args[0] == "version" {
		fmt.Fprintf(stdout, "wasteflow %s (%s)\n", version, runtime.Version())
		return exitOK
	}
	cfg, err := configs.Load(lookup)
	if err != nil {
		fmt.Fprintf(stderr, "wasteflow: configuration: %v\n", err)
		return exitError
	}
	log := newLogger(cfg, stderr)

	var cmdErr error
	if c := findCommand(args[0]); c != nil && c.args == "" && len(args) > 1 {
		return unexpected(c, args[1], stderr)
	}
	switch args[0] {
	case "serve":
		fs := newFlags("serve", stderr)
		noScheduler := serveFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return exitUsage
		}
		cmdErr = serve(ctx, cfg, log, !*noScheduler, ready)
	case "migrate":
		cmdErr = withDB(ctx, cfg, log, func(db *models.DB) error {
			applied, err := models.Migrate(ctx, db, log)
			if err != nil {
				return err
			}
			fmt.Fprintf(stdout, "migrations applied: %d\n", len(applied))
			return nil
		})
	case "admin":
		return admin(ctx, cfg, log, args[1:], stdin, stdout, stderr)
	case "demo":
		cmdErr = demo(ctx, cfg, log, stdout)
	case "workflows":
		return workflowsCmd(args[1:], stdout, stderr)
	case "report":
		return reportCmd(ctx, cfg, log, args[1:], stdout, stderr)
	case "openapi":
		cmdErr = openapiCmd(ctx, cfg, stdout)
	case "proto":
		fs := newFlags("proto", stderr)
		dir := fs.String("dir", "proto", "the directory of the .proto files")
		if err := fs.Parse(args[1:]); err != nil {
			return exitUsage
		}
		cmdErr = protoCmd(ctx, cfg, *dir, stdout)
	case "docs":
		fs := newFlags("docs", stderr)
		dir := docsFlags(fs)
		if err := fs.Parse(args[1:]); err != nil {
			return exitUsage
		}
		cmdErr = docsCmd(ctx, cfg, *dir, stdout)
	default:
		fmt.Fprintf(stderr, "wasteflow: unknown command %q\n\n%s", args[0], usage())
		return exitUsage
	}
	if cmdErr != nil {
		fmt.Fprintf(stderr, "wasteflow %s: %v\n", args[0], cmdErr)
		return exitError
	}
	return exitOK
}

// unexpected refuses an argument a command does not take.
func unexpected(c *command, arg string, stderr io.Writer) int {
	fmt.Fprintf(stderr, "wasteflow %s: unexpected argument %q\nusage: %s\n", c.name, arg, c.synopsis())
	return exitUsage
}

func serveFlags(fs *flag.FlagSet) (noScheduler *bool) {
	return fs.Bool("no-scheduler", false, "serve the API only; run no deadline sweeps on this instance")
}

// newBMU is the transport-document service the configuration asks for.
func newBMU(cfg *configs.Config) (*bmu.Service, error) {
	cd, err := rbmu.CheckDigitMethod(cfg.BMUCheckDigit)
	if err != nil {
		return nil, fmt.Errorf("WASTEFLOW_BMU_CHECK_DIGIT: %w", err)
	}
	trust, err := bmu.LoadTrust(cfg.BMUTrustedCerts)
	if err != nil {
		return nil, fmt.Errorf("WASTEFLOW_BMU_TRUSTED_CERTS: %w", err)
	}
	return &bmu.Service{Mapping: bmu.Ours{}, Trust: trust, CheckDigit: cd}, nil
}

// newSigner is the signing service with the configured keys; their
// certificates count as trusted for transport-document signatures.
func newSigner(cfg *configs.Config, db *models.DB, b *bmu.Service) (*signer.Service, error) {
	keys := signer.DirKeys{Dir: cfg.SignerKeys}
	certs, err := keys.Certificates()
	if err != nil {
		return nil, fmt.Errorf("WASTEFLOW_SIGNER_KEYS: %w", err)
	}
	for _, c := range certs {
		b.Trust.Add(c)
	}
	return &signer.Service{Store: models.NewSignerStore(db), BMU: b, Keys: keys}, nil
}

// openapiCmd prints the OpenAPI description without a running server or
// the configured database (see offlineServer).
func openapiCmd(ctx context.Context, cfg *configs.Config, stdout io.Writer) error {
	return offlineServer(ctx, cfg, func(h *handlers.Server) error {
		_, err := stdout.Write(h.OpenAPIYAML())
		return err
	})
}

// protoCmd writes the .proto files of the gRPC face into dir, keeping the
// field numbers of the files already there (see contract.BuildProto).
func protoCmd(ctx context.Context, cfg *configs.Config, dir string, stdout io.Writer) error {
	committed, err := contract.ReadProtoFiles(os.DirFS(dir), ".")
	if err != nil {
		return err
	}
	return offlineServer(ctx, cfg, func(h *handlers.Server) error {
		files, err := contract.BuildProto(ctx, h.Operations(), committed)
		if err != nil {
			return err
		}
		for p, b := range files {
			full := filepath.Join(dir, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				return err
			}
			if bytes.Equal(committed[p], b) {
				continue
			}
			if err := os.WriteFile(full, b, 0o644); err != nil {
				return err
			}
			fmt.Fprintf(stdout, "wrote %s\n", full)
		}
		for p := range committed {
			if _, ok := files[p]; !ok {
				if err := os.Remove(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "removed %s\n", filepath.Join(dir, p))
			}
		}
		return nil
	})
}

// offlineServer builds the server on a throw-away embedded database and
// runs fn with it: the descriptions (OpenAPI, .proto) depend on the code
// and configuration only, not on a running server or its database.
func offlineServer(ctx context.Context, cfg *configs.Config, fn func(*handlers.Server) error) error {
	dir, err := os.MkdirTemp("", "wasteflow-offline-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c := *cfg
	path := filepath.Join(dir, "offline.db")
	c.Database = configs.Database{URL: "sqlite://" + path, Driver: "sqlite", DSN: path, MaxOpenConns: 2, MaxIdleConns: 2, ConnMaxLifetime: time.Hour}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := models.Open(ctx, c.Database, quiet)
	if err != nil {
		return err
	}
	defer models.Close(db)
	if _, err := models.Migrate(ctx, db, quiet); err != nil {
		return err
	}
	authSvc, keys, err := newAuth(ctx, &c, db)
	if err != nil {
		return err
	}
	docs, err := newRunner(db, &c, nil)
	if err != nil {
		return err
	}
	transport, err := newBMU(&c)
	if err != nil {
		return err
	}
	store := &tstore.Service{Store: models.NewTransportStore(db), Mapping: bmu.Ours{}}
	transport.Numbers = store.TakeNumber
	signing, err := newSigner(&c, db, transport)
	if err != nil {
		return err
	}
	regs, queue, err := newRegisters(db, &c, "", docs, transport, quiet)
	if err != nil {
		return err
	}
	h, err := handlers.New(handlers.Deps{Config: &c, DB: db, Log: quiet, Version: version, Auth: authSvc, JWKS: keys.JWKS(), Documents: docs, BMU: transport, Transport: store, Signer: signing,
		Reports: &reports.Service{Store: models.NewReportStore(db), Now: time.Now, Clocks: docs.Clocks}, Events: &events.Service{Store: models.NewEventStore(db)}, Registers: regs,
		Webhooks: newWebhooks(db, &c, authSvc.Keyring, queue, docs, quiet), Mail: newMail(db, &c, authSvc.Keyring, queue, docs, quiet)})
	if err != nil {
		return err
	}
	return fn(h)
}

// newLogger is the log of every command. An error in a log line goes
// through models.LogSafe, so a database's error never carries the values
// of the statement that failed (issue 44.7).
func newLogger(cfg *configs.Config, w io.Writer) *slog.Logger {
	opts := &slog.HandlerOptions{Level: cfg.LogLevel, ReplaceAttr: safeErrors}
	if cfg.LogFormat == "json" {
		return slog.New(slog.NewJSONHandler(w, opts))
	}
	return slog.New(slog.NewTextHandler(w, opts))
}

// safeErrors writes an error attribute as models.LogSafe's message.
func safeErrors(_ []string, a slog.Attr) slog.Attr {
	if a.Value.Kind() == slog.KindAny {
		if err, ok := a.Value.Any().(error); ok {
			a.Value = slog.StringValue(models.LogSafe(err).Error())
		}
	}
	return a
}

// withDB opens the configured database and runs fn.
func withDB(ctx context.Context, cfg *configs.Config, log *slog.Logger, fn func(*models.DB) error) error {
	db, err := models.Open(ctx, cfg.Database, log)
	if err != nil {
		return err
	}
	defer models.Close(db)
	return fn(db)
}

// withMigratedDB opens the configured database, applies pending migrations
// and runs fn: the admin commands work on a fresh database too.
func withMigratedDB(ctx context.Context, cfg *configs.Config, log *slog.Logger, fn func(*models.DB) error) error {
	return withDB(ctx, cfg, log, func(db *models.DB) error {
		if _, err := models.Migrate(ctx, db, log); err != nil {
			return err
		}
		return fn(db)
	})
}

// applyBootstrap applies a parsed bootstrap file to the migrated database.
func applyBootstrap(ctx context.Context, cfg *configs.Config, log *slog.Logger, file *bootstrap.File) (res bootstrap.Result, err error) {
	err = withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		a, err := applier(cfg, db)
		if err != nil {
			return err
		}
		res, err = a.Apply(ctx, file)
		return err
	})
	return res, err
}

func keyring(cfg *configs.Config) (*credentials.Keyring, error) {
	keys, err := credentials.LoadKeyring(cfg.SecretKeyFile, !cfg.Production())
	if err != nil {
		return nil, fmt.Errorf("WASTEFLOW_SECRET_KEY_FILE: %w", err)
	}
	return keys, nil
}

func applier(cfg *configs.Config, db *models.DB) (*bootstrap.Applier, error) {
	keys, err := keyring(cfg)
	if err != nil {
		return nil, err
	}
	return &bootstrap.Applier{Store: models.NewSeedStore(db), Hasher: credentials.NewHasher(cfg.Auth.HashConcurrency), Keyring: keys}, nil
}

// newAuth loads the token keys and the server key and builds the account
// and token workflows.
func newAuth(ctx context.Context, cfg *configs.Config, db *models.DB) (*auth.Service, *tokens.Keys, error) {
	keys, err := tokens.LoadKeys(cfg.Auth.SigningKeyFile, cfg.Auth.VerifyKeyFiles, !cfg.Production())
	if err != nil {
		return nil, nil, fmt.Errorf("WASTEFLOW_JWT_SIGNING_KEY_FILE / WASTEFLOW_JWT_VERIFY_KEY_FILES: %w", err)
	}
	ring, err := keyring(cfg)
	if err != nil {
		return nil, nil, err
	}
	svc, err := auth.New(ctx, auth.Service{
		Store:   models.NewAuthStore(db),
		Tokens:  &tokens.Issuer{Keys: keys, Name: cfg.Auth.Issuer},
		Hasher:  credentials.NewHasher(cfg.Auth.HashConcurrency),
		Keyring: ring,
		Config: auth.Config{
			AccessTTL: cfg.Auth.AccessTokenTTL, RefreshTTL: cfg.Auth.RefreshTokenTTL, GroupTTL: cfg.Auth.GroupTokenTTL,
			MaxFailures: cfg.Auth.MaxFailures, MaxFailuresPerIP: cfg.Auth.MaxFailuresPerIP, FailureWindow: cfg.Auth.FailureWindow,
		},
	})
	if err != nil {
		return nil, nil, err
	}
	return svc, keys, nil
}

func adminApply(ctx context.Context, cfg *configs.Config, log *slog.Logger, path string, stdin io.Reader, stdout io.Writer) error {
	in := stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	file, err := bootstrap.Parse(in)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	res, err := applyBootstrap(ctx, cfg, log, file)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	fmt.Fprintf(stdout, "applied %s\n%s\n", path, res)
	if !res.Changed() {
		fmt.Fprintln(stdout, "nothing changed")
	}
	return nil
}

func demo(ctx context.Context, cfg *configs.Config, log *slog.Logger, stdout io.Writer) error {
	if cfg.Production() {
		return errors.New("refusing to load demo accounts with public passwords into a production environment")
	}
	file, err := bootstrap.Parse(strings.NewReader(string(configs.DemoBootstrap)))
	if err != nil {
		return err
	}
	res, err := applyBootstrap(ctx, cfg, log, file)
	if err != nil {
		return err
	}
	var built int
	if err := withMigratedDB(ctx, cfg, log, func(db *models.DB) error {
		built, err = demoDocuments(ctx, db, cfg, "dev-1", time.Now(), configs.DemoDocuments)
		return err
	}); err != nil {
		return fmt.Errorf("demo documents: %w", err)
	}
	keyDir := cfg.SignerKeys
	if keyDir == "" {
		keyDir = filepath.Join("data", "signer-keys")
	}
	for _, a := range file.Accounts {
		if err := (signer.DirKeys{Dir: keyDir}).WriteTestKey(a.Provider, a.Username, a.Organisation); err != nil {
			return fmt.Errorf("signing keys: %w", err)
		}
	}
	fmt.Fprintf(stdout, "demo data applied to %s (%s)\n%s\n", configs.RedactURL(cfg.Database.URL), cfg.Environment, res)
	fmt.Fprintf(stdout, "signing keys of the demo accounts: %s (self-signed test certificates, not qualified signatures; serve with WASTEFLOW_SIGNER_KEYS=%s)\n", keyDir, keyDir)
	if built > 0 {
		fmt.Fprintf(stdout, "demo documents: %d notifications, Annex VII documents and movements of provider dev-1 in several states, with deadlines open, due soon, overdue and lapsed\n\n", built)
	} else {
		fmt.Fprintf(stdout, "demo documents: provider dev-1 has documents already; none added\n\n")
	}
	printLogin(stdout, cfg, file)
	return nil
}

func printLogin(w io.Writer, cfg *configs.Config, f *bootstrap.File) {
	base := "http://" + cfg.Addr
	fmt.Fprintf(w, "Demo accounts (environment %s; only providers of this environment are served here):\n", cfg.Environment)
	fmt.Fprintf(w, "  %-8s %-12s %-24s %s\n", "provider", "username", "password", "organisation")
	for _, a := range f.Accounts {
		fmt.Fprintf(w, "  %-8s %-12s %-24s %s\n", a.Provider, a.Username, a.Password, a.Organisation)
	}
	fmt.Fprintln(w, "App tokens:")
	for _, a := range f.Applications {
		fmt.Fprintf(w, "  %-8s %-10s %s\n", a.Provider, a.Name, a.AppToken)
	}
	fmt.Fprintf(w, `
Try it (the README's five-minute tour goes on from here):
  curl -s %[1]s/svc.core.v1.api.DiscoveryApi/ListProvider
  RT=$(curl -s -X POST %[1]s/svc.core.v1.api.AuthApi/IssueRefreshToken -H 'provider_id: dev-1' \
    -d '{"usernameCredentials":{"username":"alice","password":"alice-demo-password"},"appToken":"demo-app-token-dev-1-0123456789abcdef"}' \
    | sed 's/.*"refreshToken":"\([^"]*\)".*/\1/')
  curl -s -X POST %[1]s/svc.core.v1.api.AuthApi/RequestAccess -H 'provider_id: dev-1' -H "Authorization: Bearer $RT"
Console:       %[1]s/ui (log in as any account above: noor's work queue holds a filed notification to acknowledge)
Deadline page: %[1]s/ui/deadlines (both pages need WASTEFLOW_UI_APP_TOKEN set to an app token above; make run does)
Guides:        %[1]s/docs (integrators, UI builders, operators, compliance staff, transport documents; the reference)
Metrics:       %[2]s (WASTEFLOW_METRICS_ADDR: no login, so not on the API's address)
`, base, metricsURL(cfg))
}

// metricsURL is where serve will serve the metrics ("off" when nowhere).
func metricsURL(cfg *configs.Config) string {
	if cfg.MetricsAddr == "" {
		return "off"
	}
	return "http://" + cfg.MetricsAddr + "/metrics"
}

// serve runs the HTTP server until ctx is cancelled (SIGINT/SIGTERM), then
// drains in-flight requests within the grace period and closes the database.
func serve(ctx context.Context, cfg *configs.Config, log *slog.Logger, withScheduler bool, ready func(string)) error {
	// What production needs first: a server that cannot start for want of
	// them leaves the database as it was.
	if err := productionNeeds(cfg); err != nil {
		return err
	}
	// The keys (in production they are never made).
	if _, err := tokens.LoadKeys(cfg.Auth.SigningKeyFile, cfg.Auth.VerifyKeyFiles, !cfg.Production()); err != nil {
		return fmt.Errorf("WASTEFLOW_JWT_SIGNING_KEY_FILE / WASTEFLOW_JWT_VERIFY_KEY_FILES: %w", err)
	}
	if _, err := keyring(cfg); err != nil {
		return err
	}
	db, err := models.Open(ctx, cfg.Database, log)
	if err != nil {
		return err
	}
	defer models.Close(db)
	applied, err := models.Migrate(ctx, db, log)
	if err != nil {
		return err
	}
	if len(applied) > 0 {
		log.Info("migrations applied", "versions", applied)
	}
	authSvc, keys, err := newAuth(ctx, cfg, db)
	if err != nil {
		return err
	}
	// On PostgreSQL one listening connection hears what other instances
	// (and this one) change: sessions for the session cache, new events
	// and signing processes' states for the waits (started below); River
	// listens on one of its own for new jobs. Off (a pooler in
	// transaction mode): no LISTEN; sessions are read, waits and the
	// queues poll, reads sequence the events.
	listening := cfg.Database.SessionCache && models.IsPostgres(db)
	feeds := map[string]models.Feed{}
	if listening {
		authSvc.Sessions = auth.NewSessionCache(sessionCacheSize)
		feeds[models.SessionChannel] = models.Sessions(authSvc.Sessions)
	} else if cfg.Database.SessionCache && !models.IsPostgres(db) {
		// SQLite: no NOTIFY; the changes' rows (migration 00037) are
		// read every 250 ms instead
		authSvc.Sessions = auth.NewSessionCache(sessionCacheSize)
		pollCtx, stopPoll := context.WithCancel(context.WithoutCancel(ctx))
		defer stopPoll() // after the shutdown: requests in flight keep their cache
		go models.PollSessionChanges(pollCtx, db, authSvc.Sessions, models.SessionPollEvery, log)
	}
	docs, err := newRunner(db, cfg, nil)
	if err != nil {
		return err
	}
	// Documents stored before the list entries existed get theirs.
	if n, err := docs.IndexEntries(ctx, false); err != nil {
		return fmt.Errorf("index the document lists: %w", err)
	} else if n > 0 {
		log.Info("document lists indexed", "documents", n)
	}
	// Children stored before summaries existed get theirs.
	if n, err := docs.SummariseChildren(ctx); err != nil {
		return fmt.Errorf("summarise the child documents: %w", err)
	} else if n > 0 {
		log.Info("child documents summarised", "documents", n)
	}
	transport, err := newBMU(cfg)
	if err != nil {
		return err
	}
	store := &tstore.Service{Store: models.NewTransportStore(db), Mapping: bmu.Ours{}}
	transport.Numbers = store.TakeNumber
	signing, err := newSigner(cfg, db, transport)
	if err != nil {
		return err
	}
	listenDSN := ""
	if listening {
		listenDSN = cfg.Database.DSN
	}
	regs, queue, err := newRegisters(db, cfg, listenDSN, docs, transport, log)
	if err != nil {
		return err
	}
	hooks := newWebhooks(db, cfg, authSvc.Keyring, queue, docs, log)
	evs := &events.Service{Store: models.NewEventStore(db)}
	var sequencer *models.Sequencer
	if listening {
		evs.Wake, signing.Wake = &wake.Hub{}, &wake.Hub{}
		sequencer = models.NewSequencer(db, log) // new events get their positions in their streams
		// new events' positions wake the waits and the webhook dispatcher
		feeds[models.EventChannel], feeds[models.SigningChannel], feeds[models.EventsAddedChannel] = models.Feeds{evs.Wake, hooks}, signing.Wake, sequencer
	}
	if len(feeds) > 0 {
		feedCtx, stopFeed := context.WithCancel(context.WithoutCancel(ctx))
		defer stopFeed() // after the shutdown: requests in flight keep their cache
		go models.Listen(feedCtx, cfg.Database.DSN, feeds, log)
		if sequencer != nil {
			go sequencer.Run(feedCtx)
		}
	}
	mails := newMail(db, cfg, authSvc.Keyring, queue, docs, log)
	health, err := connectDIWASS(db, cfg, queue, docs, log)
	if err != nil {
		return err
	}
	var diwassReport func() any
	if health != nil { // pinged on start and every minute, for /readyz
		healthCtx, stopHealth := context.WithCancel(context.WithoutCancel(ctx))
		defer stopHealth()
		go health.Run(healthCtx, time.Minute)
		diwassReport = func() any { return health.Report() }
	}
	// The job queue works register exports and webhook attempts on every
	// instance (River: one worker a job; a dead instance's jobs are
	// rescued by the others).
	if err := queue.Start(context.WithoutCancel(ctx)); err != nil {
		return fmt.Errorf("job queue: %w", err)
	}
	// Every instance fans new events out into webhook deliveries (each
	// endpoint under its row's lock).
	hookCtx, stopHooks := context.WithCancel(context.WithoutCancel(ctx))
	hooksDone := make(chan struct{})
	go func() { defer close(hooksDone); hooks.Run(hookCtx) }()
	defer func() { stopHooks(); <-hooksDone }()
	h, err := handlers.New(handlers.Deps{Config: cfg, DB: db, Log: log, Version: version, Auth: authSvc, JWKS: keys.JWKS(), Documents: docs, BMU: transport, Transport: store, Signer: signing,
		Reports: &reports.Service{Store: models.NewReportStore(db), Now: time.Now, Clocks: docs.Clocks}, Events: evs, Registers: regs, Webhooks: hooks, Mail: mails, DIWASS: diwassReport})
	if err != nil {
		return err
	}
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: cfg.ReadHeaderTimeout,
		ReadTimeout:       cfg.ReadTimeout,
		WriteTimeout:      cfg.WriteTimeout,
		IdleTimeout:       cfg.IdleTimeout,
		MaxHeaderBytes:    4 << 20, // the gateway refuses more than 1 MiB with the error shape
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
		Protocols:         rpc.HTTPProtocols(), // REST on HTTP/1.1 and HTTP/2, gRPC on HTTP/2 (h2c in cleartext)
	}
	srv.RegisterOnShutdown(h.StopStreams) // gRPC streams end; their clients resume elsewhere
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("WASTEFLOW_ADDR=%s: %w", cfg.Addr, err)
	}
	ln = netutil.LimitListener(ln, cfg.MaxConnections)
	metricsSrv, metricsAt, err := serveMetrics(cfg, h, log)
	if err != nil {
		_ = ln.Close()
		return err
	}
	scheme := "http"
	if cfg.TLSCertFile != "" {
		scheme = "https"
	}
	log.Info("wasteflow listening", "url", scheme+"://"+ln.Addr().String(), "environment", cfg.Environment,
		"database", models.Dialect(db), "version", version, "metrics", metricsAt)
	if ready != nil {
		ready(ln.Addr().String())
	}
	errc := make(chan error, 1)
	go func() {
		if cfg.TLSCertFile != "" {
			errc <- srv.ServeTLS(ln, cfg.TLSCertFile, cfg.TLSKeyFile)
			return
		}
		errc <- srv.Serve(h.Listen(ln)) // native gRPC connections go to the gRPC face's own server
	}()
	var sched *schedulers.Scheduler
	if withScheduler {
		sched = schedulers.New(log, nil)
		if err := sched.Add("deadline-sweep", cfg.SweepSchedule, sweepJob(docs, signing, log)); err != nil {
			return err
		}
		if err := sched.Add("register-export-retention", "@every 1h", func(ctx context.Context, now time.Time) error {
			n, err := regs.Expire(ctx, now, cfg.ExportRetention)
			if n > 0 {
				log.Info("register exports past their retention deleted", "exports", n)
			}
			return err
		}); err != nil {
			return err
		}
		if mails.Enabled() { // every instance scans; each mail is queued once (its outbox key)
			if err := sched.Add("mail-scan", cfg.Mail.Scan, func(ctx context.Context, _ time.Time) error {
				res, err := mails.Scan(ctx)
				if res.Queued > 0 {
					log.Info("reminder mails queued", "mails", res.Queued)
				}
				return err
			}); err != nil {
				return err
			}
		}
		sched.Start()
		log.Info("deadline sweep scheduled", "schedule", cfg.SweepSchedule)
	}
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "grace", cfg.ShutdownGrace)
	shutdownCtx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	grpcErr := make(chan error, 1)
	go func() { grpcErr <- h.Shutdown(shutdownCtx) }()
	shutdownErr := errors.Join(srv.Shutdown(shutdownCtx), <-grpcErr)
	if metricsSrv != nil {
		_ = metricsSrv.Close() // a scrape is nothing to wait for
	}
	if sched != nil {
		sched.Stop(shutdownCtx) // waits for a running sweep
	}
	if err := queue.Stop(shutdownCtx); err != nil { // a job cut off is worked again by the next instance
		log.Warn("job queue stop", "error", err)
	}
	if shutdownErr != nil {
		_ = srv.Close()
		return fmt.Errorf("in-flight requests did not finish within %s: %w", cfg.ShutdownGrace, shutdownErr)
	}
	log.Info("stopped")
	return nil
}

// productionNeeds refuses to serve in production without what
// production needs beside the keys: the public address, as links made
// from a request's Host header could put a token under any name.
func productionNeeds(cfg *configs.Config) error {
	if cfg.Production() && cfg.PublicURL == "" {
		return errors.New("WASTEFLOW_PUBLIC_URL is not set: in production the server needs the address people reach it at " +
			"(such as https://wasteflow.example.org) for the links it prints, mails and hands out; it never takes them from a request's Host header")
	}
	return nil
}

// serveMetrics serves GET /metrics on WASTEFLOW_METRICS_ADDR, apart from
// the API (it needs no login): its server, and the URL for the log ("off"
// when the setting is off).
func serveMetrics(cfg *configs.Config, h *handlers.Server, log *slog.Logger) (*http.Server, string, error) {
	if cfg.MetricsAddr == "" {
		return nil, "off", nil
	}
	ln, err := net.Listen("tcp", cfg.MetricsAddr)
	if err != nil {
		return nil, "", fmt.Errorf("WASTEFLOW_METRICS_ADDR=%s: %w (each instance on one machine needs its own port; 127.0.0.1:0 picks a free one, off serves no metrics)", cfg.MetricsAddr, err)
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h.Metrics())
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: cfg.ReadHeaderTimeout, ReadTimeout: cfg.ReadTimeout, WriteTimeout: cfg.WriteTimeout,
		IdleTimeout: cfg.IdleTimeout, ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server stopped", "error", err)
		}
	}()
	return srv, "http://" + ln.Addr().String() + "/metrics", nil
}

// newRegisters makes the register exports' service and the job queue
// that works them (listening on listenDSN when set: models.JobConfig).
func newRegisters(db *models.DB, cfg *configs.Config, listenDSN string, docs *documents.Runner, notes *bmu.Service, log *slog.Logger) (*registers.Service, *models.JobQueue, error) {
	queue, err := models.NewJobQueue(db, models.JobConfig{Workers: cfg.Jobs.Workers, Poll: cfg.Jobs.Poll, JobTimeout: cfg.Jobs.Timeout, RescueAfter: cfg.Jobs.RescueAfter,
		Queues: map[string]int{webhooks.Queue: cfg.Webhooks.Workers, mail.Queue: 2}, ListenDSN: listenDSN}, log)
	if err != nil {
		return nil, nil, err
	}
	// a slice of an export well within one run's time limit
	regs := &registers.Service{Store: models.NewExportStore(db), Docs: docs, BMU: notes, Jobs: queue, Slice: min(3*time.Second, cfg.Jobs.Timeout/3),
		PageSize: cfg.ExportPageSize}
	regs.Register(queue)
	return regs, queue, nil
}

// connectDIWASS sends announced Annex VII documents to DIWASS through the
// job queue when an endpoint is configured (docs/diwass.md).
func connectDIWASS(db *models.DB, cfg *configs.Config, queue *models.JobQueue, docs *documents.Runner, log *slog.Logger) (*diwass.Health, error) {
	client, err := diwass.FromConfig(cfg.DIWASS)
	if err != nil || client == nil {
		return nil, err
	}
	store := models.NewDIWASSStore(db)
	svc := &diwass.Service{Store: store, Jobs: queue, Client: client, Acts: docs, Log: log,
		Registrar: &diwass.Registrar{Client: client, Store: store, Authority: cfg.DIWASS.ResponsibleAuthority}}
	svc.Register(queue) // a job queued before works even when the Annex VII URL was unset since
	docs.AfterAct = append(docs.AfterAct, svc.OnAct)
	if cfg.DIWASS.Annex7URL != "" { // announcements are sent: their exchange starts PENDING
		docs.Server = map[string]int{shipment.SettingDIWASS: 1}
	}
	log.Info("DIWASS connected", "annex7", cfg.DIWASS.Annex7URL != "", "operators", cfg.DIWASS.OperatorsURL != "")
	return diwass.NewHealth(client), nil
}

// newWebhooks makes the webhooks' service and registers its attempts'
// worker with queue.
func newWebhooks(db *models.DB, cfg *configs.Config, ring *credentials.Keyring, queue *models.JobQueue, docs *documents.Runner, log *slog.Logger) *webhooks.Service {
	w := &webhooks.Service{Store: models.NewWebhookStore(db), Groups: models.NewEventStore(db), Jobs: queue, Keyring: ring,
		Guard: &webhooks.Guard{Sandbox: clock.Sandbox(cfg.Environment)}, Kinds: auth.EventKinds, Log: log, Clocks: docs.Clocks,
		Config: webhooks.Config{Retries: cfg.Webhooks.Retries, DisableAfter: cfg.Webhooks.DisableAfter, Timeout: cfg.Webhooks.Timeout, Poll: cfg.Webhooks.Poll}}
	w.Init()
	w.Register(queue)
	return w
}

// newMail makes the reminder mails' service and registers its send
// worker with queue.
func newMail(db *models.DB, cfg *configs.Config, ring *credentials.Keyring, queue *models.JobQueue, docs *documents.Runner, log *slog.Logger) *mail.Service {
	base := strings.TrimRight(cfg.PublicURL, "/")
	if base == "" {
		base = "http://" + cfg.Addr
		if cfg.TLSCertFile != "" {
			base = "https://" + cfg.Addr
		}
	}
	m := &mail.Service{Store: models.NewMailStore(db), Jobs: queue, Keyring: ring, Clocks: docs.Clocks, BaseURL: base, Log: log,
		SMTP: mail.SMTP{Host: cfg.Mail.SMTPHost, Port: cfg.Mail.SMTPPort, Security: cfg.Mail.SMTPSecurity, Username: cfg.Mail.SMTPUser,
			Password: cfg.Mail.SMTPPassword, From: cfg.Mail.From, Timeout: 30 * time.Second}}
	m.Register(queue)
	return m
}

// sessionCacheSize bounds the session cache (beyond it, it starts over):
// about 100 bytes a session.
const sessionCacheSize = 100_000

// sweepJob is the scheduled deadline sweep.
func sweepJob(docs *documents.Runner, signing *signer.Service, log *slog.Logger) schedulers.Job {
	return func(ctx context.Context, now time.Time) error {
		start := time.Now()
		res, err := docs.Sweep(ctx, now)
		if err != nil {
			return err
		}
		if res.DueSoon+res.Overdue+res.Lapsed+res.Transitions > 0 {
			log.Info("deadline sweep", "result", res.String(), "duration_ms", time.Since(start).Milliseconds())
		}
		if signing != nil { // one statement: any instance may run it, each process ends once
			n, err := signing.ExpireDue(ctx)
			if err != nil {
				return err
			}
			if n > 0 {
				log.Info("signing processes expired", "processes", n)
			}
		}
		return nil
	}
}
