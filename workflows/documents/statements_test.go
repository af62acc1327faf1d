package documents_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	m "github.com/wasteflow/wasteflow/rules/movement"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/movements"
	"github.com/wasteflow/wasteflow/workflows/notifications"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// counter is a gorm logger that records every SQL statement gorm runs
// (Trace is called once per statement: queries, Raw, Exec, Rows). BEGIN,
// COMMIT and ROLLBACK go to the connection directly and are not counted.
type counter struct {
	logger.Interface
	mu   sync.Mutex
	on   bool
	stmt []string
}

func (c *counter) Trace(ctx context.Context, begin time.Time, fc func() (string, int64), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		sql, _ := fc()
		c.stmt = append(c.stmt, sql)
	}
}

func (c *counter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.stmt = true, nil
}

// writes finds a statement that changes rows (a SELECT ... FOR UPDATE
// only locks them: it is a read).
var writes = regexp.MustCompile(`(?i)\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+(\s+\w+)?\s+SET)\b`)

// stop ends the count and returns the statements and how many of them
// only read (SELECT, SELECT ... FOR UPDATE, WITH ... SELECT).
func (c *counter) stop() ([]string, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	reads := 0
	for _, s := range c.stmt {
		if !writes.MatchString(s) {
			reads++
		}
	}
	return c.stmt, reads
}

// as is ctx with the principal of an account of org.
func as(org string) context.Context {
	return reqctx.With(context.Background(), &reqctx.Info{RequestID: "req-" + org, Metadata: map[string][]string{},
		Principal: &reqctx.Principal{AccountID: 1, ProviderID: "p", OrganisationID: org}})
}

func decode[T any](t *testing.T, raw string) *T {
	t.Helper()
	v := new(T)
	if err := json.Unmarshal([]byte(raw), v); err != nil {
		t.Fatal(err)
	}
	return v
}

const shippableContent = `{
	"notifier": {"organisationId": "acme"}, "consignee": {"organisationId": "recyc"}, "facility": {"organisationId": "recyc"},
	"producers": [{"organisationId": "acme"}], "carriers": [{"organisationId": "truck"}],
	"competentAuthorities": {"dispatch": {"organisationId": "de"}, "destination": {"organisationId": "nl"}, "transit": [{"organisationId": "be"}]},
	"wasteClassifications": [{"list": "EU_LIST_OF_WASTE", "code": "16 02 13*"}], "recoveryDisposalCodes": ["R4"],
	"totalQuantity": {"tonnes": {"units": 100}}, "numberOfShipments": 5,
	"shipmentPeriod": {"firstDeparture": "2026-12-01", "lastDeparture": "2027-06-30"}, "packagingTypes": ["DRUM"]}`

// consentedMovement makes a consented notification with one SUBMITTED
// movement through the runner and returns the runner, the statement
// counter on its database and the movement's id.
func consentedMovement(t *testing.T, db *gorm.DB) (*documents.Runner, *counter, string) {
	t.Helper()
	db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"})
	for _, o := range []models.Organisation{
		{ProviderID: "p", ID: "acme", Kind: "company", Country: "DE", Region: "BY"},
		{ProviderID: "p", ID: "recyc", Kind: "company", Country: "NL"},
		{ProviderID: "p", ID: "truck", Kind: "company", Country: "DE"},
		{ProviderID: "p", ID: "de", Kind: "authority", Country: "DE", Region: "BY"},
		{ProviderID: "p", ID: "nl", Kind: "authority", Country: "NL"},
		{ProviderID: "p", ID: "be", Kind: "authority", Country: "BE"},
	} {
		if err := db.Create(&o).Error; err != nil {
			t.Fatal(err)
		}
	}
	c := &counter{Interface: logger.Discard}
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) // a Tuesday
	r, err := documents.New(db.Session(&gorm.Session{Logger: c}), func() time.Time { return now }, notifications.NewKind(), movements.NewKind())
	if err != nil {
		t.Fatal(err)
	}
	content := decode[n.Content](t, shippableContent)
	v, berrs, err := r.Create(as("acme"), notifications.Kind, &notifications.CreateInput{Content: *content})
	if err != nil || len(berrs) > 0 {
		t.Fatalf("create notification: %v %v", berrs, err)
	}
	id := v.Doc.ID
	fire := func(org, intent string, input any) {
		t.Helper()
		if _, berrs, err := r.Fire(as(org), documents.Target{ID: id}, []string{intent}, input); err != nil || len(berrs) > 0 {
			t.Fatalf("%s by %s: %v %v", intent, org, berrs, err)
		}
	}
	fire("acme", notifications.IntentSubmission, content)
	fire("nl", notifications.IntentAcknowledgement, &n.Acknowledgement{})
	fire("acme", notifications.IntentGuarantee, &n.Guarantee{Kind: n.GuaranteeFinancial, Amount: n.Decimal{Units: 250000}, Currency: "EUR",
		Guarantor: "Bank", Reference: "G-1", ValidFrom: "2026-11-01", ValidUntil: "2027-12-31"}) // movements need one (Art. 7)
	fire("de", notifications.IntentGuaranteeApproval, &n.GuaranteeApproval{})
	for _, a := range []string{"de", "nl", "be"} {
		fire(a, notifications.IntentDecision, &n.Decision{Type: n.DecisionConsent})
	}
	tmpl := decode[m.Template](t, `{"actualDateOfShipment": "2026-12-07", "actualQuantity": {"tonnes": {"units": 10}},
		"packagingTypes": ["DRUM"], "carriers": [{"organisationId": "truck", "meansOfTransport": "ROAD"}]}`)
	mv, berrs, err := r.Create(as("acme"), movements.Kind, &movements.CreateInput{NotificationID: id, Template: *tmpl})
	if err != nil || len(berrs) > 0 {
		t.Fatalf("create movement: %v %v", berrs, err)
	}
	return r, c, mv.Doc.ID
}

// A movement's transition, with its notification's list entries (the
// follow-up intents its guards compute from the children: shipments and
// quantity left), is at most 5 statements, 2 of them reads, on
// PostgreSQL: the locks of the notification and the movement, one read of
// both with the notification's other movements, and one write of
// everything that changed. BEGIN and COMMIT are not counted (nor would a
// savepoint be: no request transaction here). The organisations the rules
// ask for are in the runner's cache, as on a busy server; a correction
// (MOVEMENT_TEMPLATE) reads its parties' details anew, one read more.
func TestMovementTransitionStatements(t *testing.T) {
	db := dbtest.Open(t, dbtest.Postgres(t))
	r, c, id := consentedMovement(t, db)
	offered := func() string {
		var intents string
		db.Raw("SELECT intents FROM document_entries e JOIN documents d ON d.id = e.document_id WHERE d.kind = ? AND e.organisation_id = 'acme'",
			notifications.Kind).Scan(&intents)
		return intents
	}
	if !strings.Contains(offered(), movements.IntentCreateMovement) {
		t.Fatalf("the notifier's list does not offer %s: %s", movements.IntentCreateMovement, offered())
	}
	for _, step := range []struct {
		org, intent string
		input       any
	}{
		{"de", movements.IntentAcknowledgement, &n.Acknowledgement{}},
		// The whole notified quantity: the notification offers no more movements.
		{"acme", movements.IntentTemplate, decode[m.Template](t, `{"actualDateOfShipment": "2026-12-07", "actualQuantity": {"tonnes": {"units": 100}},
			"packagingTypes": ["DRUM"], "carriers": [{"organisationId": "truck", "meansOfTransport": "ROAD"}]}`)},
	} {
		c.start()
		_, berrs, err := r.Fire(as(step.org), documents.Target{ID: id, Kinds: []string{movements.Kind}}, []string{step.intent}, step.input)
		stmts, reads := c.stop()
		if err != nil || len(berrs) > 0 {
			t.Fatalf("%s: %v %v", step.intent, berrs, err)
		}
		t.Logf("%s: %d statements, %d reads", step.intent, len(stmts), reads)
		for _, s := range stmts {
			t.Logf("  %.160s", strings.Join(strings.Fields(s), " "))
		}
		maxReads := 2
		if step.intent == movements.IntentTemplate { // a correction reads its parties' details anew (issue 45.1)
			maxReads = 3
		}
		if len(stmts) > 5 || reads > maxReads {
			t.Errorf("%s ran %d statements (%d reads), want at most 5 (%d reads)", step.intent, len(stmts), reads, maxReads)
		}
	}
	if intents := offered(); strings.Contains(intents, movements.IntentCreateMovement) {
		t.Errorf("the notifier's list still offers %s with the quantity used up: %s", movements.IntentCreateMovement, intents)
	}
}
