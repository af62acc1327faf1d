package tests

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

const (
	co = "/svc.bxa.diwass.v1.api.CompanyDocumentApi/"
	au = "/svc.bxa.diwass.v1.api.AuthorityDocumentApi/"
)

var passwords = map[string]string{
	"alice": "alice-password-1", "rita": "rita-password-1", "eve": "eve-password-12", "bob": "bob-password-12",
	"bernd": "bernd-password-1", "noor": "noor-password-1", "bart": "bart-password-12", "tom": "tom-password-123", "dora": "dora-password-1",
	"sam": "sam-password-123", "nina": "nina-password-12",
}

// docEnv is a server whose access tokens outlive the months the tests move
// the clock through.
type docEnv struct {
	*authEnv
	mu     sync.Mutex
	tokens map[string]string
	// versions holds the version of each document the last answer that
	// carried it said (versionOf); versioned the operations that take one.
	versions  map[string]string
	versioned map[string]bool
}

func startDocs(t testing.TB, dbcfg configs.Database) *docEnv {
	return &docEnv{authEnv: startServer(t, dbcfg, 1000, 100000, 3*365*24*time.Hour), tokens: map[string]string{}}
}

func (d *docEnv) token(t *testing.T, user string) string {
	d.mu.Lock()
	defer d.mu.Unlock()
	if tok, ok := d.tokens[user]; ok {
		return tok
	}
	at, _ := d.access(t, "dev-1", d.login(t, "dev-1", user, passwords[user], appUI))
	d.tokens[user] = at
	return at
}

// advance moves the clock; past the sessions' 30 days it logs in again.
func (d *docEnv) advance(by time.Duration) {
	d.clock.Advance(by)
	d.mu.Lock()
	d.tokens = map[string]string{}
	d.mu.Unlock()
}

// authorities are the fixture's authority accounts.
var authorities = []string{"noor", "bernd", "bart"}

// call posts body as user and decodes the answer. An authority reads a
// kind's document through its own face: a company Get (GetNotification,
// GetAnnex7, GetMovement) as an authority is AuthorityDocumentApi/
// GetDocument, its container unwrapped, so the answer has the company
// Get's shape. An intent sent without a version gets the one the caller
// would send (withVersion); every answer's documents' versions are noted.
func (d *docEnv) call(t *testing.T, user, path string, body any) (int, map[string]any, []byte) {
	t.Helper()
	if slices.Contains(authorities, user) && slices.Contains([]string{co + "GetNotification", co + "GetAnnex7", co + "GetMovement"}, path) {
		st, m, raw := d.post(t, au+"GetDocument", hdr("dev-1", d.token(t, user)), body)
		if st == 200 {
			for _, sub := range m["document"].(map[string]any) {
				if sub != nil {
					m["document"] = sub
				}
			}
		}
		d.learnVersions(m)
		return st, m, raw
	}
	body, implicit := d.withVersion(t, user, path, body)
	for try := 0; ; try++ {
		st, m, raw := d.post(t, path, hdr("dev-1", d.token(t, user)), body)
		if implicit && st == http.StatusConflict && m["code"] == 10.0 && try < 50 {
			// Stale: another party, a chained intent or the sweep changed
			// the document since. A client reads it again and retries.
			body.(map[string]any)["version"] = d.readVersion(t, user, body.(map[string]any)["documentId"].(string), m)
			continue
		}
		d.learnVersions(m)
		return st, m, raw
	}
}

// withVersion gives a call of an operation that takes the document's
// version (every intent operation: DocumentRef.version is required) whose
// body names a document but no version the version the caller would
// send: the one the last answer carrying the document said, else the one
// a GetDocument as user reads. A test about the version (a stale one, a
// missing one) sends its own, and the body goes as it is. The caller's
// map is not changed (scenarios reuse bodies).
func (d *docEnv) withVersion(t *testing.T, user, path string, body any) (any, bool) {
	t.Helper()
	m, ok := body.(map[string]any)
	if !ok || !d.takesVersion(t, path) {
		return body, false
	}
	id, ok := m["documentId"].(string)
	if _, has := m["version"]; has || !ok || id == "" {
		return body, false
	}
	c := make(map[string]any, len(m)+1)
	for k, v := range m {
		c[k] = v
	}
	d.mu.Lock()
	v, known := d.versions[id]
	d.mu.Unlock()
	if !known {
		v = d.readVersion(t, user, id, nil)
	}
	c["version"] = v
	return c, true
}

// takesVersion tells the operations whose request carries a DocumentRef,
// from the server's operation table.
func (d *docEnv) takesVersion(t *testing.T, path string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.versioned == nil {
		d.versioned = map[string]bool{}
		if d.srv != nil {
			for _, o := range d.srv.Operations() {
				// A version of the request itself: SetByIntent's is the
				// document's own, which the scenarios send as read.
				if slices.Contains(versionFields(t, o.Request), "version") {
					d.versioned["/"+o.Package+"."+o.Service+"/"+o.Method] = true
				}
			}
		}
	}
	return d.versioned[path]
}

// readVersion is the document's current version: from a 409's
// VERSION_MISMATCH detail (stale) when there is one, else from a
// GetDocument as user; "1" when user may not read it (the call's refusal
// comes before its version counts).
func (d *docEnv) readVersion(t *testing.T, user, id string, stale map[string]any) string {
	t.Helper()
	if details, ok := stale["details"].([]any); ok {
		for _, x := range details {
			if md, ok := x.(map[string]any)["metadata"].(map[string]any); ok {
				if v, ok := md["currentVersion"].(string); ok {
					return v
				}
			}
		}
	}
	face := co
	if slices.Contains(authorities, user) {
		face = au
	}
	st, m, _ := d.post(t, face+"GetDocument", hdr("dev-1", d.token(t, user)), map[string]any{"documentId": id})
	if st != http.StatusOK {
		return "1"
	}
	d.learnVersions(m)
	d.mu.Lock()
	defer d.mu.Unlock()
	if v, ok := d.versions[id]; ok {
		return v
	}
	return "1"
}

// learnVersions notes the version of every retrieval document an answer
// carries (an object with id, state and version).
func (d *docEnv) learnVersions(m any) {
	switch v := m.(type) {
	case map[string]any:
		id, _ := v["id"].(string)
		ver, _ := v["version"].(string)
		if _, state := v["state"]; id != "" && ver != "" && state {
			d.mu.Lock()
			if d.versions == nil {
				d.versions = map[string]string{}
			}
			d.versions[id] = ver
			d.mu.Unlock()
		}
		for _, x := range v {
			d.learnVersions(x)
		}
	case []any:
		for _, x := range v {
			d.learnVersions(x)
		}
	}
}

// ok calls and requires HTTP 200 without business errors.
func (d *docEnv) ok(t *testing.T, user, path string, body any) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, user, path, body)
	if st != 200 {
		t.Fatalf("%s %s: HTTP %d %s", user, path, st, raw)
	}
	if be := m["businessErrors"].([]any); len(be) > 0 {
		t.Fatalf("%s %s: business errors %v", user, path, be)
	}
	return m["document"].(map[string]any)
}

func content() map[string]any {
	return map[string]any{
		"notifier":  map[string]any{"organisationId": "acme"},
		"consignee": map[string]any{"organisationId": "recyc"},
		"facility":  map[string]any{"organisationId": "recyc", "preConsented": false},
		"producers": []any{map[string]any{"organisationId": "acme"}},
		"carriers":  []any{map[string]any{"organisationId": "truck"}},
		"competentAuthorities": map[string]any{
			"dispatch":    map[string]any{"organisationId": "auth-de"},
			"destination": map[string]any{"organisationId": "auth-nl"},
			"transit":     []any{map[string]any{"organisationId": "auth-be"}},
		},
		"wasteClassifications":  []any{map[string]any{"list": "EU_LIST_OF_WASTE", "code": "16 02 13*"}},
		"recoveryDisposalCodes": []any{"R4"},
		"totalQuantity":         map[string]any{"tonnes": map[string]any{"units": "100", "nanos": 0}},
		"numberOfShipments":     5,
		"shipmentPeriod":        map[string]any{"firstDeparture": "2027-01-10", "lastDeparture": "2027-12-20"},
		"packagingTypes":        []any{"DRUM"},
	}
}

// proposal is content() changed by edit: the proposed terms of a change
// request.
func proposal(edit func(c map[string]any)) map[string]any {
	c := content()
	edit(c)
	return c
}

func carrierOf(content any) any {
	c, ok := content.(map[string]any)
	if !ok {
		return nil
	}
	return c["carriers"].([]any)[0].(map[string]any)["organisationId"]
}

func newCarrier(c map[string]any) { c["carriers"] = []any{map[string]any{"organisationId": "barge"}} }

// submitted creates and files a notification; it returns its id.
func (d *docEnv) submitted(t *testing.T) string {
	t.Helper()
	doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})
	id := doc["id"].(string)
	d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": content()})
	return id
}

func (d *docEnv) get(t *testing.T, user, id string) (map[string]any, []string) {
	t.Helper()
	return d.read(t, user, co+"GetNotification", id)
}

// read calls a kind's Get operation as user: the document and the names of
// its follow-up intents.
func (d *docEnv) read(t *testing.T, user, op, id string) (map[string]any, []string) {
	t.Helper()
	st, m, raw := d.call(t, user, op, map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("get as %s: %d %s", user, st, raw)
	}
	var intents []string
	for _, f := range m["followUpIntents"].([]any) {
		intents = append(intents, f.(map[string]any)["intent"].(string))
	}
	return m["document"].(map[string]any), intents
}

func deadline(doc map[string]any, rule, party string) map[string]any {
	for _, x := range doc["deadlines"].([]any) {
		dl := x.(map[string]any)
		if dl["rule"] == rule && dl["party"] == party && dl["state"] != "CANCELLED" {
			return dl
		}
	}
	return nil
}

func TestNotificationHappyPath(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})
		id := doc["id"].(string)
		if doc["state"] != "DRAFT" || !strings.HasPrefix(doc["number"].(string), "DE-2026-") || doc["version"] != "1" {
			t.Fatalf("created: %v %v %v", doc["state"], doc["number"], doc["version"])
		}
		if _, intents := d.get(t, "alice", id); strings.Join(intents, ",") != "SUBMISSION,WITHDRAWAL" {
			t.Fatalf("draft follow-ups %v", intents)
		}
		doc = d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "version": "1", "notification": content()})
		if doc["state"] != "SUBMITTED" || deadline(doc, "ACKNOWLEDGEMENT_DUE", "auth-nl") == nil {
			t.Fatalf("submitted: %v %v", doc["state"], doc["deadlines"])
		}

		// Only the authority of destination acknowledges; it sees its deadline as dueAt.
		_, m, _ := d.call(t, "noor", co+"GetNotification", map[string]any{"documentId": id})
		fu := m["followUpIntents"].([]any)
		if len(fu) != 2 || fu[0].(map[string]any)["intent"] != "ACKNOWLEDGEMENT" || fu[0].(map[string]any)["dueAt"] == nil {
			t.Fatalf("destination follow-ups: %v", fu)
		}
		st, _, raw := d.call(t, "bernd", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{}})
		wantError(t, 403, 7, st, raw, "AUTHORITY_DESTINATION")
		st, _, raw = d.call(t, "eve", co+"GetNotification", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw)
		st, _, raw = d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		wantError(t, 400, 9, st, raw, "SUBMITTED", "REQUEST_INFORMATION")

		ackAt := d.clock.Now()
		doc = d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "received"}})
		if doc["state"] != "ACKNOWLEDGED" {
			t.Fatalf("acknowledged: %v", doc["state"])
		}
		for _, a := range []string{"auth-de", "auth-nl", "auth-be"} {
			if deadline(doc, "DECISION_DUE", a) == nil {
				t.Fatalf("no DECISION_DUE for %s", a)
			}
		}
		if deadline(doc, "ACKNOWLEDGEMENT_DUE", "auth-nl")["state"] != "MET" {
			t.Fatalf("acknowledgement deadline not met: %v", doc["deadlines"])
		}

		// Information requested after 10 days, answered incompletely, then completely after 7 days.
		d.clock.Advance(10 * 24 * time.Hour)
		doc = d.ok(t, "bernd", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"analysis?"}}})
		if doc["state"] != "INFORMATION_REQUESTED" || deadline(doc, "DECISION_DUE", "auth-be")["state"] != "SUSPENDED" {
			t.Fatalf("information requested: %v %v", doc["state"], doc["deadlines"])
		}
		d.clock.Advance(3 * 24 * time.Hour)
		doc = d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"soon"}, "complete": false}})
		if doc["state"] != "INFORMATION_REQUESTED" || deadline(doc, "DECISION_DUE", "auth-de")["state"] != "SUSPENDED" {
			t.Fatalf("after incomplete reply: %v", doc["state"])
		}
		d.clock.Advance(4 * 24 * time.Hour)
		doc = d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
		if doc["state"] != "ACKNOWLEDGED" {
			t.Fatalf("after complete reply: %v", doc["state"])
		}
		dl := deadline(doc, "DECISION_DUE", "auth-de")
		want := calendar.AddCalendarDays(calendar.Place{Country: "DE", Region: "BY"}, ackAt, 37)
		if dl["state"] != "OPEN" || dl["dueAt"] != want.Format(time.RFC3339Nano) {
			t.Fatalf("resumed decision period: %v, want due %s (37 days after acknowledgement)", dl, want.Format(time.RFC3339Nano))
		}

		// Consent by all three.
		d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		st, _, raw = d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		wantError(t, 400, 9, st, raw) // once per authority
		// noor's consent ends sooner than the law's year: the consent ends then, and a revalidation extends it below.
		d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT_WITH_CONDITIONS", "conditions": []string{"sealed drums"}, "validUntil": "2027-03-31"}})
		doc = d.ok(t, "bart", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
		if doc["state"] != "CONSENTED" || deadline(doc, "CONSENT_VALIDITY", "acme") == nil || doc["consentConditions"].([]any)[0] != "sealed drums" {
			t.Fatalf("consented: %v %v %v", doc["state"], doc["consentConditions"], doc["deadlines"])
		}

		// Change after consent: accepted by all, one with conditions.
		doc = d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": proposal(newCarrier), "reason": "bankruptcy"}})
		if doc["state"] != "CHANGE_REQUESTED" || carrierOf(doc["notification"]) != "truck" || carrierOf(doc["proposedTerms"]) != "barge" {
			t.Fatalf("change requested: %v, terms in force %v, proposed %v", doc["state"], doc["notification"], doc["proposedTerms"])
		}
		d.ok(t, "bernd", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		d.ok(t, "bart", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
		doc = d.ok(t, "noor", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED_WITH_CONDITIONS", "conditions": []string{"GPS tracking"}}})
		cr := doc["changeRequests"].([]any)[0].(map[string]any)
		if doc["state"] != "CONSENTED" || cr["outcome"] != "AMENDED" || len(doc["consentConditions"].([]any)) != 2 {
			t.Fatalf("change accepted: %v %v %v", doc["state"], cr, doc["consentConditions"])
		}
		if carrierOf(doc["notification"]) != "barge" || carrierOf(cr["replaced"]) != "truck" || doc["proposedTerms"] != nil ||
			fmt.Sprint(cr["changedFields"]) != "[carriers]" {
			t.Fatalf("the accepted change did not become the terms: in force %v, replaced %v, changed %v", doc["notification"], cr["replaced"], cr["changedFields"])
		}
		d.get(t, "sam", id) // the new carrier is a party now (fails unless 200)

		// Signals: revalidation, then closure.
		doc = d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id, "notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-06-30"}})
		if doc["state"] != "CONSENTED" || doc["consentValidUntil"] != "2027-06-30" {
			t.Fatalf("revalidated: %v %v", doc["state"], doc["consentValidUntil"])
		}
		doc = d.ok(t, "bernd", au+"SubmitNotificationSignal", map[string]any{"documentId": id, "notificationSignal": map[string]any{"type": "CLOSURE"}})
		if doc["state"] != "CLOSED" {
			t.Fatalf("closed: %v", doc["state"])
		}
		if _, intents := d.get(t, "noor", id); len(intents) != 0 {
			t.Fatalf("follow-ups after closure: %v", intents)
		}

		breaks, rows, err := audit.Verify(context.Background(), d.db)
		if err != nil || len(breaks) != 0 || rows != 15 {
			t.Fatalf("audit: %d rows, breaks %v, %v", rows, breaks, err)
		}
	})
}

func TestNotificationRejections(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})
		id := doc["id"].(string)

		t.Run("business rejections change nothing", func(t *testing.T) {
			for code, mutate := range map[string]func(c map[string]any){
				"WASTE_CLASSIFICATION_INVALID_CODE": func(c map[string]any) {
					c["wasteClassifications"] = []any{map[string]any{"list": "EU_LIST_OF_WASTE", "code": "99 99 99"}}
				},
				"RECOVERY_DISPOSAL_CODE_INVALID": func(c map[string]any) { c["recoveryDisposalCodes"] = []any{"R14"} },
				"PARTY_UNKNOWN": func(c map[string]any) {
					c["consignee"] = map[string]any{"organisationId": "auth-nl"} // an authority as consignee
				},
			} {
				c := content()
				mutate(c)
				st, m, raw := d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
				if st != 200 {
					t.Fatalf("%s: HTTP %d %s", code, st, raw)
				}
				be := m["businessErrors"].([]any)
				if len(be) != 1 || be[0].(map[string]any)["code"] != code {
					t.Fatalf("%s: business errors %v", code, be)
				}
				if doc := m["document"].(map[string]any); doc["state"] != "DRAFT" || doc["version"] != "1" {
					t.Fatalf("%s: document changed: %v v%v", code, doc["state"], doc["version"])
				}
			}
		})

		t.Run("stale version, unknown document, wrong role, bad blocks", func(t *testing.T) {
			st, _, raw := d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "version": "7", "notification": content()})
			wantError(t, 409, 10, st, raw)
			st, _, raw = d.call(t, "alice", co+"GetNotification", map[string]any{"documentId": "ntf_nope"})
			wantError(t, 404, 5, st, raw)
			st, _, raw = d.call(t, "eve", co+"SetSubmission", map[string]any{"documentId": id, "notification": content()})
			wantError(t, 404, 5, st, raw)
			st, _, raw = d.call(t, "rita", co+"SetSubmission", map[string]any{"documentId": id, "notification": content()})
			wantError(t, 404, 5, st, raw) // a draft is the notifier's alone
			st, _, raw = d.call(t, "noor", co+"CreateSubmission", map[string]any{"notification": content()})
			wantError(t, 403, 7, st, raw)
		})

		t.Run("objection needs grounds and ends in OBJECTED", func(t *testing.T) {
			id := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			st, _, raw := d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "OBJECTION"}})
			wantMissing(t, st, raw, "decision.grounds")
			doc := d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "OBJECTION", "grounds": "Art. 11(1)(a)"}})
			if doc["state"] != "OBJECTED" {
				t.Fatalf("objected: %v", doc["state"])
			}
			if deadline(doc, "DECISION_DUE", "auth-nl")["state"] != "CANCELLED" && deadline(doc, "DECISION_DUE", "auth-nl") != nil {
				t.Fatalf("other decision periods still run: %v", doc["deadlines"])
			}
		})

		t.Run("corrections: replaced before acknowledgement, pending after, acceptance restarts the decision period", func(t *testing.T) {
			id := d.submitted(t)
			c := content()
			c["numberOfShipments"] = 7
			doc := d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
			if doc["notification"].(map[string]any)["numberOfShipments"] != float64(7) || doc["state"] != "SUBMITTED" {
				t.Fatalf("correction before acknowledgement: %v", doc["notification"])
			}
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			d.clock.Advance(5 * 24 * time.Hour)
			c["numberOfShipments"] = 9
			doc = d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
			if doc["notification"].(map[string]any)["numberOfShipments"] != float64(7) || !doc["corrections"].([]any)[0].(map[string]any)["pending"].(bool) {
				t.Fatalf("correction after acknowledgement must wait: %v", doc["corrections"])
			}
			before := deadline(doc, "DECISION_DUE", "auth-de")["dueAt"]
			doc = d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{"remarks": "correction accepted"}})
			after := deadline(doc, "DECISION_DUE", "auth-de")["dueAt"]
			if doc["notification"].(map[string]any)["numberOfShipments"] != float64(9) || before == after {
				t.Fatalf("acceptance: content %v, due before %v after %v", doc["notification"].(map[string]any)["numberOfShipments"], before, after)
			}
		})

		t.Run("tacit consent of a transit authority by the system", func(t *testing.T) {
			id := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
			d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
			if _, err := d.notes.FireSystem(context.Background(), id, "TACIT_CONSENT", engine.Party{Org: "auth-be", Role: "AUTHORITY_TRANSIT"}); err == nil {
				t.Fatal("tacit consent before the period expired")
			}
			d.advance(40 * 24 * time.Hour)
			v, err := d.notes.FireSystem(context.Background(), id, "TACIT_CONSENT", engine.Party{Org: "auth-be", Role: "AUTHORITY_TRANSIT"})
			if err != nil || v.Doc.State != "CONSENTED" {
				t.Fatalf("tacit consent: %v %v", v, err)
			}
			var actor string
			d.db.Raw("SELECT actor FROM audit_events WHERE document_id = ? AND intent = 'TACIT_CONSENT'", id).Scan(&actor)
			if actor != "system" {
				t.Fatalf("audit actor %q, want system", actor)
			}
		})

		t.Run("repeated information requests, then a complete reply", func(t *testing.T) {
			id := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			d.ok(t, "bernd", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"one"}}})
			doc := d.ok(t, "bart", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"two"}}})
			if doc["state"] != "INFORMATION_REQUESTED" || len(doc["informationRequests"].([]any)) != 2 || deadline(doc, "DECISION_DUE", "auth-nl")["state"] != "SUSPENDED" {
				t.Fatalf("second request: %v %v", doc["state"], doc["deadlines"])
			}
			doc = d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"both"}, "complete": true}})
			if doc["state"] != "ACKNOWLEDGED" || deadline(doc, "DECISION_DUE", "auth-nl")["state"] != "OPEN" {
				t.Fatalf("after the reply: %v %v", doc["state"], doc["deadlines"])
			}
		})

		t.Run("a rejected change leaves the consented terms in force", func(t *testing.T) {
			id := d.submitted(t)
			d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
			for _, u := range []string{"bernd", "noor", "bart"} {
				d.ok(t, u, au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT_WITH_CONDITIONS", "conditions": []string{u}}})
			}
			d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": proposal(func(c map[string]any) {
				c["totalQuantity"] = map[string]any{"tonnes": map[string]any{"units": "150", "nanos": 0}}
			})}})
			st, _, raw := d.call(t, "bernd", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "REJECTED"}})
			wantMissing(t, st, raw, "replyToRequestForChange.grounds")
			d.ok(t, "bernd", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "REJECTED", "grounds": "capacity"}})
			d.ok(t, "noor", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED_WITH_CONDITIONS", "conditions": []string{"extra"}}})
			doc := d.ok(t, "bart", au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
			cr := doc["changeRequests"].([]any)[0].(map[string]any)
			if doc["state"] != "CONSENTED" || cr["outcome"] != "UNCHANGED" || len(doc["consentConditions"].([]any)) != 3 {
				t.Fatalf("rejected change: %v %v %v", doc["state"], cr["outcome"], doc["consentConditions"])
			}
			if q := doc["notification"].(map[string]any)["totalQuantity"].(map[string]any)["tonnes"].(map[string]any)["units"]; q != "100" || cr["replaced"] != nil {
				t.Fatalf("a rejected change changed the terms: total %v, replaced %v", q, cr["replaced"])
			}
		})

		t.Run("SetByIntent for a movement document", func(t *testing.T) {
			st, _, raw := d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"id": id, "kind": "MOVEMENT"}, "intent": "CARRIER_TRANSPORT"})
			wantError(t, 400, 9, st, raw)
			st, _, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"id": id, "kind": "NOTIFICATION", "version": 1}, "intent": "DECISION"})
			wantError(t, 400, 9, st, raw)
		})
	})
}

// Each intent through SetByIntent gives what its own operation gives.
func TestSetByIntentMatchesOperations(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		steps := []intentStep{
			{"alice", "SUBMISSION", co + "SetSubmission", "notification", content(), "SUBMITTED"},
			{"noor", "ACKNOWLEDGEMENT", au + "SubmitAcknowledgement", "acknowledgement", map[string]any{"remarks": "ok"}, "ACKNOWLEDGED"},
			{"alice", "CORRECTION", co + "SetSubmission", "notification", proposal(func(c map[string]any) { c["numberOfShipments"] = 7 }), "ACKNOWLEDGED"},
			{"bernd", "REQUEST_INFORMATION", au + "SetRequestInformation", "requestInformation", map[string]any{"questions": []string{"q"}}, "INFORMATION_REQUESTED"},
			{"alice", "REPLY_TO_REQUEST_INFORMATION", co + "SetReplyToRequestInformation", "replyToRequestInformation", map[string]any{"answers": []string{"a"}, "complete": true}, "ACKNOWLEDGED"},
			{"noor", "ACKNOWLEDGEMENT", au + "SubmitAcknowledgement", "acknowledgement", map[string]any{"remarks": "correction accepted"}, "ACKNOWLEDGED"},
			{"bernd", "DECISION", au + "SetDecision", "decision", map[string]any{"type": "CONSENT"}, "ACKNOWLEDGED"},
			{"noor", "DECISION", au + "SetDecision", "decision", map[string]any{"type": "CONSENT"}, "ACKNOWLEDGED"},
			{"bart", "DECISION", au + "SetDecision", "decision", map[string]any{"type": "CONSENT"}, "CONSENTED"},
			{"alice", "REQUEST_FOR_CHANGE_AFTER_CONSENT", co + "SetRequestForChangeAfterConsent", "requestForChange", map[string]any{"proposed": proposal(newCarrier)}, "CHANGE_REQUESTED"},
			{"bernd", "REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT", au + "ReplyToRequestForChangeAfterConsent", "replyToRequestForChange", map[string]any{"result": "REJECTED", "grounds": "no"}, "CHANGE_REQUESTED"},
			{"noor", "NOTIFICATION_SIGNAL", au + "SubmitNotificationSignal", "notificationSignal", map[string]any{"type": "CANCELLATION_OF_CONSENT", "reason": "r"}, "CONSENT_CANCELLED"},
		}
		created := func() string {
			return d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		}
		d.roundTrip(t, "notification", co+"GetNotification", steps, created(), created(), "decisions", "consentConditions", "corrections")
	})
}

// intentStep is one intent fired by a user with its block.
type intentStep struct {
	user, intent, op, block string
	value                   any
	state                   string
}

// roundTrip fires each step on two documents: the specific operation on
// direct, SetByIntent on byIntent with the document a retrieval returned
// and only the block filled in (by turns the kind's own Get, the company's
// deprecated GetDocument and the authority's GetDocument container, sent
// to the company's or the authority's SetByIntent). Both must answer the
// same state, version and the named fields.
func (d *docEnv) roundTrip(t *testing.T, key, getOp string, steps []intentStep, direct, byIntent string, compare ...string) {
	t.Helper()
	for i, s := range steps {
		a := d.ok(t, s.user, s.op, map[string]any{"documentId": direct, s.block: s.value})
		api := au
		if strings.HasPrefix(s.op, co) {
			api = co
		}
		var sent any
		var intents []any
		switch i % 3 {
		case 0: // the kind's Get: a bare document
			st, m, raw := d.call(t, s.user, getOp, map[string]any{"documentId": byIntent})
			if st != 200 {
				t.Fatalf("%s: %d %s", getOp, st, raw)
			}
			doc := m["document"].(map[string]any)
			doc[s.block] = s.value
			sent, intents = doc, m["followUpIntents"].([]any)
		default: // GetDocument's container, from the caller's side (authority accounts only on the authority side)
			get := api + "GetDocument"
			st, m, raw := d.call(t, s.user, get, map[string]any{"documentId": byIntent})
			if st != 200 {
				t.Fatalf("%s: %d %s", get, st, raw)
			}
			container := m["document"].(map[string]any)
			container[key].(map[string]any)[s.block] = s.value
			sent, intents = container, m["followUpIntents"].([]any)
		}
		if !slices.ContainsFunc(intents, func(f any) bool { return f.(map[string]any)["intent"] == s.intent }) {
			t.Fatalf("step %d: %s not in %s's follow-ups %v", i, s.intent, s.user, intents)
		}
		b := d.ok(t, s.user, api+"SetByIntent", map[string]any{"document": sent, "intent": s.intent})[key].(map[string]any)
		for _, k := range append([]string{"state", "version"}, compare...) {
			ja, _ := json.Marshal(a[k])
			jb, _ := json.Marshal(b[k])
			if l, ok := a[k].([]any); ok { // histories: the same number of entries
				ja, jb = []byte(fmt.Sprint(len(l))), []byte(fmt.Sprint(len(b[k].([]any))))
			}
			if string(ja) != string(jb) {
				t.Fatalf("step %d %s: %s differs: operation %s, SetByIntent %s", i, s.intent, k, ja, jb)
			}
		}
		if a["state"] != s.state {
			t.Fatalf("step %d %s: state %v, want %s", i, s.intent, a["state"], s.state)
		}
	}
}

// Twenty authority clients decide on one document at once: every authority
// decides exactly once and the document moves exactly once per decision.
// Each client does what a real one does: reads the document, sends the
// version it read, and on a stale version (409, code 10) reads again and
// tries again, until its decision is taken or refused (400, code 9: its
// authority decided already).
func TestConcurrentDecisionsOnPostgres(t *testing.T) {
	d := startDocs(t, dbtest.Postgres(t))
	id := d.submitted(t)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
	users := []string{"bernd", "noor", "bart"}
	for _, u := range users {
		d.token(t, u)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	codes, stale := map[int]int{}, 0
	start := make(chan struct{})
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := users[i%3]
			<-start
			for try := 0; ; try++ {
				_, doc, _ := d.post(t, au+"GetDocument", hdr("dev-1", d.tokens[user]), map[string]any{"documentId": id})
				version := doc["document"].(map[string]any)["notification"].(map[string]any)["version"]
				st, m, raw := d.post(t, au+"SetDecision", hdr("dev-1", d.tokens[user]), map[string]any{"documentId": id, "version": version, "decision": map[string]any{"type": "CONSENT"}})
				mu.Lock()
				if st == http.StatusConflict && m["code"] == 10.0 && try < 100 {
					stale++
					mu.Unlock()
					continue
				}
				codes[st]++
				mu.Unlock()
				if st != 200 && (st != 400 || m["code"] != 9.0) {
					t.Errorf("%s: %d %.300s", user, st, raw)
				}
				return
			}
		}()
	}
	close(start)
	wg.Wait()
	t.Logf("statuses %v after %d stale versions read again", codes, stale)
	if codes[200] != 3 || codes[200]+codes[400] != 20 {
		t.Fatalf("statuses %v: want exactly 3 applied decisions, the rest 400", codes)
	}
	var decisions int64
	d.db.Raw("SELECT COUNT(*) FROM audit_events WHERE document_id = ? AND intent = 'DECISION'", id).Scan(&decisions)
	doc, _ := d.get(t, "alice", id)
	if decisions != 3 || len(doc["decisions"].([]any)) != 3 || doc["state"] != "CONSENTED" {
		t.Fatalf("%d audited decisions, %d recorded, state %v", decisions, len(doc["decisions"].([]any)), doc["state"])
	}
}

func TestWorkflowDiagramsAndMetadata(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	st, _, raw := d.do(t, call{method: http.MethodGet, path: "/workflows/notification.mmd"})
	if st != 200 || !strings.Contains(string(raw), "DRAFT --> SUBMITTED : SUBMISSION") {
		t.Fatalf("mermaid: %d %s", st, raw)
	}
	st, _, raw = d.do(t, call{method: http.MethodGet, path: "/workflows/notification.dot"})
	if st != 200 || !strings.Contains(string(raw), `"ACKNOWLEDGED" -> "CONSENTED"`) {
		t.Fatalf("dot: %d %s", st, raw)
	}
	doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content(), "metadata": map[string]any{
		"additionalData":  map[string]any{"erpOrder": "4711"},
		"fileAttachments": []any{map[string]any{"name": "analysis.pdf", "mediaType": "application/pdf", "reference": "s3://bucket/analysis.pdf", "size": "1024"}},
	}})
	meta := doc["metadata"].(map[string]any)
	if meta["additionalData"].(map[string]any)["erpOrder"] != "4711" || len(meta["fileAttachments"].([]any)) != 1 {
		t.Fatalf("metadata: %v", meta)
	}
}
