package tests

import (
	"bytes"
	"encoding/csv"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// connectDIWASS connects the server to a fake DIWASS over loopback HTTP,
// as serve does with the four URLs set: the submission worker on the job
// queue, the announcement's hook, the server's connection recorded with
// the acts. The fixture's companies get the identifiers DIWASS keys
// operators by. Call it before the job queue is worked.
func (d *docEnv) connectDIWASS(t *testing.T) *diwassfake.Fake {
	t.Helper()
	fake := diwassfake.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	t.Cleanup(fake.Release)
	for org, eori := range map[string]string{"acme": "DE123456789012345", "recyc": "NL987654321098765", "truck": "DE234567890123456"} {
		if err := d.db.Model(&models.Organisation{}).Where("id = ?", org).Update("eori", eori).Error; err != nil {
			t.Fatal(err)
		}
	}
	c := &diwass.Client{Endpoints: diwass.Endpoints{Annex7: srv.URL + "/annex7", Operators: srv.URL + "/operators", Ping: srv.URL + "/ping"},
		ClientID: "wasteflow-test", HTTP: &http.Client{}, Timeout: time.Second}
	store := models.NewDIWASSStore(d.db)
	svc := &diwass.Service{Store: store, Jobs: d.queue, Client: c, Acts: d.notes, Log: testLog(),
		Registrar: &diwass.Registrar{Client: c, Store: store, Authority: "DE002"}}
	svc.Register(d.queue)
	d.notes.AfterAct = append(d.notes.AfterAct, svc.OnAct)
	d.notes.Server = map[string]int{shipment.SettingDIWASS: 1}
	return fake
}

// diwassState waits until the document's metadata.diwass is in state and
// returns it.
func (d *docEnv) diwassState(t *testing.T, id, state string) map[string]any {
	t.Helper()
	var x map[string]any
	for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		doc, _ := d.annex7(t, "alice", id)
		if x = doc["metadata"].(map[string]any)["diwass"].(map[string]any); x["state"] == state {
			return x
		}
	}
	t.Fatalf("the exchange of %s did not become %s: %v", id, state, x)
	return nil
}

// Issue 47.3 through the API, on both databases: an Annex VII document
// announced over REST goes to DIWASS (the fake); DIWASS's rejection is on
// the document with DIWASS's text, in the arranger's work queue with
// DIWASS_RESUBMISSION, in a webhook to the arranger's integration and in
// the history; sent again through SetByIntent it gets DIWASS's number,
// which the register shows; the directory shows the companies' DIWASS
// operators.
func TestDIWASSRejectionReachesTheArranger(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		fake := d.connectDIWASS(t)
		d.runWebhooks(t)
		gt := d.hookGroup(t, "alice", "DIWASS_EXCHANGE_CHANGED")
		rcv := newReceiver(t)
		created := d.hook(t, gt, "CreateWebhookEndpoint", map[string]any{"url": rcv.srv.URL + "/hooks", "eventKinds": []string{"DIWASS_EXCHANGE_CHANGED"}})
		rcv.setSecrets(created["secret"].(string))

		id := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		if doc, _ := d.annex7(t, "alice", id); doc["metadata"].(map[string]any)["diwass"].(map[string]any)["state"] != "NOT_CONNECTED" {
			t.Fatalf("a draft's exchange: %v", doc["metadata"])
		}
		// DIWASS refuses the first company it is asked to register.
		fake.Next(diwassfake.Mishap{Status: 400, Fault: "validation: the EORI number is not valid in EOS"})
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": announcement()})
		x := d.diwassState(t, id, "REJECTED")
		if !strings.Contains(x["lastError"].(string), "not sent: DIWASS refused ACME (acme) as an operator: validation: the EORI number is not valid in EOS") || x["documentNumber"] != "" || x["attempts"] != "1" && x["attempts"] != float64(1) {
			t.Fatalf("rejected: %v", x)
		}
		queue, _ := d.list(t, "alice", map[string]any{"actionable": true, "qpar": map[string]any{"pageSize": 500}})
		i := slices.IndexFunc(queue, func(e map[string]any) bool { return e["documentId"] == id })
		if i < 0 || !strings.Contains(string(mustJSON(queue[i])), "DIWASS_RESUBMISSION") {
			t.Fatalf("the arranger's work queue: %s", mustJSON(queue))
		}
		rcv.waitFor(t, "the rejection's webhook", func(ms []message) bool {
			return slices.ContainsFunc(ms, func(m message) bool {
				return m.doc == id && m.accepted && m.kind == "DIWASS_EXCHANGE_CHANGED" && strings.Contains(string(m.body), `"REJECTED"`) && strings.Contains(string(m.body), "not valid in EOS")
			})
		})

		d.byIntent(t, "alice", id, "DIWASS_RESUBMISSION", "diwassResubmission", map[string]any{"comment": "EORI confirmed by customs"})
		x = d.diwassState(t, id, "SENT")
		number, _ := x["documentNumber"].(string)
		if !strings.HasPrefix(number, "GLW.") || x["sentAt"] == nil || x["lastError"] != "" || fake.Received("CreateAnnex7DocumentTypeRequest") != 1 || len(fake.Operators()) != 3 {
			t.Fatalf("sent again: %v, %d requests", x, fake.Received("CreateAnnex7DocumentTypeRequest"))
		}
		st, h, raw := d.call(t, "alice", co+"GetDocumentHistory", map[string]any{"documentId": id})
		if st != 200 {
			t.Fatalf("history: %d %s", st, raw)
		}
		var acts []string
		for _, e := range h["entries"].([]any) {
			acts = append(acts, e.(map[string]any)["intent"].(string))
		}
		if want := []string{"CREATE", "SUBMISSION", "DIWASS_EXCHANGE", "DIWASS_RESUBMISSION", "DIWASS_EXCHANGE"}; !slices.Equal(acts, want) {
			t.Fatalf("the history: %v, want %v", acts, want)
		}
		if !strings.Contains(string(raw), "EORI confirmed by customs") || !strings.Contains(string(raw), "sent to DIWASS: "+number) {
			t.Fatalf("the history's notes: %s", raw)
		}
		// The register: DIWASS's number in its own column, last (German).
		file, _ := d.exported(t, "alice", co, map[string]any{"from": "2026-12-01", "to": "2026-12-31", "language": "de"})
		rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil || rows[0][len(rows[0])-1] != "DIWASS" {
			t.Fatalf("the register's header: %v %v", rows, err)
		}
		if i := slices.IndexFunc(rows, func(r []string) bool { return r[column("diwass")] == number }); i < 0 {
			t.Fatalf("the register does not show %s: %v", number, rows)
		}
		// The companies' operators in the directory, as DIWASS gave them.
		st, o, raw := d.authEnv.get(t, "/svc.core.v1.api.DirectoryApi/GetOrganisation?organisationId=acme", hdr("dev-1", d.token(t, "alice")))
		op, _ := o["organisation"].(map[string]any)["diwass"].(map[string]any)
		if st != 200 || op == nil || op["operatorId"] == "" || op["status"] != "New" || op["identifier"] != "eori:DE123456789012345" || op["linked"] != false {
			t.Fatalf("acme in the directory: %d %s", st, raw)
		}
		st, o, raw = d.authEnv.get(t, "/svc.core.v1.api.DirectoryApi/GetOrganisation?organisationId=auth-de", hdr("dev-1", d.token(t, "alice")))
		if st != 200 || o["organisation"].(map[string]any)["diwass"] != nil {
			t.Fatalf("an authority is no DIWASS operator: %d %s", st, raw)
		}
		if q, _ := d.list(t, "alice", map[string]any{"actionable": true, "qpar": map[string]any{"pageSize": 500}}); strings.Contains(string(mustJSON(q)), "DIWASS_RESUBMISSION") {
			t.Fatalf("sent, it is still in the work queue for DIWASS: %s", mustJSON(q))
		}
	})
}

// byIntent fires intent on an Annex VII document through SetByIntent, as
// the interface has it: the document GetDocument gave, its block filled;
// the intent must be among the caller's follow-ups.
func (d *docEnv) byIntent(t *testing.T, user, id, intent, block string, value map[string]any) map[string]any {
	t.Helper()
	st, m, raw := d.call(t, user, co+"GetDocument", map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("GetDocument: %d %s", st, raw)
	}
	if !strings.Contains(string(mustJSON(m["followUpIntents"])), `"`+intent+`"`) {
		t.Fatalf("%s is not among %s's follow-ups: %s", intent, user, mustJSON(m["followUpIntents"]))
	}
	container := m["document"].(map[string]any)
	container["annex7"].(map[string]any)[block] = value
	return d.ok(t, user, co+"SetByIntent", map[string]any{"document": container, "intent": intent})
}
