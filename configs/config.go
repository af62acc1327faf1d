// Package configs reads wasteflow's configuration once, from WASTEFLOW_*
// environment variables and an optional file, into one typed struct.
package configs

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/mail"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
	"gopkg.in/yaml.v3"

	"github.com/wasteflow/wasteflow/rules/bmu"
)

var (
	diwassClientID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)
	activityCode   = regexp.MustCompile(`^[A-Z]{2}[A-Z0-9]{1,10}$`)
)

// diwassURL sets a DIWASS endpoint: empty, or an http(s) URL.
func diwassURL(field func(*DIWASS) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return errors.New("want an http or https URL")
			}
		}
		*field(&c.DIWASS) = v
		return nil
	}
}

// hostName is a DNS name or an IP address.
var hostName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9.:-]*[A-Za-z0-9])?$`)

// Environments a server (and a provider) can belong to.
var Environments = []string{"production", "staging", "test", "development"}

// Config is the whole configuration of one process.
type Config struct {
	Addr string
	// MetricsAddr is where /metrics is served, apart from the API ("":
	// nowhere).
	MetricsAddr string
	Environment string
	Database    Database

	LogFormat string // text or json
	LogLevel  slog.Level

	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	// RequestTimeout bounds the work of one request (not a stream's): a
	// database that does not answer makes it a 503, not a hang.
	RequestTimeout time.Duration
	IdleTimeout    time.Duration
	ShutdownGrace  time.Duration
	BodyLimit      int64
	TrustedProxies []string

	// SecretKeyFile holds the server key for HMACs of app tokens and client
	// secrets. Outside production it is created on first use.
	SecretKeyFile string

	Auth Auth

	SweepSchedule   string // cron spec of the deadline sweep
	WarnWorkingDays int    // DUE_SOON window
	SweepWorkers    int    // deadlines a sweep processes at once
	UIAppToken      string // app token the /ui pages log in with (public by nature)

	// BMU transport documents: the check-digit method and the certificates
	// whose XML signatures count as valid.
	BMUCheckDigit   string
	BMUTrustedCerts []string

	// SignerKeys is the directory of signing keys (<provider>/<username>.pem);
	// PublicURL the server's address as people reach it (signing links).
	SignerKeys string
	PublicURL  string

	// WatchInterval is how often a gRPC WatchDocument stream reads its
	// document.
	WatchInterval time.Duration

	// TLSCertFile and TLSKeyFile, both or neither: the server speaks TLS
	// (HTTP/1.1 and HTTP/2, REST and gRPC) instead of cleartext.
	TLSCertFile, TLSKeyFile string

	// Bounded resources: the body of an unauthenticated call, how many
	// large bodies are read at once, how many connections are open.
	UnauthenticatedBodyLimit int64
	LargeBodySlots           int
	MaxConnections           int
	// IdempotencyRetention is how long an Idempotency-Key's answer is kept.
	IdempotencyRetention time.Duration

	Inspection Inspection
	Jobs       Jobs
	// ExportRetention is how long a register export is kept;
	// ExportPageSize how many documents one step of it reads.
	ExportRetention time.Duration
	ExportPageSize  int

	Webhooks Webhooks
	Mail     Mail
	DIWASS   DIWASS
}

// DIWASS configures the exchange with the EU hub (docs/diwass.md). With
// no URL set nothing is exchanged: documents are NOT_CONNECTED.
type DIWASS struct {
	// Annex7URL, OperatorsURL and PingURL are the endpoints of the WSDL
	// services WasteAnnex7V1, OperatorDirectoryServiceV2 and WasteV1.
	Annex7URL, OperatorsURL, PingURL string
	// ClientID is the WebServiceClientId header.
	ClientID string
	// ResponsibleAuthority is the activity code new operators are
	// registered under (e.g. DE002).
	ResponsibleAuthority string
	// ClientCertFile and ClientKeyFile, both or neither: the TLS client
	// certificate presented to DIWASS.
	ClientCertFile, ClientKeyFile string
	Timeout                       time.Duration
}

// Connected reports whether any DIWASS endpoint is configured.
func (d DIWASS) Connected() bool { return d.Annex7URL != "" || d.OperatorsURL != "" || d.PingURL != "" }

// Mail configures the reminder mails and the mail server they leave by.
type Mail struct {
	SMTPHost     string // "": no mail is sent
	SMTPPort     int
	SMTPSecurity string // starttls, tls or none
	SMTPUser     string
	SMTPPassword string // or from SMTPPasswordFile
	From         string
	// Scan is the cron spec of the scan that queues the mails due.
	Scan string
}

// Webhooks configures the delivery of events to webhook endpoints.
type Webhooks struct {
	// Retries are the waits before each retry of a failed delivery.
	Retries []time.Duration
	// DisableAfter: an endpoint failing every attempt this long is disabled.
	DisableAfter time.Duration
	// Timeout bounds one attempt; Poll is how often new events are fanned
	// out; Workers how many attempts one instance makes at once.
	Timeout, Poll time.Duration
	Workers       int
}

// Jobs configures the durable job queue (register exports).
type Jobs struct {
	Workers                    int
	Poll, Timeout, RescueAfter time.Duration
}

// Inspection configures the links of printed documents (GET /inspect/...).
type Inspection struct {
	// Grace is how long a movement's or Annex VII document's link stays
	// valid after its shipment period ends; TTL how long any other link
	// (a notification's) lives, and the least any link lives from its
	// print.
	Grace, TTL time.Duration
	// PerMinute is how many reads one client address may make in a
	// minute, per instance.
	PerMinute int
}

// Auth configures tokens, password hashing and login throttling.
type Auth struct {
	Issuer           string
	SigningKeyFile   string
	VerifyKeyFiles   []string
	AccessTokenTTL   time.Duration
	RefreshTokenTTL  time.Duration
	GroupTokenTTL    time.Duration
	HashConcurrency  int
	MaxFailures      int
	MaxFailuresPerIP int
	FailureWindow    time.Duration
}

// Database selects and tunes the storage.
type Database struct {
	URL             string // as configured, may hold a password: never log it
	Driver          string // "postgres" or "sqlite"
	DSN             string // what the driver receives
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	ConnMaxIdleTime time.Duration
	// SessionCache keeps the sessions of access tokens, invalidated by
	// PostgreSQL's LISTEN/NOTIFY, and lets that LISTEN connection wake the
	// waits and sequence events (never on SQLite; off: no LISTEN at all).
	SessionCache bool
}

// Production reports whether the server runs in the production environment.
func (c *Config) Production() bool { return c.Environment == "production" }

// Setting is one configuration variable: its name, default and meaning. The
// table is the single source for loading, validation and the README.
type Setting struct {
	Name    string
	Default string
	Help    string
	set     func(*Config, string) error
}

// Settings lists every variable in documentation order.
var Settings = []Setting{
	{"WASTEFLOW_ADDR", "127.0.0.1:8080", "listen address (host:port; port 0 picks a free port)", func(c *Config, v string) error {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("want host:port: %v", err)
		}
		c.Addr = v
		return nil
	}},
	{"WASTEFLOW_METRICS_ADDR", "127.0.0.1:8081", "listen address of the Prometheus metrics (GET /metrics, no login), apart from WASTEFLOW_ADDR (which answers /metrics with 404): host:port, loopback by default (give each instance on one machine its own port; port 0 picks a free one, logged), or off", func(c *Config, v string) error {
		if v == "off" {
			c.MetricsAddr = ""
			return nil
		}
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("want host:port or off: %v", err)
		}
		c.MetricsAddr = v
		return nil
	}},
	{"WASTEFLOW_DATABASE_URL", "sqlite://./data/wasteflow.db", "`postgres://user@host:port/db?...` for PostgreSQL; `sqlite://PATH` (or empty) for the embedded SQLite file", func(c *Config, v string) error {
		return c.Database.parseURL(v)
	}},
	{"WASTEFLOW_ENVIRONMENT", "development", "production, staging, test or development; only providers of this environment are served", func(c *Config, v string) error {
		for _, e := range Environments {
			if v == e {
				c.Environment = v
				return nil
			}
		}
		return fmt.Errorf("want one of %s", strings.Join(Environments, ", "))
	}},
	{"WASTEFLOW_LOG_FORMAT", "", "text or json (default: json in production and staging, text otherwise)", func(c *Config, v string) error {
		switch v {
		case "", "text", "json":
			c.LogFormat = v
			return nil
		}
		return errors.New("want text or json")
	}},
	{"WASTEFLOW_LOG_LEVEL", "info", "debug, info, warn or error", func(c *Config, v string) error {
		return c.LogLevel.UnmarshalText([]byte(v))
	}},
	{"WASTEFLOW_READ_HEADER_TIMEOUT", "10s", "time to read request headers (slowloris guard)", durationSetter(func(c *Config) *time.Duration { return &c.ReadHeaderTimeout })},
	{"WASTEFLOW_READ_TIMEOUT", "60s", "time to read a whole request, body included (a gRPC call's request message too; then 408, DEADLINE_EXCEEDED)", durationSetter(func(c *Config) *time.Duration { return &c.ReadTimeout })},
	{"WASTEFLOW_WRITE_TIMEOUT", "60s", "time to write a response", durationSetter(func(c *Config) *time.Duration { return &c.WriteTimeout })},
	{"WASTEFLOW_REQUEST_TIMEOUT", "50s", "time a request (not a stream) may take, long polls' waits included; a database that does not answer within it makes the answer a 503 with Retry-After instead of a hang (keep it below WASTEFLOW_WRITE_TIMEOUT)", durationSetter(func(c *Config) *time.Duration { return &c.RequestTimeout })},
	{"WASTEFLOW_IDLE_TIMEOUT", "120s", "keep-alive idle time", durationSetter(func(c *Config) *time.Duration { return &c.IdleTimeout })},
	{"WASTEFLOW_SHUTDOWN_GRACE", "20s", "on SIGTERM/SIGINT, how long in-flight requests may finish", durationSetter(func(c *Config) *time.Duration { return &c.ShutdownGrace })},
	{"WASTEFLOW_BODY_LIMIT", "29360128", "largest request body in bytes (28 MiB, the gateway's); larger gets 413", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return errors.New("want a positive number of bytes")
		}
		c.BodyLimit = n
		return nil
	}},
	{"WASTEFLOW_UNAUTHENTICATED_BODY_LIMIT", "65536", "largest body of a call without a token (login, password change, provider directory); larger gets 413", func(c *Config, v string) error {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return errors.New("want a positive number of bytes")
		}
		c.UnauthenticatedBodyLimit = n
		return nil
	}},
	{"WASTEFLOW_LARGE_BODY_SLOTS", "4", "how many bodies over 1 MiB are read at once; the next waits up to 2 s for a slot, then gets 503 with Retry-After", intSetter(func(c *Config) *int { return &c.LargeBodySlots })},
	{"WASTEFLOW_MAX_CONNECTIONS", "1024", "open connections the server accepts at once; more wait in the listen queue", intSetter(func(c *Config) *int { return &c.MaxConnections })},
	{"WASTEFLOW_WATCH_INTERVAL", "1s", "how often a gRPC WatchDocument stream reads its document to send its changes", durationSetter(func(c *Config) *time.Duration { return &c.WatchInterval })},
	{"WASTEFLOW_IDEMPOTENCY_RETENTION", "24h", "how long the answer of a mutation sent with an Idempotency-Key is kept for its retries", durationSetter(func(c *Config) *time.Duration { return &c.IdempotencyRetention })},
	{"WASTEFLOW_TRUSTED_PROXIES", "", "comma-separated proxy addresses or CIDRs whose X-Forwarded-For is believed (default: none)", func(c *Config, v string) error {
		c.TrustedProxies = nil
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p == "" {
				continue
			}
			if net.ParseIP(p) == nil {
				if _, _, err := net.ParseCIDR(p); err != nil {
					return fmt.Errorf("%q is neither an IP address nor a CIDR", p)
				}
			}
			c.TrustedProxies = append(c.TrustedProxies, p)
		}
		return nil
	}},
	{"WASTEFLOW_DB_MAX_OPEN_CONNS", "20", "database pool: open connections (at least 2); on PostgreSQL three quarters of them run transactions at once, in line", intSetter(func(c *Config) *int { return &c.Database.MaxOpenConns })},
	{"WASTEFLOW_DB_MAX_IDLE_CONNS", "open", "database pool: idle connections kept; open: as many as WASTEFLOW_DB_MAX_OPEN_CONNS (fewer, and a busy server closes and reopens connections all the time, a PostgreSQL backend started for each)", func(c *Config, v string) error {
		if v == "open" {
			c.Database.MaxIdleConns = 0 // set from the open connections below
			return nil
		}
		return intSetter(func(c *Config) *int { return &c.Database.MaxIdleConns })(c, v)
	}},
	{"WASTEFLOW_DB_CONN_MAX_LIFETIME", "30m", "database pool: recycle connections after", durationSetter(func(c *Config) *time.Duration { return &c.Database.ConnMaxLifetime })},
	{"WASTEFLOW_DB_CONN_MAX_IDLE_TIME", "5m", "database pool: close a connection unused for longer (a quiet server gives its connections back)", durationSetter(func(c *Config) *time.Duration { return &c.Database.ConnMaxIdleTime })},
	{"WASTEFLOW_SESSION_CACHE", "on", "on PostgreSQL, one LISTEN connection per instance hears what every instance changes: sessions of access tokens kept in memory, long polls and waits woken, new events given their positions and fanned out to webhooks; a second one (River's) wakes the job queue (off: no LISTEN; a session's or group's row read on every request, waits poll every 250 ms, events positioned by the reads, the job queue and the webhook dispatcher poll every WASTEFLOW_JOB_POLL and WASTEFLOW_WEBHOOK_POLL; needed behind a pooler in transaction mode, where LISTEN does not hold); on SQLite, the session cache kept from a table of changes read every 250 ms (off: a session's or group's row read on every request)", func(c *Config, v string) error {
		switch v {
		case "on":
			c.Database.SessionCache = true
		case "off":
			c.Database.SessionCache = false
		default:
			return errors.New("on or off")
		}
		return nil
	}},
	{"WASTEFLOW_SECRET_KEY_FILE", "./data/secret.key", "file with the server key (32+ random bytes) for HMACs of app tokens and client secrets; created when missing except in production", func(c *Config, v string) error {
		if strings.TrimSpace(v) == "" {
			return errors.New("must not be empty")
		}
		c.SecretKeyFile = v
		return nil
	}},
	{"WASTEFLOW_JWT_ISSUER", "wasteflow", "iss of every token; audiences are <issuer>/api, <issuer>/refresh and <issuer>/notifier", func(c *Config, v string) error {
		if v == "" {
			return errors.New("must not be empty")
		}
		c.Auth.Issuer = v
		return nil
	}},
	{"WASTEFLOW_JWT_SIGNING_KEY_FILE", "./data/jwt-signing-key.pem", "PKCS#8 PEM Ed25519 private key that signs tokens; created when missing except in production", func(c *Config, v string) error {
		if v == "" {
			return errors.New("must not be empty")
		}
		c.Auth.SigningKeyFile = v
		return nil
	}},
	{"WASTEFLOW_JWT_VERIFY_KEY_FILES", "", "comma-separated PEM files of further Ed25519 keys that still verify (the previous signing key during a rotation)", func(c *Config, v string) error {
		c.Auth.VerifyKeyFiles = nil
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				c.Auth.VerifyKeyFiles = append(c.Auth.VerifyKeyFiles, f)
			}
		}
		return nil
	}},
	{"WASTEFLOW_ACCESS_TOKEN_TTL", "5m", "access token lifetime", durationSetter(func(c *Config) *time.Duration { return &c.Auth.AccessTokenTTL })},
	{"WASTEFLOW_REFRESH_TOKEN_TTL", "720h", "refresh token lifetime (30 days); each rotation starts a new one", durationSetter(func(c *Config) *time.Duration { return &c.Auth.RefreshTokenTTL })},
	{"WASTEFLOW_GROUP_TOKEN_TTL", "15m", "notifier group token lifetime", durationSetter(func(c *Config) *time.Duration { return &c.Auth.GroupTokenTTL })},
	{"WASTEFLOW_PASSWORD_HASH_CONCURRENCY", "cpus", "argon2id hashes computed at once (19 MiB each); logins beyond wait, then get 503; cpus: as many as the machine has CPUs (more only make each hash slower)", func(c *Config, v string) error {
		if v == "cpus" {
			c.Auth.HashConcurrency = runtime.NumCPU()
			return nil
		}
		return intSetter(func(c *Config) *int { return &c.Auth.HashConcurrency })(c, v)
	}},
	{"WASTEFLOW_LOGIN_MAX_FAILURES", "10", "failed credential attempts per account, client id or group within the window before 429", intSetter(func(c *Config) *int { return &c.Auth.MaxFailures })},
	{"WASTEFLOW_LOGIN_MAX_FAILURES_PER_IP", "100", "failed credential attempts per client address within the window before 429", intSetter(func(c *Config) *int { return &c.Auth.MaxFailuresPerIP })},
	{"WASTEFLOW_SWEEP_SCHEDULE", "@every 1m", "when the deadline sweep runs (cron syntax in UTC, or @every DURATION)", func(c *Config, v string) error {
		if _, err := cron.ParseStandard(v); err != nil {
			return err
		}
		c.SweepSchedule = v
		return nil
	}},
	{"WASTEFLOW_SWEEP_WORKERS", "4", "how many documents a sweep processes at once, each document's due deadlines in one transaction", intSetter(func(c *Config) *int { return &c.SweepWorkers })},
	{"WASTEFLOW_DUE_SOON_WORKING_DAYS", "2", "a deadline is DUE_SOON this many working days (of the acting party) before it falls due", intSetter(func(c *Config) *int { return &c.WarnWorkingDays })},
	{"WASTEFLOW_UI_APP_TOKEN", "", "app token the pages for people (the console at /ui, the deadline page at /ui/deadlines, the signing page) log in with (a browser app's token is public; give it only the scopes the page needs)", func(c *Config, v string) error {
		c.UIAppToken = v
		return nil
	}},
	{"WASTEFLOW_BMU_CHECK_DIGIT", "mod11-weighted", "check-digit method of transport-document numbers; mod11-weighted is our unverified assumption, not the BMU's documented method", func(c *Config, v string) error {
		if _, err := bmu.CheckDigitMethod(v); err != nil {
			return err
		}
		c.BMUCheckDigit = v
		return nil
	}},
	{"WASTEFLOW_BMU_TRUSTED_CERTS", "", "comma-separated PEM files of certificates whose XML signatures on transport documents count (a signer's certificate, or a CA that issues them)", func(c *Config, v string) error {
		c.BMUTrustedCerts = nil
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				if _, err := os.Stat(f); err != nil {
					return err
				}
				c.BMUTrustedCerts = append(c.BMUTrustedCerts, f)
			}
		}
		return nil
	}},
	{"WASTEFLOW_SIGNER_KEYS", "", "directory of signing keys: <provider>/<username>.pem holds a person's PKCS#8 PRIVATE KEY and CERTIFICATE (or <username>.p12 with its password in <username>.p12.password); their certificates count as trusted for transport-document signatures (`wasteflow demo` makes self-signed test keys in ./data/signer-keys: not qualified signatures)", func(c *Config, v string) error {
		if v != "" {
			if st, err := os.Stat(v); err != nil || !st.IsDir() {
				return fmt.Errorf("%q is not a directory", v)
			}
		}
		c.SignerKeys = v
		return nil
	}},
	{"WASTEFLOW_TLS_CERT_FILE", "", "PEM certificate chain: with WASTEFLOW_TLS_KEY_FILE the server speaks TLS (REST over HTTP/1.1 and HTTP/2, gRPC over HTTP/2); cleartext (HTTP/1.1 and h2c for gRPC) when both are empty", func(c *Config, v string) error {
		if v != "" {
			if _, err := os.Stat(v); err != nil {
				return err
			}
		}
		c.TLSCertFile = v
		return nil
	}},
	{"WASTEFLOW_TLS_KEY_FILE", "", "PEM private key of WASTEFLOW_TLS_CERT_FILE", func(c *Config, v string) error {
		if v != "" {
			if _, err := os.Stat(v); err != nil {
				return err
			}
		}
		c.TLSKeyFile = v
		return nil
	}},
	{"WASTEFLOW_PUBLIC_URL", "", "the server's address as people reach it (https://wasteflow.example.org), for the links of signing processes (relative when empty), of printed documents' inspection links and of reminder mails (console, confirm, unsubscribe); required in production (serve refuses to start without it). Outside production, when empty, an inspection link takes the address the print request came to if it is this machine's as a developer reaches it (localhost, a loopback or private IP address, WASTEFLOW_ADDR's host; never another name from a Host header), else WASTEFLOW_ADDR, and mails take http(s):// and WASTEFLOW_ADDR, so set it wherever the server is reached by a name or mails are sent", func(c *Config, v string) error {
		if v != "" {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				return errors.New("want an http or https URL")
			}
		}
		c.PublicURL = strings.TrimSuffix(v, "/")
		return nil
	}},
	{"WASTEFLOW_DIWASS_ANNEX7_URL", "", "the endpoint of DIWASS's Annex VII service (WSDL service WasteAnnex7V1), as the Commission gives it to registered parties; empty: nothing is exchanged (docs/diwass.md)", diwassURL(func(d *DIWASS) *string { return &d.Annex7URL })},
	{"WASTEFLOW_DIWASS_OPERATORS_URL", "", "the endpoint of DIWASS's operator directory (OperatorDirectoryServiceV2)", diwassURL(func(d *DIWASS) *string { return &d.OperatorsURL })},
	{"WASTEFLOW_DIWASS_PING_URL", "", "the endpoint of DIWASS's ping (WasteV1, IamAliveRequest)", diwassURL(func(d *DIWASS) *string { return &d.PingURL })},
	{"WASTEFLOW_DIWASS_CLIENT_ID", "wasteflow", "the WebServiceClientId header DIWASS knows this system by (letters, digits, - _ and ., at most 64)", func(c *Config, v string) error {
		if !diwassClientID.MatchString(v) {
			return errors.New("want letters, digits, - _ and ., 1 to 64 of them")
		}
		c.DIWASS.ClientID = v
		return nil
	}},
	{"WASTEFLOW_DIWASS_RESPONSIBLE_AUTHORITY", "", "the responsible authority's activity code new DIWASS operators are registered under: its country and a code, e.g. DE002", func(c *Config, v string) error {
		if v != "" && !activityCode.MatchString(v) {
			return errors.New("want a country code and a code, such as DE002")
		}
		c.DIWASS.ResponsibleAuthority = v
		return nil
	}},
	{"WASTEFLOW_DIWASS_CLIENT_CERT_FILE", "", "PEM certificate this system presents to DIWASS over TLS (with WASTEFLOW_DIWASS_CLIENT_KEY_FILE); the WS-Security details of the production service are not public", func(c *Config, v string) error {
		if v != "" {
			if _, err := os.Stat(v); err != nil {
				return err
			}
		}
		c.DIWASS.ClientCertFile = v
		return nil
	}},
	{"WASTEFLOW_DIWASS_CLIENT_KEY_FILE", "", "PEM private key of WASTEFLOW_DIWASS_CLIENT_CERT_FILE", func(c *Config, v string) error {
		if v != "" {
			if _, err := os.Stat(v); err != nil {
				return err
			}
		}
		c.DIWASS.ClientKeyFile = v
		return nil
	}},
	{"WASTEFLOW_DIWASS_TIMEOUT", "30s", "the longest one call to DIWASS may take; a call cut off after its request was written is UNCERTAIN, never sent again by itself", durationSetter(func(c *Config) *time.Duration { return &c.DIWASS.Timeout })},
	{"WASTEFLOW_INSPECTION_GRACE", "720h", "how long the inspection link of a movement or Annex VII document stays valid after its shipment period ends (30 days)", durationSetter(func(c *Config) *time.Duration { return &c.Inspection.Grace })},
	{"WASTEFLOW_INSPECTION_TTL", "168h", "how long a notification's inspection link lives, and the least any inspection link lives from its print (7 days)", durationSetter(func(c *Config) *time.Duration { return &c.Inspection.TTL })},
	{"WASTEFLOW_INSPECTION_PER_MINUTE", "30", "reads of inspection links one client address may make per minute on one instance (more: 429 with Retry-After)", intSetter(func(c *Config) *int { return &c.Inspection.PerMinute })},
	{"WASTEFLOW_EXPORT_RETENTION", "168h", "how long a register export (its file) is kept after it was requested; then it is deleted", durationSetter(func(c *Config) *time.Duration { return &c.ExportRetention })},
	{"WASTEFLOW_EXPORT_PAGE_SIZE", "500", "documents a register export reads and writes in one transaction (one chunk of rows)", intSetter(func(c *Config) *int { return &c.ExportPageSize })},
	{"WASTEFLOW_JOB_WORKERS", "2", "jobs of the durable job queue (register exports) this instance works at once", intSetter(func(c *Config) *int { return &c.Jobs.Workers })},
	{"WASTEFLOW_JOB_POLL", "1s", "how often an idle instance looks for queued jobs when it does not listen (SQLite, or WASTEFLOW_SESSION_CACHE=off); listening on PostgreSQL, a new job wakes the queue at once and it looks on its own every 10 s (or this, if longer)", durationSetter(func(c *Config) *time.Duration { return &c.Jobs.Poll })},
	{"WASTEFLOW_JOB_TIMEOUT", "5m", "the longest one run of a job may take (a register export runs in slices of seconds; assembling an XLSX is one run)", durationSetter(func(c *Config) *time.Duration { return &c.Jobs.Timeout })},
	{"WASTEFLOW_JOB_RESCUE_AFTER", "6m", "a job still marked running this long after it started (its instance died) is worked again; more than WASTEFLOW_JOB_TIMEOUT", durationSetter(func(c *Config) *time.Duration { return &c.Jobs.RescueAfter })},
	{"WASTEFLOW_WEBHOOK_RETRIES", "5s,5m,30m,2h,5h,10h,10h,10h,10h,10h,10h", "the waits before each retry of a failed webhook delivery (each varied by up to a tenth); after the last the delivery is FAILED", func(c *Config, v string) error {
		c.Webhooks.Retries = nil
		for _, f := range strings.Split(v, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d <= 0 {
				return errors.New("want positive durations separated by commas, such as 5s,5m,30m")
			}
			c.Webhooks.Retries = append(c.Webhooks.Retries, d)
		}
		return nil
	}},
	{"WASTEFLOW_WEBHOOK_DISABLE_AFTER", "72h", "a webhook endpoint whose every attempt failed for this long is disabled (its organisation gets WEBHOOK_ENDPOINT_DISABLED)", durationSetter(func(c *Config) *time.Duration { return &c.Webhooks.DisableAfter })},
	{"WASTEFLOW_WEBHOOK_TIMEOUT", "10s", "how long a webhook receiver has to answer 2xx", durationSetter(func(c *Config) *time.Duration { return &c.Webhooks.Timeout })},
	{"WASTEFLOW_WEBHOOK_POLL", "1s", "how often an instance turns new events into webhook deliveries when it does not listen (SQLite, or WASTEFLOW_SESSION_CACHE=off); listening on PostgreSQL, new events wake it at once and it looks on its own every 30 s (or this, if longer)", durationSetter(func(c *Config) *time.Duration { return &c.Webhooks.Poll })},
	{"WASTEFLOW_WEBHOOK_WORKERS", "8", "webhook attempts this instance makes at once (their own queue: a slow receiver does not hold up register exports)", intSetter(func(c *Config) *int { return &c.Webhooks.Workers })},
	{"WASTEFLOW_SMTP_HOST", "", "the mail server reminder mails leave by; empty: this server sends no mail (and SetMailPreferences refuses an address)", func(c *Config, v string) error {
		if v != "" && !hostName.MatchString(v) {
			return errors.New("want a host name or IP address")
		}
		c.Mail.SMTPHost = v
		return nil
	}},
	{"WASTEFLOW_SMTP_PORT", "587", "its port (587 for STARTTLS, 465 for TLS)", func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 65535 {
			return errors.New("want a port number")
		}
		c.Mail.SMTPPort = n
		return nil
	}},
	{"WASTEFLOW_SMTP_SECURITY", "starttls", "starttls (required: a server without it is refused), tls (implicit TLS) or none (only for a relay on the same machine)", func(c *Config, v string) error {
		switch v {
		case "starttls", "tls", "none":
			c.Mail.SMTPSecurity = v
			return nil
		}
		return errors.New("want starttls, tls or none")
	}},
	{"WASTEFLOW_SMTP_USER", "", "the login at the mail server (empty: none)", func(c *Config, v string) error { c.Mail.SMTPUser = v; return nil }},
	{"WASTEFLOW_SMTP_PASSWORD", "", "its password (prefer WASTEFLOW_SMTP_PASSWORD_FILE)", func(c *Config, v string) error { c.Mail.SMTPPassword = v; return nil }},
	{"WASTEFLOW_SMTP_PASSWORD_FILE", "", "a file holding the password (its trailing newline dropped); wins over WASTEFLOW_SMTP_PASSWORD", func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		raw, err := os.ReadFile(v)
		if err != nil {
			return err
		}
		c.Mail.SMTPPassword = strings.TrimRight(string(raw), "\r\n")
		return nil
	}},
	{"WASTEFLOW_MAIL_FROM", "wasteflow <noreply@localhost>", "the From of reminder mails", func(c *Config, v string) error {
		if _, err := mail.ParseAddress(v); err != nil {
			return errors.New("want a mail address, optionally with a name: Name <address>")
		}
		c.Mail.From = v
		return nil
	}},
	{"WASTEFLOW_MAIL_SCAN", "@every 1m", "cron spec of the scan that queues the reminder mails due (every instance that runs the scheduler runs it, not one started with -no-scheduler; each mail is queued once)", func(c *Config, v string) error {
		if _, err := cron.ParseStandard(v); err != nil {
			return err
		}
		c.Mail.Scan = v
		return nil
	}},
	{"WASTEFLOW_LOGIN_FAILURE_WINDOW", "15m", "the throttling window; counters reset when it ends (no permanent lockout)", durationSetter(func(c *Config) *time.Duration { return &c.Auth.FailureWindow })},
}

func durationSetter(field func(*Config) *time.Duration) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return errors.New("want a positive duration such as 30s or 2m")
		}
		*field(c) = d
		return nil
	}
}

func intSetter(field func(*Config) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return errors.New("want a positive whole number")
		}
		*field(c) = n
		return nil
	}
}

// FileVariable names the variable that points at an optional config file.
const FileVariable = "WASTEFLOW_CONFIG"

// Load reads the configuration: defaults, then the file named by
// WASTEFLOW_CONFIG (a YAML or JSON map of the same variable names), then the
// environment. Every error names the variable (and the file) at fault.
func Load(lookup func(string) (string, bool)) (*Config, error) {
	values := map[string]string{}
	source := map[string]string{}
	for _, s := range Settings {
		values[s.Name] = s.Default
		source[s.Name] = "default"
	}
	if path, ok := lookup(FileVariable); ok && path != "" {
		fromFile, err := readFile(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", FileVariable, err)
		}
		for k, v := range fromFile {
			values[k] = v
			source[k] = "file " + path
		}
	}
	for _, s := range Settings {
		if v, ok := lookup(s.Name); ok {
			values[s.Name] = v
			source[s.Name] = "environment"
		}
	}
	c := &Config{}
	for _, s := range Settings {
		if err := s.set(c, strings.TrimSpace(values[s.Name])); err != nil {
			return nil, fmt.Errorf("invalid %s=%q (from %s): %w", s.Name, redact(s.Name, values[s.Name]), source[s.Name], err)
		}
	}
	if c.LogFormat == "" {
		c.LogFormat = "text"
		if c.Environment == "production" || c.Environment == "staging" {
			c.LogFormat = "json"
		}
	}
	if (c.TLSCertFile == "") != (c.TLSKeyFile == "") {
		return nil, fmt.Errorf("invalid WASTEFLOW_TLS_CERT_FILE/WASTEFLOW_TLS_KEY_FILE: set both or neither")
	}
	if (c.DIWASS.ClientCertFile == "") != (c.DIWASS.ClientKeyFile == "") {
		return nil, fmt.Errorf("invalid WASTEFLOW_DIWASS_CLIENT_CERT_FILE/WASTEFLOW_DIWASS_CLIENT_KEY_FILE: set both or neither")
	}
	if c.Database.MaxOpenConns < 2 {
		// migrations hold one connection while the job queue's own
		// migrations take another
		return nil, fmt.Errorf("invalid WASTEFLOW_DB_MAX_OPEN_CONNS=%d: at least 2", c.Database.MaxOpenConns)
	}
	if c.Database.MaxIdleConns == 0 {
		c.Database.MaxIdleConns = c.Database.MaxOpenConns
	}
	if c.Database.MaxIdleConns > c.Database.MaxOpenConns {
		return nil, fmt.Errorf("invalid WASTEFLOW_DB_MAX_IDLE_CONNS=%d: larger than WASTEFLOW_DB_MAX_OPEN_CONNS=%d", c.Database.MaxIdleConns, c.Database.MaxOpenConns)
	}
	return c, nil
}

// FromEnvironment loads the configuration of this process.
func FromEnvironment() (*Config, error) { return Load(os.LookupEnv) }

func readFile(path string) (map[string]string, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := yaml.Unmarshal(raw, &m); err != nil { // YAML is a superset of JSON
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	known := map[string]bool{}
	for _, s := range Settings {
		known[s.Name] = true
	}
	out := map[string]string{}
	var unknown []string
	for k, v := range m {
		if !known[k] {
			unknown = append(unknown, k)
			continue
		}
		out[k] = fmt.Sprint(v)
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return nil, fmt.Errorf("%s: unknown variable %s", path, strings.Join(unknown, ", "))
	}
	return out, nil
}

// redact hides the password of a database URL, and the mail server's, in
// error messages.
func redact(name, v string) string {
	switch name {
	case "WASTEFLOW_DATABASE_URL":
		return RedactURL(v)
	case "WASTEFLOW_SMTP_PASSWORD":
		return "xxxxx"
	}
	return v
}

// RedactURL replaces the password of a URL with "xxxxx".
func RedactURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.User == nil {
		return v
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

func (d *Database) parseURL(v string) error {
	if v == "" {
		v = "sqlite://./data/wasteflow.db"
	}
	d.URL = v
	switch {
	case strings.HasPrefix(v, "postgres://"), strings.HasPrefix(v, "postgresql://"):
		u, err := url.Parse(v)
		if err != nil {
			return fmt.Errorf("not a URL: %v", err)
		}
		if u.Host == "" {
			return errors.New("postgres URL needs a host")
		}
		d.Driver, d.DSN = "postgres", v
	case strings.HasPrefix(v, "sqlite://"):
		path := strings.TrimPrefix(v, "sqlite://")
		if i := strings.IndexByte(path, '?'); i >= 0 {
			path = path[:i]
		}
		if path == "" {
			return errors.New("sqlite URL needs a file path, e.g. sqlite://./data/wasteflow.db")
		}
		d.Driver, d.DSN = "sqlite", filepath.Clean(path)
	default:
		return errors.New("want postgres://... or sqlite://PATH")
	}
	return nil
}

// harness are the prefixes of the variables the tests, benchmarks and
// walk-through scripts read: not settings of the server.
var harness = []string{"WASTEFLOW_TEST_", "WASTEFLOW_BENCH", "WASTEFLOW_STRESS", "WASTEFLOW_SOAK", "WASTEFLOW_GOLDEN", "WASTEFLOW_SCREENSHOT", "WASTEFLOW_URL"}

// Unknown names the WASTEFLOW_ variables of environ ("NAME=value") that
// are no setting, each with the setting it most resembles: a misspelt
// name would otherwise be ignored without a word. The harness's variables
// are not reported.
func Unknown(environ []string) []string {
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, "WASTEFLOW_") || name == FileVariable || slices.ContainsFunc(harness, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		best, dist := "", 1<<30
		known := false
		for _, s := range Settings {
			if s.Name == name {
				known = true
				break
			}
			if d := editDistance(name, s.Name); d < dist {
				best, dist = s.Name, d
			}
		}
		if known {
			continue
		}
		msg := name + " is not a setting and is ignored"
		if dist <= 3 {
			msg += " (did you mean " + best + "?)"
		}
		out = append(out, msg)
	}
	return out
}

// editDistance is Levenshtein's distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
