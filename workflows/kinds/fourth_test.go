package kinds_test

// A fourth kind, declared here and nowhere else: an inspection of a site
// (two states, an intent with a block, a deadline that falls OVERDUE) with
// findings as its children. Registered beside the server's kinds, it gets
// its REST operations, OpenAPI schemas, SetByIntent, follow-up intents,
// deadlines, the sweep and the lists with no edit to handlers/, models/ or
// cmd/: the steps of docs/ARCHITECTURE.md "Adding a kind", proved over HTTP.

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/auth"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	wclock "github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/credentials"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/kinds"
	"github.com/wasteflow/wasteflow/workflows/registers"
	"github.com/wasteflow/wasteflow/workflows/reports"
	"github.com/wasteflow/wasteflow/workflows/tokens"
)

// Step 1, the rules: the aggregate and the blocks, pure values.

type site struct {
	Name     string `json:"name" maxLength:"200"`
	Operator string `json:"operatorOrganisationId" maxLength:"64" doc:"the company whose site is inspected"`
}

type inspection struct {
	Site      site
	Inspector string
	VisitOn   string
	Findings  string
}

type schedule struct {
	VisitOn string `json:"visitOn" maxLength:"10" doc:"YYYY-MM-DD"`
}

type report struct {
	Findings string `json:"findings" maxLength:"4000"`
}

type finding struct {
	InspectionID string
	Text         string
	Seq          int
	Inspector    string
	Operator     string
}

type newInspection struct{ Site site }

type newFinding struct {
	InspectionID string
	Text         string
}

const (
	co          = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
	inspector   = "INSPECTOR"
	operator    = "OPERATOR"
	ruleReport  = "REPORT_DUE"
	siteMissing = "SITE_MISSING"
)

// Step 2, the machine.
var inspectionMachine = &engine.Declaration[inspection]{
	Kind: "INSPECTION", States: []string{"OPEN", "CLOSED"}, Initial: "OPEN", Final: []string{"CLOSED"},
	Labels: engine.Labels{Kind: labels.Text{EN: "Site inspection", DE: "Vor-Ort-Kontrolle"}},
	Create: engine.IntentOf[inspection, newInspection]{Name: "CREATE", Operation: co + "CreateInspection", Roles: []string{inspector}, Errors: []string{siteMissing},
		Validate: func(ev *engine.On[inspection], in *newInspection) ([]engine.BusinessError, error) {
			if strings.TrimSpace(in.Site.Name) == "" {
				return []engine.BusinessError{{Code: siteMissing, Field: "inspection.name", Message: "name the site"}}, nil
			}
			return nil, nil
		},
		Apply: func(ev *engine.On[inspection], in *newInspection) error {
			ev.Doc.Site, ev.Doc.Inspector = in.Site, ev.Caller.Org
			return nil
		}},
	Intents: []engine.Step[inspection]{
		engine.IntentOf[inspection, schedule]{Name: "SCHEDULE", Operation: co + "SetInspectionSchedule", Block: "schedule", Roles: []string{inspector},
			Summary:     "set the visit; the report falls due",
			Transitions: []engine.Transition{{From: []string{"OPEN"}, To: "OPEN", Guard: "unscheduled"}},
			Effects:     []engine.Effect{{Op: engine.Start, Rule: ruleReport}},
			Apply:       func(ev *engine.On[inspection], in *schedule) error { ev.Doc.VisitOn = in.VisitOn; return nil }},
		engine.IntentOf[inspection, report]{Name: "REPORT", Operation: co + "SetInspectionReport", Block: "report", Roles: []string{inspector},
			Summary:     "file the report: the inspection is closed",
			Transitions: []engine.Transition{{From: []string{"OPEN"}, To: "CLOSED"}},
			Effects:     []engine.Effect{{Op: engine.Stop, Rule: ruleReport}},
			Apply:       func(ev *engine.On[inspection], in *report) error { ev.Doc.Findings = in.Findings; return nil },
			Prefill:     func(d *inspection, b *report) { b.Findings = "visited " + d.VisitOn }},
		engine.IntentOf[inspection, engine.None]{Name: "ADD_FINDING", Operation: co + "CreateFinding", Roles: []string{inspector}, Creates: "FINDING",
			Summary:     "record a finding (CreateFinding)",
			Transitions: []engine.Transition{{From: []string{"OPEN"}, To: "OPEN"}}},
	},
	Guards: map[string]func(*engine.On[inspection]) bool{
		"unscheduled": func(ev *engine.On[inspection]) bool { return ev.Doc.VisitOn == "" },
	},
	Rules: []engine.Rule{{Name: ruleReport, LegalBasis: "our test's own rule", Days: 5, Working: true, Party: inspector}},
	Selectors: map[string]func(*engine.On[inspection]) []engine.Party{
		inspector: func(ev *engine.On[inspection]) []engine.Party {
			return []engine.Party{{Org: ev.Doc.Inspector, Role: inspector}}
		},
	},
}

var findingMachine = &engine.Declaration[finding]{
	Kind: "FINDING", States: []string{"RECORDED"}, Initial: "RECORDED", Final: []string{"RECORDED"},
	Labels: engine.Labels{Kind: labels.Text{EN: "Finding", DE: "Feststellung"}},
	Create: engine.IntentOf[finding, newFinding]{Name: "CREATE", Operation: co + "CreateFinding", Roles: []string{inspector},
		Apply: func(ev *engine.On[finding], in *newFinding) error {
			parent, _ := engine.DataOf[*inspection](ev.Parent)
			ev.Doc.InspectionID, ev.Doc.Text, ev.Doc.Seq = ev.Parent.ID, in.Text, len(ev.Siblings)+1
			ev.Doc.Inspector, ev.Doc.Operator = parent.Inspector, parent.Site.Operator
			return nil
		}},
}

// Step 3, the registration: the retrieval documents and the kinds.

type InspectionDocument struct {
	documents.Header  `json:",inline"`
	Site              site   `json:"site"`
	VisitOn           string `json:"visitOn"`
	Findings          string `json:"findings"`
	FindingCount      int    `json:"findingCount"`
	documents.Trailer `json:",inline"`
	// The blocks (schedule, report) are made from the intents.
}

type FindingDocument struct {
	documents.Header  `json:",inline"`
	InspectionID      string `json:"inspectionId"`
	Text              string `json:"text"`
	documents.Trailer `json:",inline"`
}

func inspectionKind() *documents.Kind {
	return documents.KindOf[inspection, InspectionDocument]{
		Declaration: inspectionMachine, IDPrefix: "ins_", ContainerKey: "inspection",
		NumberPrefix: func(country string, at time.Time) string { return fmt.Sprintf("INS-%s-%d", country, at.Year()) },
		NumberFormat: "INS, country, year, sequence",
		Parties: func(d *inspection) []engine.Party {
			return engine.PartiesOf([]shipment.Party{{OrganisationID: d.Inspector, Role: inspector}, {OrganisationID: d.Site.Operator, Role: operator}})
		},
		Document: func(v *documents.View, d *inspection) *InspectionDocument {
			return &InspectionDocument{Header: v.Header(), Trailer: v.Trailer(), Site: d.Site, VisitOn: d.VisitOn, Findings: d.Findings, FindingCount: len(v.Children)}
		},
		// Its row in the parties' registers: the operator's site, the visit.
		Register: func(_ *documents.RegisterRequest, d *inspection) documents.RegisterRow {
			return documents.RegisterRow{Notifier: d.Inspector, Facility: d.Site.Operator, ShipmentFrom: d.VisitOn}
		},
		// Step 4, the face.
		Face: &documents.Face{Noun: "inspections", ContainerDoc: "set for an inspection",
			Create: documents.OperationDecl{Operation: co + "CreateInspection", Summary: "Open an inspection",
				Fields: []documents.FieldDecl{{JSON: "inspection", Input: "Site", Required: true}}},
			Get: documents.OperationDecl{Operation: co + "GetInspection", Summary: "An inspection"},
			Operations: []documents.OperationDecl{
				{Operation: co + "SetInspectionSchedule", Fires: []string{"SCHEDULE"}, Summary: "Schedule the visit"},
				{Operation: co + "SetInspectionReport", Fires: []string{"REPORT"}, Summary: "File the report"},
			}},
	}.Kind()
}

func findingKind() *documents.Kind {
	return documents.KindOf[finding, FindingDocument]{
		Declaration: findingMachine, IDPrefix: "fnd_", ContainerKey: "finding", NumberFormat: "the inspection's number, F and the sequence",
		Parties: func(d *finding) []engine.Party {
			return engine.PartiesOf([]shipment.Party{{OrganisationID: d.Inspector, Role: inspector}, {OrganisationID: d.Operator, Role: operator}})
		},
		Document: func(v *documents.View, d *finding) *FindingDocument {
			return &FindingDocument{Header: v.Header(), Trailer: v.Trailer(), InspectionID: d.InspectionID, Text: d.Text}
		},
		Parent: documents.ParentOf("INSPECTION", "ADD_FINDING",
			func(in *newFinding) *string { return &in.InspectionID },
			func(parent string, d *finding) string { return fmt.Sprintf("%s-F%02d", parent, d.Seq) }),
		Face: &documents.Face{Noun: "findings", ContainerDoc: "set for a finding",
			Create: documents.OperationDecl{Operation: co + "CreateFinding", Summary: "Record a finding of an open inspection",
				Fields: []documents.FieldDecl{{JSON: "inspectionId", Input: "InspectionID", Required: true}, {JSON: "text", Input: "Text"}}},
			Get: documents.OperationDecl{Operation: co + "GetFinding", Summary: "A finding"}},
	}.Kind()
}

const fixture = `
providers:
  - {id: dev-1, environment: development, name: Dev}
organisations:
  - {id: acme, provider: dev-1, kind: company, name: ACME, country: DE}
  - {id: recyc, provider: dev-1, kind: company, name: Recycling, country: NL}
  - {id: evil, provider: dev-1, kind: company, name: Not a party, country: DE}
applications:
  - {provider: dev-1, name: ui, appToken: "app-token-ui-0123456789abcdef", scopes: [usermgt, documents:read, documents:write]}
accounts:
  - {provider: dev-1, organisation: acme, username: alice, password: "alice-password-1", scopes: [usermgt, documents:read, documents:write]}
  - {provider: dev-1, organisation: recyc, username: rita, password: "rita-password-1", scopes: [documents:read, documents:write]}
  - {provider: dev-1, organisation: evil, username: eve, password: "eve-password-12", scopes: [documents:read, documents:write]}
`

// Step 5 is kinds.All() plus the new kinds: the server's wiring, as cmd does it.
func startServer(t *testing.T, dbcfg configs.Database) string {
	db := dbtest.Open(t, dbcfg)
	ctx := context.Background()
	ring, _ := credentials.NewKeyring(bytes.Repeat([]byte{7}, 32))
	hasher := credentials.NewHasher(2)
	f, err := bootstrap.Parse(strings.NewReader(fixture))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&bootstrap.Applier{Store: models.NewSeedStore(db), Hasher: hasher, Keyring: ring}).Apply(ctx, f); err != nil {
		t.Fatal(err)
	}
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	keys := tokens.NewKeys(priv)
	now := func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) } // a Tuesday; the test clock moves it
	svc, err := auth.New(ctx, auth.Service{Store: models.NewAuthStore(db), Tokens: &tokens.Issuer{Keys: keys, Name: "wasteflow", Now: time.Now},
		Hasher: hasher, Keyring: ring, Now: time.Now,
		Config: auth.Config{AccessTTL: time.Hour, RefreshTTL: 24 * time.Hour, GroupTTL: time.Minute, MaxFailures: 10, MaxFailuresPerIP: 10, FailureWindow: time.Minute}})
	if err != nil {
		t.Fatal(err)
	}
	runner, err := documents.New(db, now, append(kinds.All(), inspectionKind(), findingKind())...)
	if err != nil {
		t.Fatal(err)
	}
	runner.Clocks = wclock.New(db, "development")
	cfg, _ := configs.Load(func(string) (string, bool) { return "", false })
	cfg.Database, cfg.Environment = dbcfg, "development"
	cfg.UIAppToken = "app-token-ui-0123456789abcdef" // the console logs in with it
	queue, err := models.NewJobQueue(db, models.JobConfig{Workers: 2, Poll: 50 * time.Millisecond, JobTimeout: 20 * time.Second, RescueAfter: 30 * time.Second},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	regs := &registers.Service{Store: models.NewExportStore(db), Docs: runner, Jobs: queue, Now: now}
	regs.Register(queue)
	qctx, stop := context.WithCancel(context.Background())
	if err := queue.Start(qctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stop(); queue.Stop(context.Background()) })
	srv, err := handlers.New(handlers.Deps{Config: cfg, DB: db, Auth: svc, JWKS: keys.JWKS(), Documents: runner, Registers: regs,
		Reports: &reports.Service{Store: models.NewReportStore(db), Now: now, Clocks: runner.Clocks}})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return hs.URL
}

type client struct {
	t     *testing.T
	url   string
	token string
}

func (c *client) call(path string, body any) map[string]any {
	c.t.Helper()
	st, m := c.try(path, body)
	if st != http.StatusOK {
		c.t.Fatalf("%s: HTTP %d %v", path, st, m)
	}
	return m
}

func (c *client) try(path string, body any) (int, map[string]any) {
	c.t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(http.MethodPost, c.url+path, bytes.NewReader(b))
	req.Header.Set("provider_id", "dev-1")
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		c.t.Fatalf("%s: HTTP %d, not JSON: %s", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

func login(t *testing.T, url, user, password string) *client {
	c := &client{t: t, url: url}
	rt := c.call("/svc.core.v1.api.AuthApi/IssueRefreshToken", map[string]any{
		"usernameCredentials": map[string]string{"username": user, "password": password}, "appToken": "app-token-ui-0123456789abcdef"})["refreshToken"].(string)
	c.token = rt
	c.token = c.call("/svc.core.v1.api.AuthApi/RequestAccess", nil)["accessToken"].(string)
	return c
}

func intents(resp map[string]any) []string {
	var out []string
	for _, f := range resp["followUpIntents"].([]any) {
		out = append(out, f.(map[string]any)["intent"].(string))
	}
	return out
}

func deadline(doc map[string]any, rule string) map[string]any {
	for _, d := range doc["deadlines"].([]any) {
		if m := d.(map[string]any); m["rule"] == rule {
			return m
		}
	}
	return nil
}

func TestAFourthKindNeedsOnlyItsDeclaration(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		url := startServer(t, dbcfg)
		alice, rita, eve := login(t, url, "alice", "alice-password-1"), login(t, url, "rita", "rita-password-1"), login(t, url, "eve", "eve-password-12")

		// The OpenAPI description has the kind's operations and schemas.
		resp, err := http.Get(url + "/openapi.yaml")
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for _, want := range []string{co + "CreateInspection:", co + "GetInspection:", co + "SetInspectionSchedule:", co + "SetInspectionReport:",
			co + "CreateFinding:", co + "GetFinding:", "InspectionDocument:", "SetInspectionReportRequest:", "FindingDocument:", "REPORT_DUE", "SITE_MISSING"} {
			if !bytes.Contains(spec, []byte(want)) {
				t.Errorf("the OpenAPI description lacks %q", want)
			}
		}

		// A content rule: a business error in an HTTP 200, nothing created.
		refused := alice.call(co+"CreateInspection", map[string]any{"inspection": map[string]any{"operatorOrganisationId": "recyc"}})
		if refused["document"] != nil || !strings.Contains(fmt.Sprint(refused["businessErrors"]), siteMissing) {
			t.Fatalf("create without a site: %v", refused)
		}

		created := alice.call(co+"CreateInspection", map[string]any{"inspection": map[string]any{"name": "Hafen 3", "operatorOrganisationId": "recyc"}})
		doc := created["document"].(map[string]any)
		id := doc["id"].(string)
		if !strings.HasPrefix(id, "ins_") || doc["number"] != "INS-DE-2026-000001" || doc["state"] != "OPEN" || doc["kind"] != "INSPECTION" {
			t.Fatalf("created: %v", doc)
		}
		if got := strings.Join(intents(created), ","); got != "SCHEDULE,REPORT,ADD_FINDING" {
			t.Fatalf("alice's follow-up intents: %s", got)
		}

		// The block of an intent: the deadline starts.
		scheduled := alice.call(co+"SetInspectionSchedule", map[string]any{"documentId": id, "version": doc["version"], "schedule": map[string]any{"visitOn": "2026-12-02"}})
		if d := deadline(scheduled["document"].(map[string]any), ruleReport); d == nil || d["state"] != "OPEN" || d["party"] != "acme" {
			t.Fatalf("REPORT_DUE after SCHEDULE: %v", scheduled["document"])
		}
		if got := strings.Join(intents(scheduled), ","); got != "REPORT,ADD_FINDING" {
			t.Fatalf("the guard: after SCHEDULE alice's follow-up intents are %s", got)
		}

		// The report block is pre-filled from the document, as the intent declares.
		if b := scheduled["document"].(map[string]any)["report"].(map[string]any); b["findings"] != "visited 2026-12-02" {
			t.Fatalf("the report block: %v", b)
		}

		// A child, under its parent.
		f := alice.call(co+"CreateFinding", map[string]any{"inspectionId": id, "text": "drums unlabelled"})
		if fd := f["document"].(map[string]any); fd["number"] != "INS-DE-2026-000001-F01" || fd["inspectionId"] != id {
			t.Fatalf("finding: %v", f)
		}
		if got := alice.call(co+"GetInspection", map[string]any{"documentId": id})["document"].(map[string]any)["findingCount"]; fmt.Sprint(got) != "1" {
			t.Fatalf("the parent sees %v findings", got)
		}

		// The operator sees it and may do nothing; a stranger gets 404.
		op := rita.call(co+"GetInspection", map[string]any{"documentId": id})
		if len(intents(op)) != 0 {
			t.Fatalf("the operator's follow-up intents: %v", intents(op))
		}
		if st, _ := eve.try(co+"GetInspection", map[string]any{"documentId": id}); st != http.StatusNotFound {
			t.Fatalf("a stranger reads the inspection: HTTP %d", st)
		}
		list := rita.call(co+"ListDocuments", map[string]any{"qpar": map[string]any{"filter": []any{map[string]any{"path": "kind", "op": "EQUAL", "operands": []any{map[string]any{"s": "INSPECTION"}}}}}})
		if fmt.Sprint(list["total"]) != "1" {
			t.Fatalf("rita's list of inspections: %v", list)
		}

		// The sweep, over the wire: the test clock moves 10 days and the
		// report is OVERDUE; alice's work queue leads with it.
		alice.call("/svc.core.v1.api.TestClockApi/AdvanceTestClock", map[string]any{"days": 10})
		got := alice.call(co+"GetInspection", map[string]any{"documentId": id})
		if d := deadline(got["document"].(map[string]any), ruleReport); d == nil || d["state"] != "OVERDUE" {
			t.Fatalf("REPORT_DUE after 10 days: %v", got["document"])
		}
		queue := alice.call(co+"ListDocuments", map[string]any{"actionable": true})
		entries := queue["entries"].([]any)
		if len(entries) == 0 || entries[0].(map[string]any)["documentId"] != id ||
			entries[0].(map[string]any)["nextDeadline"].(map[string]any)["state"] != "OVERDUE" {
			t.Fatalf("alice's work queue: %v", queue)
		}
		rep := alice.call("/svc.core.v1.api.DeadlineReportApi/ListDeadlines", map[string]any{"qpar": map[string]any{"filter": []any{
			map[string]any{"path": "kind", "op": "EQUAL", "operands": []any{map[string]any{"s": "INSPECTION"}}}}}})
		if !strings.Contains(fmt.Sprint(rep), "OVERDUE") {
			t.Fatalf("the deadline report: %v", rep)
		}

		// SetByIntent with the document as GetDocument returned it.
		container := alice.call("/svc.bxa.diwass.v1.api.CompanyDocumentApi/GetDocument", map[string]any{"documentId": id})["document"].(map[string]any)
		retrieved := container["inspection"].(map[string]any)
		retrieved["report"] = map[string]any{"findings": "two drums unlabelled"}
		closed := alice.call(co+"SetByIntent", map[string]any{"intent": "REPORT", "document": map[string]any{"inspection": retrieved}})
		cd := closed["document"].(map[string]any)["inspection"].(map[string]any)
		if cd["state"] != "CLOSED" || cd["findings"] != "two drums unlabelled" || deadline(cd, ruleReport)["state"] != "MET_LATE" {
			t.Fatalf("after REPORT through SetByIntent: %v", closed)
		}
		if st, m := alice.try(co+"CreateFinding", map[string]any{"inspectionId": id, "text": "late"}); st != http.StatusBadRequest {
			t.Fatalf("a finding of a closed inspection: HTTP %d %v", st, m)
		}

		// The register: a kind of its own, by default and when asked for.
		for _, kinds := range [][]string{nil, {"INSPECTION"}} {
			exp := alice.call(co+"ExportRegister", map[string]any{"from": "2026-12-01", "to": "2026-12-31", "kinds": kinds})
			var got map[string]any
			for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
				if got = alice.call(co+"GetRegisterExport", map[string]any{"exportId": exp["exportId"]}); got["state"] == "DONE" || time.Now().After(deadline) {
					break
				}
			}
			file, _ := base64.StdEncoding.DecodeString(fmt.Sprint(got["document"]))
			if got["state"] != "DONE" || !bytes.Contains(file, []byte("INS-DE-2026-000001,")) || !bytes.Contains(file, []byte("2026-12-02")) ||
				!bytes.Contains(file, []byte(",Site inspection,")) { // the kind's own words
				t.Fatalf("the register with kinds %v: %v %v\n%s", kinds, got["state"], got["error"], file)
			}
		}
	})
}
