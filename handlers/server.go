package handlers

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/handlers/contract"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/handlers/ui"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/events"
	"github.com/wasteflow/wasteflow/workflows/mail"
	"github.com/wasteflow/wasteflow/workflows/registers"
	"github.com/wasteflow/wasteflow/workflows/reports"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/signer"
	"github.com/wasteflow/wasteflow/workflows/status"
	"github.com/wasteflow/wasteflow/workflows/transport"
	"github.com/wasteflow/wasteflow/workflows/wake"
	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

// Deps are what the REST face needs from the rest of the program.
type Deps struct {
	Config *configs.Config
	DB     *models.DB
	Log    *slog.Logger
	// Auth runs the account and token workflows and validates bearer
	// tokens; nil serves no AuthApi and refuses every token.
	Auth *auth.Service
	// JWKS is the document served at /.well-known/jwks.json.
	JWKS []byte
	// Documents runs every document kind; nil serves no document operations.
	Documents *documents.Runner
	// BMU runs the transport-document operations; nil serves none.
	BMU *bmu.Service
	// Transport keeps the stores, inboxes and templates of transport
	// documents; nil serves none of their operations.
	Transport *transport.Service
	// Signer runs signing processes; nil serves none.
	Signer *signer.Service
	// Reports answers deadline reports; Events delivers group notifications.
	Reports *reports.Service
	Events  *events.Service
	// Registers runs register exports; nil serves none.
	Registers *registers.Service
	// Webhooks manages groups' webhook endpoints; nil serves none.
	Webhooks *webhooks.Service
	// Mail keeps people's reminder mail preferences; nil serves none.
	Mail *mail.Service
	// DIWASS reports the last ping of DIWASS for /readyz (nil: DIWASS is
	// not configured).
	DIWASS func() any
	// Version is the build's version string, shown in /healthz.
	Version string
	// WireCheck, optional, is shown every answer the RPC face writes
	// straight from its Go value (wire.go) before it leaves: an oracle a
	// test server injects (the JSON detour's message must be the same);
	// its error fails the call.
	WireCheck func(op string, md protoreflect.MessageDescriptor, value any, wire []byte) error
}

// Server is the HTTP handler of wasteflow.
type Server struct {
	// trustedProxies are WASTEFLOW_TRUSTED_PROXIES (gin holds REST's).
	trustedProxies []netip.Prefix
	cfg            *configs.Config
	db             *models.DB
	log            *slog.Logger
	auth           Authenticator
	authSvc        *auth.Service
	docs           *documents.Runner
	bmu            *bmu.Service
	transport      *transport.Service
	signer         *signer.Service
	// largeBodies holds a slot per large body being read.
	largeBodies chan struct{}
	reports     *reports.Service
	diwass      func() any
	events      *events.Service
	registers   *registers.Service
	webhooks    *webhooks.Service
	mail        *mail.Service
	machines    []*engine.Machine
	plains      []api.PlainPath
	jwks        []byte
	version     string
	metrics     *metrics
	ops         []api.Operation
	engine      *gin.Engine
	grpc        *rpc.Face
	// streamsDone closes when the server shuts down: streams end with
	// UNAVAILABLE so that clients resume elsewhere (StopStreams).
	streamsDone chan struct{}
	stopStreams sync.Once
	openapi     []byte
	openapiJSON []byte
	// openapiEntry holds the description, rendered when first asked for.
	openapiEntry *openapiEntry
	migrator     *models.Migrator
	// providers caches the provider directory for the gateway's check.
	providers providerCache
	// inspectLimit bounds the reads of inspection links per client.
	inspectLimit inspectLimiter
	// labels is /labels.json.
	labels labelsFile
}

func init() { gin.SetMode(gin.ReleaseMode) }

// OpenAPIYAML is the description served at /openapi.yaml.
func (s *Server) OpenAPIYAML() []byte { s.renderOpenAPI(); return s.openapi }

// renderOpenAPI renders the description as YAML and JSON, once.
func (s *Server) renderOpenAPI() {
	e := s.openapiEntry
	e.render.Do(func() {
		var err error
		if e.yaml, err = contract.MarshalYAML(e.doc); err != nil {
			s.log.Error("render the OpenAPI description as YAML", "error", err)
		}
		if e.json, err = json.Marshal(e.doc); err != nil {
			s.log.Error("render the OpenAPI description as JSON", "error", err)
		} else if e.json, err = codec.OrderProperties(e.json); err != nil { // properties in form order (x-order)
			s.log.Error("order the OpenAPI description's properties", "error", err)
		}
	})
	s.openapi, s.openapiJSON = e.yaml, e.json
}

// openapiEntry is a description built from one table, shared by the
// servers of a process built from the same (tests start hundreds; a
// description took a fifth of a test server's start).
type openapiEntry struct {
	build, render sync.Once
	doc           *openapi3.T
	err           error
	yaml, json    []byte
}

var openapiBuilt sync.Map // openapiKey -> *openapiEntry

// openapiKey is everything BuildOpenAPI and describeDomain read.
func openapiKey(ops []api.Operation, plains []api.PlainPath, cfg *configs.Config, kinds []*documents.Kind) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d\n", cfg.BodyLimit)
	for _, o := range ops {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s|%d|%v|%s|%s|%s|%s|%v|%v|%v|%s|%v|%v|%v\n", o.Package, o.Service, o.Method, o.Verb, o.Scope, o.Security,
			o.NoProvider, o.Org, o.Summary, o.Description, o.ContentType, o.Deprecated, o.GRPCOnly, o.Request, o.Request, o.Response,
			o.IsDownload(), o.Streaming())
	}
	for _, p := range plains {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%v|%v|%s|%v\n", p.Path, p.Summary, p.Description, p.ContentType, p.Also, p.Query, p.PostSummary, p.Post != nil)
	}
	for _, k := range kinds {
		b.WriteString(k.Machine().Mermaid())
	}
	return b.String()
}

// New builds the server and everything derived from the operation table.
func New(d Deps) (*Server, error) { return newServer(d, nil) }

// newServer is New serving extra operations beside the table's: the
// tests' (export_test.go) exercise the gateway with shapes no production
// operation has.
func newServer(d Deps, extra []api.Operation) (*Server, error) {
	if d.Reports != nil && d.Reports.Kinds == nil && d.Documents != nil {
		d.Reports.Kinds = d.Documents.Kinds.Kinds() // the reports know the kinds the server runs
	}
	s := &Server{streamsDone: make(chan struct{}), cfg: d.Config, db: d.DB, log: d.Log, authSvc: d.Auth, docs: d.Documents, bmu: d.BMU, transport: d.Transport, signer: d.Signer,
		largeBodies: make(chan struct{}, max(d.Config.LargeBodySlots, 1)), reports: d.Reports, events: d.Events, registers: d.Registers, webhooks: d.Webhooks, mail: d.Mail, diwass: d.DIWASS, jwks: d.JWKS, version: d.Version}
	s.inspectLimit.perMin = max(d.Config.Inspection.PerMinute, 1)
	s.auth = refuseTokens{}
	if d.Auth != nil {
		s.auth = tokenAuth{d.Auth}
	}
	if s.jwks == nil {
		s.jwks = []byte(`{"keys":[]}`)
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	m, err := models.NewMigrator(d.DB, nil)
	if err != nil {
		return nil, err
	}
	s.migrator = m
	var sessions *auth.SessionCache
	if d.Auth != nil {
		sessions = d.Auth.Sessions
	}
	hubs := map[string]*wake.Hub{}
	if d.Events != nil && d.Events.Wake != nil {
		hubs["events"] = d.Events.Wake
	}
	if d.Signer != nil && d.Signer.Wake != nil {
		hubs["signing"] = d.Signer.Wake
	}
	s.metrics = newMetrics(d.DB, sessions, hubs)
	s.ops = append(s.operations(), extra...)
	var kinds []*documents.Kind
	if d.Documents != nil {
		kinds = d.Documents.Kinds.Kinds()
		if err := checkIntentRoutes(kinds, s.ops); err != nil {
			return nil, fmt.Errorf("document kinds: %w", err)
		}
	}
	for _, k := range kinds {
		s.machines = append(s.machines, k.Machine())
	}
	s.plains = s.plainPaths()
	v, _ := openapiBuilt.LoadOrStore(openapiKey(s.ops, s.plains, s.cfg, kinds), &openapiEntry{})
	s.openapiEntry = v.(*openapiEntry)
	s.openapiEntry.build.Do(func() {
		doc, err := contract.BuildOpenAPI(s.ops, s.plains, s.cfg)
		if err != nil {
			s.openapiEntry.err = fmt.Errorf("derive OpenAPI description: %w", err)
			return
		}
		s.openapiEntry.doc, s.openapiEntry.err = doc, describeDomain(doc, kinds)
		if s.openapiEntry.err == nil {
			s.openapiEntry.err = registerEnumLabels(s.ops)
		}
	})
	if s.openapiEntry.err != nil {
		return nil, s.openapiEntry.err
	}

	e := gin.New()
	e.HandleMethodNotAllowed = true
	e.RedirectTrailingSlash = false
	e.RedirectFixedPath = false
	e.RemoveExtraSlash = false
	e.ContextWithFallback = true
	if err := e.SetTrustedProxies(s.cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("WASTEFLOW_TRUSTED_PROXIES: %w", err)
	}
	if s.trustedProxies, err = trustedPrefixes(s.cfg.TrustedProxies); err != nil { // the RPC face's (clientIP)
		return nil, fmt.Errorf("WASTEFLOW_TRUSTED_PROXIES: %w", err)
	}
	e.Use(s.entry, securityHeaders)
	e.NoRoute(s.noRoute)
	e.NoMethod(s.noMethod)
	for _, op := range s.ops {
		if !op.NoREST() { // a stream, or section 8's gRPC-only ones: REST answers them 404, as any path it cannot route
			e.Handle(op.Verb, op.Path(), s.handle(op))
		}
	}
	for _, p := range s.plains {
		e.GET(p.Path, s.plain(p))
		if p.Post != nil {
			e.POST(p.Path, s.plain(api.PlainPath{Path: p.Path, CSP: p.CSP, Get: p.Post}))
		}
	}
	s.engine = e
	if s.grpc, err = rpc.New(s, d.WireCheck); err != nil {
		return nil, err
	}
	return s, nil
}

// ServeHTTP implements http.Handler: gRPC and gRPC-Web calls go to the
// gRPC face, everything else to gin.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if rpc.IsRPC(r) {
		s.grpc.ServeHTTP(w, r)
		return
	}
	s.engine.ServeHTTP(w, r)
}

// StopStreams ends every gRPC stream (UNAVAILABLE: reconnect and resume);
// http.Server.Shutdown waits for them otherwise. serve registers it with
// RegisterOnShutdown.
func (s *Server) StopStreams() { s.stopStreams.Do(func() { close(s.streamsDone) }) }

// Listen is the listener to give net/http's server (whose handler is s):
// it yields the connections net/http serves and hands native gRPC ones
// to the RPC face's grpc-go server (rpc.Face.Listen).
func (s *Server) Listen(ln net.Listener) net.Listener { return s.grpc.Listen(ln) }

// Shutdown ends the RPC face: streams end with UNAVAILABLE, unary calls
// in flight finish unless ctx ends first (rpc.Face.Shutdown).
func (s *Server) Shutdown(ctx context.Context) error { return s.grpc.Shutdown(ctx) }

// What the RPC face needs of the server (rpc.Core) beside Admit, Invoke,
// LogCall and the limits.

// Config is the server's configuration.
func (s *Server) Config() *configs.Config { return s.cfg }

// Logger is the server's logger.
func (s *Server) Logger() *slog.Logger { return s.log }

// Failure is an error as every face answers it (failure).
func (s *Server) Failure(ctx context.Context, err error) (*status.Error, string, http.Header) {
	return failure(ctx, err)
}

// StreamsDone closes when the server shuts down (StopStreams).
func (s *Server) StreamsDone() <-chan struct{} { return s.streamsDone }

// Ready answers nil when the database answers and the schema is current
// (as /readyz and grpc.health.v1 report).
func (s *Server) Ready(ctx context.Context) error {
	_, err := s.ready(ctx)
	return err
}

// Operations returns the operation table.
func (s *Server) Operations() []api.Operation { return s.ops }

var _ rpc.Core = (*Server)(nil)

// Route is one method and path the server answers.
type Route struct{ Method, Path string }

// Routes lists every REST route, sorted (gin also holds the gRPC-only
// operations' paths, for the gRPC face's dispatch; REST answers them 404).
func (s *Server) Routes() []Route {
	grpcOnly := map[string]bool{}
	for _, op := range s.ops {
		if op.NoREST() {
			grpcOnly[op.Path()] = true
		}
	}
	var out []Route
	for _, r := range s.engine.Routes() {
		if !grpcOnly[r.Path] {
			out = append(out, Route{r.Method, contract.OpenAPIPath(r.Path)})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// plainPaths lists the operational endpoints and the workflow diagrams.
func (s *Server) plainPaths() []api.PlainPath {
	paths := []api.PlainPath{
		{Path: "/", Summary: "Where to begin",
			Description: "A browser (Accept naming text/html) is redirected (302) to the console at /ui. Any other client gets 200 with " +
				"links to this description (/openapi.yaml, /openapi.json), the documentation (/docs), the console and the health checks.",
			Get: s.root},
		{Path: "/healthz", Summary: "Liveness", Description: "200 while the process is up; it checks nothing else.",
			Get: func(c *gin.Context) { c.JSON(http.StatusOK, gin.H{"status": "ok", "version": s.version}) }},
		{Path: "/readyz", Summary: "Readiness", Description: "200 when the database answers and every migration is applied; 503 (code 14) otherwise. With DIWASS configured, diwass says what its last ping found (UP, DOWN, UNKNOWN): DIWASS down does not make the server unready, as the job queue holds the submissions.",
			Get: s.readyz},
		{Path: "/bmu/eanv.xsd", Summary: "The XML schema of transport documents (our format)", ContentType: "application/xml",
			Description: "Our design of the consignment and acceptance notes' XML (namespace urn:wasteflow:eanv:1) until the official BMU schema is available.",
			Get:         func(c *gin.Context) { c.Data(http.StatusOK, "application/xml", bmu.XSD) }},
		{Path: "/openapi.yaml", Summary: "This OpenAPI description", ContentType: "application/yaml",
			Description: "Generated from the server's operation table.",
			Get:         func(c *gin.Context) { s.renderOpenAPI(); c.Data(http.StatusOK, "application/yaml", s.openapi) }},
		{Path: "/openapi.json", Summary: "This OpenAPI description, as JSON", ContentType: "application/json",
			Description: "The same document as /openapi.yaml, for clients without a YAML parser (the console reads the intents' block schemas from it).",
			Get:         func(c *gin.Context) { s.renderOpenAPI(); c.Data(http.StatusOK, "application/json", s.openapiJSON) }},
		{Path: "/labels.json", Summary: "The words for codes, in English and German",
			Description: "Every code list a person sees, as {\"lists\": {\"<list>\": {\"<code>\": {\"en\", \"de\"}}}}: operation (R1–R13, D1–D15), " +
				"wasteCode/<list> (the wording of the waste code lists), wasteClassificationList, meansOfTransport, packagingType, country, " +
				"state/<kind>, intent/<kind>, role, and one list per enum by its proto name (DecisionType, ...). The x-code-list of a schema " +
				"property names the list its values come from. Public and cacheable (ETag, If-None-Match answers 304).",
			Get: s.labels.serve},
		{Path: "/.well-known/jwks.json", Summary: "Token verification keys",
			Description: "The public keys (JWK Set, Ed25519) that verify wasteflow's tokens; several during a key rotation.",
			Get:         func(c *gin.Context) { c.Data(http.StatusOK, "application/json", s.jwks) }},
	}
	for _, pg := range ui.Pages() {
		pg := pg
		paths = append(paths, api.PlainPath{Path: pg.Path, Summary: pg.Summary, Description: "Part of the pages for people: the console, the deadline page, the signing page (plain HTML, CSS and scripts, embedded).",
			ContentType: pg.ContentType, CSP: cspScripted, Get: func(c *gin.Context) { c.Data(http.StatusOK, pg.ContentType, pg.Body) }})
	}
	paths = append(paths, api.PlainPath{Path: "/ui/config.json", Summary: "Settings of the pages for people (the console, the deadline page, the signing page)",
		Description: "The environment, the app token the page logs in with (WASTEFLOW_UI_APP_TOKEN; a browser app's token is public) and the providers it is valid for.",
		Get: func(c *gin.Context) {
			providers := []string{}
			if s.authSvc != nil {
				var err error
				if providers, err = s.authSvc.ProvidersOfAppToken(c.Request.Context(), s.cfg.UIAppToken); err != nil {
					renderError(c, err)
					return
				}
			}
			c.JSON(http.StatusOK, gin.H{"environment": s.cfg.Environment, "appToken": s.cfg.UIAppToken, "providers": providers})
		}})
	if s.docs != nil {
		paths = append(paths, api.PlainPath{Path: "/inspect/:token", Summary: "A printed document's current state, for an inspector (no login)",
			ContentType: "text/html", Also: []string{"application/pdf"},
			Query: [][2]string{{"format", "pdf or html: overrides Accept"}, {"lang", "en or de: overrides Accept-Language"}},
			Description: "The link of a printed document's QR code (PrintDocument's inspectionLink; our design). Without login, it shows the " +
				"document's current state: an HTML page (Accept: text/html, the default), or the same form as PrintDocument's PDF " +
				"(Accept: application/pdf, or ?format=pdf); in German with ?lang=de or when Accept-Language prefers it. A receipt " +
				"recorded after the print is shown. Every read is kept (time, client address) for the document's parties " +
				"(ListInspectionLinks). An unknown, expired or revoked token is answered as any absent page (404, code 5) and writes " +
				"nothing; more than WASTEFLOW_INSPECTION_PER_MINUTE reads a minute from one address get 429 (code 8) with Retry-After.",
			CSP: cspInspection, Get: s.inspect})
	}
	if s.mail != nil {
		unsubscribe, confirm := s.mailLink("unsubscribe"), s.mailLink("confirm")
		paths = append(paths,
			api.PlainPath{Path: "/mail/unsubscribe", Summary: "A reminder mail's unsubscribe link (no login)", ContentType: "text/html",
				Query: [][2]string{{"t", "the token of the mail's link"}},
				Description: "GET shows a page asking to confirm; POST (its button, or RFC 8058's one-click POST with the body " +
					"List-Unsubscribe=One-Click) switches every reminder mail of the account off. An invalid or used token gets 404.",
				CSP: cspStyledForm, Get: unsubscribe, Post: unsubscribe, PostSummary: "Unsubscribe (one click, RFC 8058)"},
			api.PlainPath{Path: "/mail/confirm", Summary: "A confirmation mail's link (no login)", ContentType: "text/html",
				Query:       [][2]string{{"t", "the token of the mail's link"}},
				Description: "GET shows a page asking to confirm; POST (its button) confirms the address the account set. An invalid token, or one of an address the account no longer has, gets 404.",
				CSP:         cspStyledForm, Get: confirm, Post: confirm, PostSummary: "Confirm the address"})
	}
	paths = append(paths, s.docPaths()...)
	if s.docs != nil {
		index := kindsJSON(s.docs.Kinds.Kinds())
		paths = append(paths, api.PlainPath{Path: "/workflows.json", Summary: "The document kinds this server runs", ContentType: "application/json",
			Description: "One entry per kind, in the registry's order: kind, label ({\"en\", \"de\"}), machine (its /workflows/<kind>.json), " +
				"parent (the kind it is created under, \"\" for none) and, for a kind a company creates on its own, create: the operation, " +
				"the request's block that holds the content, and the roles the creating organisation takes. A client that lists or creates " +
				"documents by kind (the console) reads the kinds here, so a kind the server adds needs no change to it.",
			Get: func(c *gin.Context) { c.Data(http.StatusOK, "application/json", index) }})
	}
	for _, m := range s.machines {
		kind := strings.ToLower(m.Def.Kind)
		dot, mmd := m.Dot(), m.Mermaid()
		paths = append(paths,
			api.PlainPath{Path: "/workflows/" + kind + ".dot", Summary: "The " + kind + " state machine (Graphviz)", ContentType: "text/vnd.graphviz",
				Description: "Derived from the machine's declaration: states, intents, guards, system triggers.",
				Get:         func(c *gin.Context) { c.Data(http.StatusOK, "text/vnd.graphviz", []byte(dot)) }},
			api.PlainPath{Path: "/workflows/" + kind + ".json", Summary: "The " + kind + " state machine (JSON)", ContentType: "application/json",
				Description: "Derived from the machine's declaration: states (initial, final), and one transition per intent, source and target, with its guard; system intents are the scheduler's; labels: the words for people of the kind ({\"en\", \"de\"}) and of its states, intents and roles ({\"NAME\": {\"en\", \"de\"}}).",
				Get:         func(c *gin.Context) { c.Data(http.StatusOK, "application/json", machineJSON(m.Def)) }},
			api.PlainPath{Path: "/workflows/" + kind + ".mmd", Summary: "The " + kind + " state machine (Mermaid)", ContentType: "text/plain",
				Description: "Derived from the machine's declaration.",
				Get:         func(c *gin.Context) { c.Data(http.StatusOK, "text/plain; charset=utf-8", []byte(mmd)) }},
		)
	}
	return paths
}

func (s *Server) plain(p api.PlainPath) gin.HandlerFunc {
	return func(c *gin.Context) {
		reqctx.From(c.Request.Context()).Operation = p.Path
		if p.CSP != "" {
			c.Set(ctxKeyCSP, p.CSP)
		}
		p.Get(c)
	}
}

// Metrics serves the Prometheus metrics (text exposition format):
// requests by operation and code, latency, the database pool, the
// gauges, the Go runtime. It needs no login, so serve wires it to its
// own address (WASTEFLOW_METRICS_ADDR), never beside the API.
func (s *Server) Metrics() http.Handler {
	return promhttp.HandlerFor(s.metrics.registry, promhttp.HandlerOpts{})
}

func (s *Server) readyz(c *gin.Context) {
	current, err := s.ready(c.Request.Context())
	if err != nil {
		renderError(c, err)
		return
	}
	answer := gin.H{"status": "ready", "database": models.Dialect(s.db), "schemaVersion": current}
	if s.diwass != nil { // reported, never a reason to be unready: the job queue holds the work
		answer["diwass"] = s.diwass()
	}
	c.JSON(http.StatusOK, answer)
}

// ready is nil, with the schema version, when the database answers and
// every migration is applied: /readyz and grpc.health.v1 both ask it.
func (s *Server) ready(ctx context.Context) (int64, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	current, target, err := s.migrator.Versions(ctx)
	if err != nil {
		return 0, status.Wrap(err, status.Unavailable, "database not reachable")
	}
	if current > target {
		return current, status.New(status.Unavailable, "database schema at version %d is newer than this build's %d: a newer wasteflow migrated it; run that version", current, target)
	}
	if current != target {
		return current, status.New(status.Unavailable, "database schema at version %d, this build needs %d: run `wasteflow migrate`", current, target)
	}
	return current, nil
}

// kindsJSON is /workflows.json: the kinds, their words, and how a
// document of each is created.
func kindsJSON(kinds []*documents.Kind) []byte {
	type create struct {
		Operation string   `json:"operation"`
		Block     string   `json:"block"`
		Roles     []string `json:"roles"`
	}
	type kind struct {
		Kind    string      `json:"kind"`
		Label   labels.Text `json:"label"`
		Machine string      `json:"machine"`
		Parent  string      `json:"parent"`
		Create  *create     `json:"create,omitempty"`
	}
	out := struct {
		Kinds []kind `json:"kinds"`
	}{Kinds: []kind{}}
	for _, k := range kinds {
		e := kind{Kind: k.Name(), Label: k.Def.Labels.Kind, Machine: "/workflows/" + engine.ListKind(k.Name()) + ".json"}
		if k.Parent != nil {
			e.Parent = k.Parent.Kind
		} else if k.Face != nil && k.Def.Create != nil {
			for _, f := range k.Face.Create.Fields {
				if f.Required {
					e.Create = &create{Operation: k.Face.Create.Operation, Block: f.JSON, Roles: k.Def.Create.Roles}
					break
				}
			}
		}
		out.Kinds = append(out.Kinds, e)
	}
	b, _ := json.Marshal(out)
	return b
}

// machineJSON describes a state machine for clients that draw it (the
// console's state diagram).
func machineJSON(d *engine.Definition) []byte {
	type transition struct {
		From   string `json:"from"`
		To     string `json:"to"`
		Intent string `json:"intent"`
		Guard  string `json:"guard,omitempty"`
		System bool   `json:"system,omitempty"`
	}
	type intent struct {
		Name      string `json:"name"`
		Block     string `json:"block,omitempty" doc:"the retrieval document's block it takes"`
		Operation string `json:"operation,omitempty"`
		System    bool   `json:"system,omitempty"`
	}
	out := struct {
		Kind        string       `json:"kind"`
		States      []string     `json:"states"`
		Initial     string       `json:"initial"`
		Final       []string     `json:"final"`
		Intents     []intent     `json:"intents"`
		Transitions []transition `json:"transitions"`
		// Labels are the words for people of the states, intents and roles.
		Labels machineLabels `json:"labels"`
	}{Kind: d.Kind, States: d.States, Initial: d.Initial, Final: d.Final, Transitions: []transition{}, Labels: labelsOf(d)}
	for _, in := range d.Intents {
		out.Intents = append(out.Intents, intent{Name: in.Name, Block: in.Block, Operation: in.Operation, System: in.System})
	}
	for _, in := range d.Intents {
		for _, tr := range in.Transitions {
			targets := tr.Targets
			if tr.To != "" {
				targets = []string{tr.To}
			}
			for _, from := range tr.From {
				for _, to := range targets {
					out.Transitions = append(out.Transitions, transition{From: from, To: to, Intent: in.Name, Guard: tr.Guard, System: in.System})
				}
			}
		}
	}
	b, _ := json.Marshal(out)
	return b
}
