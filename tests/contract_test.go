package tests

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestContractThroughPrism sends the guides' walk-throughs and the flows
// of the end-to-end tests through Stoplight Prism's validating proxy
// (tools/prism) and fails on every violation it reports, of a request the
// server took or of any answer, success or error. kin-openapi checks the
// same exchanges (validateRecorded); Prism checks them as JSON Schema
// (ajv), as most clients' tooling reads the description.
//
// Every flow gets a fresh server (its own database and clock) behind one
// Prism: Prism's upstream is a switch that forwards to the flow's server.
//
// What cannot go through Prism 5 is left to the other tests (kin-openapi):
// an answer with HTTP 501 (Prism takes it for "not implemented" upstream
// and answers a mock of its own), routes the description does not have
// (404 for an unknown path; Prism only warns and forwards), and bodies over
// Prism's 10 MB (413).
func TestContractThroughPrism(t *testing.T) {
	if testing.Short() {
		t.Skip("the Prism contract test starts Node.js; skipped in -short mode")
	}
	prismBinary(t) // skips (or fails under CI) before anything starts
	t.Parallel()   // its own server and database; waits on I/O, so it runs beside others
	first := startDocs(t, dbtest.SQLite(t))
	var upstream atomic.Pointer[url.URL]
	// The switch has a transport of its own (no other test's idle
	// connections, no connection kept to a flow's server once it stopped).
	tr := &http.Transport{DisableKeepAlives: true, ResponseHeaderTimeout: time.Minute}
	sw := httptest.NewServer(&httputil.ReverseProxy{Transport: tr, Rewrite: func(r *httputil.ProxyRequest) {
		r.SetURL(upstream.Load())
		r.Out.Host = r.In.Host
	}})
	t.Cleanup(sw.Close)
	p := startPrism(t, fetchSpec(t, first.url), sw.URL)

	// flow runs fn on a fresh server whose traffic goes through Prism,
	// then checks what Prism said of it.
	flow := func(name string, fn func(t *testing.T, d *docEnv)) {
		t.Run(name, func(t *testing.T) {
			d := startDocs(t, dbtest.SQLite(t))
			u, _ := url.Parse(d.url)
			upstream.Store(u)
			from := p.through(t, d.env)
			t.Cleanup(func() {
				p.check(t, d.env, from)
				if t.Failed() { // what Prism said last: a request it did not answer shows here
					lines := strings.Split(strings.TrimSpace(p.output()), "\n")
					t.Logf("Prism's log, its last lines:\n%s", strings.Join(lines[max(0, len(lines)-30):], "\n"))
				}
			})
			fn(t, d)
		})
	}

	flow("gateway and auth", contractAuth)
	flow("notification", contractNotification)
	flow("movement", contractMovement)
	flow("annex VII", contractAnnex7)
	flow("transport documents and the store", contractTransport)
	flow("deadline reports and group notifications", contractDeadlines)
	flow("signing processes", contractSigning)
	flow("lists and work queues", listsFlow)
	flow("work queues through a lifecycle", workQueueFlow)
	flow("test clocks", clockFlow)
	p.checkLog(t)
}

// contractAuth: docs/integrators.md's first call and logging in.
func contractAuth(t *testing.T, d *docEnv) {
	get := func(path string, headers map[string]string) (int, map[string]any) {
		st, m, raw := d.authEnv.get(t, path, headers)
		if st == 0 {
			t.Fatalf("GET %s: %s", path, raw)
		}
		return st, m
	}
	if st, _ := get("/svc.core.v1.api.DiscoveryApi/ListProvider", nil); st != 200 {
		t.Fatalf("ListProvider: %d", st)
	}
	// No call here answers 501 (a missing provider_id, a wrong verb): see
	// TestContractThroughPrism. TestGateway checks those answers.
	st, _, raw := d.post(t, opLogin, hdr("dev-1", ""), map[string]any{
		"usernameCredentials": map[string]string{"username": "alice", "password": "wrong-password-1"}, "appToken": appUI})
	wantError(t, 401, 16, st, raw)

	rt := d.login(t, "dev-1", "alice", "alice-password-1", appUI)
	at, rt := d.access(t, "dev-1", rt)
	if st, m := get(opSession, hdr("dev-1", at)); st != 200 || len(m["sessions"].([]any)) != 1 {
		t.Fatalf("ListSessions: %d %v", st, m)
	}
	st, m, raw := d.post(t, "/svc.core.v1.api.AuthApi/IssueClientId", hdr("dev-1", at), map[string]any{"description": "nightly export"})
	if st != 200 {
		t.Fatalf("IssueClientId: %d %s", st, raw)
	}
	if st, _ := get("/svc.core.v1.api.AuthApi/ListClientIds", hdr("dev-1", at)); st != 200 {
		t.Fatalf("ListClientIds: %d", st)
	}
	d.post(t, "/svc.core.v1.api.AuthApi/RevokeClientId", hdr("dev-1", at), map[string]any{"clientId": m["clientId"]})
	st, _, raw = d.post(t, "/svc.core.v1.api.AuthApi/RevokeClientId", hdr("dev-1", at), map[string]any{"clientId": m["clientId"]})
	if st != 200 && st != 404 {
		t.Fatalf("RevokeClientId again: %d %s", st, raw)
	}

	// The viewer app lacks usermgt: 403.
	viewer, _ := d.access(t, "dev-1", d.login(t, "dev-1", "alice", "alice-password-1", appViewer))
	st, _ = get(opSession, hdr("dev-1", viewer))
	if st != 403 {
		t.Fatalf("ListSessions without usermgt: %d", st)
	}
	// Another session of alice's, revoked by its refresh token.
	other := d.login(t, "dev-1", "alice", "alice-password-1", appUI)
	st, _, raw = d.post(t, opRevoke, hdr("dev-1", at), map[string]any{"refreshToken": other})
	if st != 200 {
		t.Fatalf("RevokeRefreshToken: %d %s", st, raw)
	}
	creds := map[string]string{"username": "bob", "password": "bob-password-12"}
	st, _, raw = d.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds, "newPassword": "bobs-new-password"})
	if st != 200 {
		t.Fatalf("ChangePassword: %d %s", st, raw)
	}
	st, _, raw = d.post(t, opChange, hdr("dev-1", ""), map[string]any{"usernameCredentials": creds, "newPassword": "bobs-newer-password"})
	wantError(t, 401, 16, st, raw)
	// No token, a refresh token used twice: 401.
	st, _, raw = d.post(t, co+"CreateSubmission", hdr("dev-1", ""), map[string]any{"notification": content()})
	wantError(t, 401, 16, st, raw)
	if st, _, raw = d.post(t, opAccess, hdr("dev-1", rt), nil); st != 200 {
		t.Fatalf("RequestAccess with the next refresh token: %d %s", st, raw)
	}
	st, _, raw = d.post(t, opAccess, hdr("dev-1", rt), nil)
	wantError(t, 401, 16, st, raw)

	for _, path := range []string{"/healthz", "/readyz", "/.well-known/jwks.json", "/workflows/notification.mmd", "/workflows/movement.dot"} {
		if st, _, raw := d.do(t, call{method: http.MethodGet, path: path}); st != 200 {
			t.Fatalf("%s: %d %.200s", path, st, raw)
		}
	}
}

// contractNotification: a notification filed, acknowledged, questioned,
// consented, changed after consent and closed (docs/integrators.md's "Prior written
// notifications"), through the specific operations and SetByIntent, with
// the refusals on the way.
func contractNotification(t *testing.T, d *docEnv) {
	doc := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content(), "metadata": map[string]any{
		"additionalData":  map[string]any{"erpOrder": "4711"},
		"fileAttachments": []any{map[string]any{"name": "analysis.pdf", "mediaType": "application/pdf", "reference": "s3://bucket/analysis.pdf", "size": "1024"}},
	}})
	id := doc["id"].(string)
	d.get(t, "alice", id)

	// Business rejections are answers: HTTP 200 with businessErrors.
	bad := content()
	bad["recoveryDisposalCodes"] = []any{"R14"}
	if st, m, raw := d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": bad}); st != 200 || len(m["businessErrors"].([]any)) != 1 {
		t.Fatalf("business error: %d %s", st, raw)
	}
	st, _, raw := d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "version": "7", "notification": content()})
	wantError(t, 409, 10, st, raw)
	st, _, raw = d.call(t, "alice", co+"GetNotification", map[string]any{"documentId": "ntf_nope"})
	wantError(t, 404, 5, st, raw)
	st, _, raw = d.call(t, "rita", co+"SetSubmission", map[string]any{"documentId": id, "notification": content()})
	wantError(t, 404, 5, st, raw) // a draft is the notifier's alone

	// Filed through SetByIntent with the container GetDocument returned.
	st, m, raw := d.call(t, "alice", co+"GetDocument", map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("GetDocument: %d %s", st, raw)
	}
	container := m["document"].(map[string]any)
	container["notification"].(map[string]any)["notification"] = content()
	doc = d.ok(t, "alice", co+"SetByIntent", map[string]any{"document": container, "intent": "SUBMISSION"})["notification"].(map[string]any)
	if doc["state"] != "SUBMITTED" {
		t.Fatalf("submitted by intent: %v", doc["state"])
	}
	st, _, raw = d.call(t, "bernd", au+"SubmitAcknowledgement", map[string]any{"documentId": id, "acknowledgement": map[string]any{}})
	wantError(t, 403, 7, st, raw)
	st, _, raw = d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
	wantError(t, 400, 9, st, raw)

	// The authority acknowledges through its SetByIntent with its GetDocument's container.
	st, m, raw = d.call(t, "noor", au+"GetDocument", map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("authority GetDocument: %d %s", st, raw)
	}
	container = m["document"].(map[string]any)
	container["notification"].(map[string]any)["acknowledgement"] = map[string]any{"remarks": "received"}
	d.ok(t, "noor", au+"SetByIntent", map[string]any{"document": container, "intent": "ACKNOWLEDGEMENT"})

	d.clock.Advance(10 * 24 * time.Hour)
	d.ok(t, "bernd", au+"SetRequestInformation", map[string]any{"documentId": id, "requestInformation": map[string]any{"questions": []string{"analysis?"}}})
	d.ok(t, "alice", co+"SetReplyToRequestInformation", map[string]any{"documentId": id, "replyToRequestInformation": map[string]any{"answers": []string{"attached"}, "complete": true}})
	d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})
	d.ok(t, "noor", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT_WITH_CONDITIONS", "conditions": []string{"sealed drums"}, "validUntil": "2027-03-31"}})
	d.ok(t, "bart", au+"SetDecision", map[string]any{"documentId": id, "decision": map[string]any{"type": "CONSENT"}})

	// A change after consent: the proposed terms are set while it is open.
	doc = d.ok(t, "alice", co+"SetRequestForChangeAfterConsent", map[string]any{"documentId": id, "requestForChange": map[string]any{"proposed": proposal(newCarrier), "reason": "bankruptcy"}})
	if doc["proposedTerms"] == nil {
		t.Fatalf("change requested without proposed terms: %v", doc["state"])
	}
	d.get(t, "alice", id)
	for _, u := range []string{"bernd", "bart", "noor"} {
		d.ok(t, u, au+"ReplyToRequestForChangeAfterConsent", map[string]any{"documentId": id, "replyToRequestForChange": map[string]any{"result": "ACCEPTED"}})
	}
	d.ok(t, "noor", au+"SubmitNotificationSignal", map[string]any{"documentId": id, "notificationSignal": map[string]any{"type": "REVALIDATION", "validUntil": "2027-06-30"}})
	d.ok(t, "bernd", au+"SubmitNotificationSignal", map[string]any{"documentId": id, "notificationSignal": map[string]any{"type": "CLOSURE"}})
	d.get(t, "noor", id)

	// Another draft, withdrawn by its author through SetByIntent; an objection.
	draft := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})
	draft["withdrawal"] = map[string]any{"reason": "misspelt consignee"}
	d.ok(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": draft}, "intent": "WITHDRAWAL"})
	d.get(t, "alice", draft["id"].(string))
	objected := d.submitted(t)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": objected})
	st, _, raw = d.call(t, "bernd", au+"SetDecision", map[string]any{"documentId": objected, "decision": map[string]any{"type": "OBJECTION"}})
	wantMissing(t, st, raw, "decision.grounds")
	d.ok(t, "bernd", au+"SetDecision", map[string]any{"documentId": objected, "decision": map[string]any{"type": "OBJECTION", "grounds": "Art. 11(1)(a)"}})
	d.get(t, "alice", objected)
}

// contractMovement: a movement under a consent from its template to its
// completion (docs/integrators.md's movements).
func contractMovement(t *testing.T, d *docEnv) {
	pending := d.submitted(t)
	st, _, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": pending, "movementTemplate": template("2026-12-07", 10)})
	wantError(t, 400, 9, st, raw)

	nid := d.consented(t, shippable(3))
	tmpl := template("2026-12-07", 40)
	tmpl["actualQuantity"] = map[string]any{"tonnes": map[string]any{"units": "100", "nanos": 1}}
	if st, m, raw := d.call(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": tmpl}); st != 200 || len(m["businessErrors"].([]any)) != 1 {
		t.Fatalf("over the total: %d %s", st, raw)
	}
	mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})
	id := mv["id"].(string)
	d.get(t, "alice", nid)
	d.movement(t, "alice", id)
	st, _, raw = d.call(t, "eve", co+"GetMovement", map[string]any{"documentId": id})
	wantError(t, 404, 5, st, raw)
	if st, m, raw := d.call(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id}); st != 200 || m["movement"] == nil {
		t.Fatalf("acknowledge the movement: %d %s", st, raw)
	}
	d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": template("2026-12-07", 45)})

	d.advanceTo(t, "2026-12-07")
	d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-07", "vehicleId": "M-XY 123"}})
	d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": id, "movementSignal": map[string]any{"type": "REQUEST_CORRECTION", "reason": "packaging is bulk"}})
	changed := template("2026-12-07", 45)
	changed["packagingTypes"] = []any{"BULK"}
	d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": id, "movementTemplate": changed})
	d.advance(24 * time.Hour)
	d.ok(t, "sam", co+"SetCarrierTransport", map[string]any{"documentId": id, "carrierTransport": map[string]any{"takenOverOn": "2026-12-08"}})
	d.ok(t, "rita", co+"SetConsigneeReception", map[string]any{"documentId": id, "consigneeReception": map[string]any{"receivedOn": "2026-12-08", "quantity": map[string]any{"tonnes": map[string]any{"units": "45"}}}})
	d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": id, "facilityReception": map[string]any{"receivedOn": "2026-12-08", "quantity": map[string]any{"tonnes": map[string]any{"units": "45"}}}})
	d.ok(t, "rita", co+"SetFacilityCompletion", map[string]any{"documentId": id, "facilityCompletion": map[string]any{"completedOn": "2026-12-08", "operationCode": "R4"}})
	st, m, raw := d.call(t, "bart", au+"GetDocument", map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("authority GetDocument of a movement: %d %s", st, raw)
	}
	st, _, raw = d.call(t, "bart", au+"SetByIntent", map[string]any{"document": m["document"], "intent": "MOVEMENT_SIGNAL"})
	wantError(t, 400, 9, st, raw)
	d.get(t, "alice", nid)

	// A rejected shipment, taken back.
	other := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-14", 20)})["id"].(string)
	d.advanceTo(t, "2026-12-14")
	d.ok(t, "tom", co+"SetCarrierTransport", map[string]any{"documentId": other, "carrierTransport": map[string]any{"takenOverOn": "2026-12-14"}})
	d.ok(t, "rita", co+"SetFacilityReception", map[string]any{"documentId": other, "facilityReception": map[string]any{
		"receivedOn": "2026-12-14", "rejected": true, "reason": "contaminated", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
	d.ok(t, "bernd", au+"SetMovementTakeBack", map[string]any{"documentId": other, "takeBack": map[string]any{"reason": "refused by the facility"}})
	d.ok(t, "bernd", au+"SubmitMovementSignal", map[string]any{"documentId": other, "movementSignal": map[string]any{"type": "CONFIRM"}})
	d.movement(t, "alice", other)
}

// contractAnnex7: an Annex VII announcement from draft to completion (the
// docs/integrators.md's Annex VII documents).
func contractAnnex7(t *testing.T, d *docEnv) {
	doc := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
	id := doc["id"].(string)
	st, _, raw := d.call(t, "noor", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
	wantError(t, 403, 7, st, raw)
	late := announcement()
	late["actualDateOfShipment"] = "2026-12-02"
	d.businessError(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "annex7": late}, "PRIOR_NOTICE_TOO_LATE", "1")
	d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": id, "version": "1", "annex7": announcement()})
	d.annex7(t, "tom", id)
	if st, _, raw := d.call(t, "bernd", au+"GetDocument", map[string]any{"documentId": id}); st != 200 {
		t.Fatalf("authority GetDocument: %d %s", st, raw)
	}
	d.advance(3 * 24 * time.Hour) // Friday 2026-12-04
	d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
	st, _, raw = d.call(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": id, "carrierTransfer": map[string]any{"transferDate": "2026-12-04"}})
	wantError(t, 400, 9, st, raw)
	d.advance(3 * 24 * time.Hour) // Monday 2026-12-07
	d.ok(t, "rita", co+"SetAnnex7ConsigneeCertificate", map[string]any{"documentId": id,
		"consigneeCertificate": map[string]any{"receivedOn": "2026-12-07", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
	d.ok(t, "rita", co+"SetAnnex7FacilityCertificate", map[string]any{"documentId": id,
		"facilityCertificate": map[string]any{"receivedOn": "2026-12-07", "quantity": map[string]any{"tonnes": map[string]any{"units": "20"}}}})
	st, m, raw := d.call(t, "rita", co+"GetDocument", map[string]any{"documentId": id})
	if st != 200 {
		t.Fatalf("GetDocument: %d %s", st, raw)
	}
	container := m["document"].(map[string]any)
	container["annex7"].(map[string]any)["certificateOfCompletion"].(map[string]any)["completedOn"] = "2026-12-07"
	d.ok(t, "rita", co+"SetByIntent", map[string]any{"document": container, "intent": "CERTIFICATE_OF_COMPLETION"})
	d.annex7(t, "alice", id)

	// A take-back of another shipment.
	c := announcement()
	c["actualDateOfShipment"] = "2026-12-10"
	other := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": c})["id"].(string)
	d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": other, "annex7": c})
	d.advanceTo(t, "2026-12-10")
	d.ok(t, "tom", co+"SetAnnex7CarrierTransfer", map[string]any{"documentId": other, "carrierTransfer": map[string]any{"transferDate": "2026-12-10"}})
	d.ok(t, "alice", co+"SetAnnex7TakeBack", map[string]any{"documentId": other, "takeBack": map[string]any{"reason": "contaminated load"}})
	d.annex7(t, "alice", other)
}

// contractTransport: BmuDocumentApi (create, read, update, layers) and the
// document store with its inboxes (docs/transport-documents.md's notes and
// "Document store, inboxes and templates").
func contractTransport(t *testing.T, d *docEnv) {
	_, x := d.bmuOK(t, "CreateDocument", map[string]any{"document": fullBGS(t)})
	d.bmuOK(t, "GetDocument", map[string]any{"docXml": x})
	d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{"menge": map[string]any{"value": map[string]any{"units": "12", "nanos": 380000000}}}}})
	if st, _, raw := d.bmu(t, "GetValidSignaturePositions", map[string]any{"docXml": x}); st != 200 {
		t.Fatalf("GetValidSignaturePositions: %d %s", st, raw)
	}
	incomplete := fullBGS(t)
	delete(incomplete["bgs"].(map[string]any), "nachweisnummer")
	st, m, raw := d.bmu(t, "CreateDocument", map[string]any{"document": incomplete})
	violations(t, st, m, raw) // CANCELLED (499) with the missing fields
	d.bmuOK(t, "CreateDocument", map[string]any{"document": incomplete, "xmlOptions": map[string]any{"validation": "VALIDATION_NONE"}})
	_, y := d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
	st, _, raw = d.bmu(t, "AddLayer", map[string]any{"docXml": y, "layerType": "ERZEUGER"})
	wantError(t, 400, 9, st, raw)

	// The store: a note from the template through three parties' inboxes.
	d.okAs(t, "alice", queryAPI+"ListTransportTemplates", map[string]any{})
	st, tm, raw := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
	if st != 200 {
		t.Fatalf("export template: %d %.300s", st, raw)
	}
	_, x = d.bmuAs(t, "alice", "CreateDocumentFromTemplate", map[string]any{"templateXml": b64(t, tm["document"])})
	_, x = d.bmuAs(t, "alice", "UpdateDocument", map[string]any{"docXml": x, "document": completeNote()})
	imp := d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x})
	in := d.inbox(t, "tom", nil)
	if len(in) != 1 {
		t.Fatalf("carrier's inbox: %v", in)
	}
	d.okAs(t, "tom", docAPI+"SetInboxDocumentsRead", map[string]any{"ids": []string{in[0]["id"].(string), "ib_nope"}})
	d.okAs(t, "tom", docAPI+"ListInbox", map[string]any{})
	st, em, raw := d.getAs(t, "tom", docAPI+"ExportCurrentDocument?docId.id="+in[0]["id"].(string))
	if st != 200 {
		t.Fatalf("carrier's export: %d %.200s", st, raw)
	}
	_, y = d.bmuAs(t, "tom", "AddLayer", map[string]any{"docXml": b64(t, em["document"]), "layerType": "BEFOERDERER"})
	_, y = d.bmuAs(t, "tom", "UpdateDocument", map[string]any{"docXml": y, "document": map[string]any{"bgs": map[string]any{
		"befoerderer": []any{map[string]any{"uebernahmeDatum": inLayer("2026-12-02")}}}}})
	d.okAs(t, "tom", docAPI+"ImportTransportDocument", map[string]any{"document": y, "dekadenmeldung": map[string]any{"value": true}})
	in = d.inbox(t, "dora", map[string]any{"filter": []any{map[string]any{"path": "sender", "op": "EQUAL", "operands": []any{map[string]any{"s": "truck"}}}}})
	_, em, _ = d.getAs(t, "dora", docAPI+"ExportCurrentDocument?docId.id="+in[0]["id"].(string))
	_, z := d.bmuAs(t, "dora", "AddLayer", map[string]any{"docXml": b64(t, em["document"]), "layerType": "ENTSORGER"})
	_, z = d.bmuAs(t, "dora", "UpdateDocument", map[string]any{"docXml": z, "document": map[string]any{"bgs": map[string]any{
		"entsorger": map[string]any{"annahmeDatum": inLayer("2026-12-03")}}}})
	d.okAs(t, "dora", docAPI+"ImportTransportDocument", map[string]any{"document": z})
	d.okAs(t, "dora", docAPI+"ImportTransportDocument", map[string]any{"document": z, "cancel": map[string]any{"value": true}})
	reports := d.inbox(t, "bernd", nil)
	d.okAs(t, "dora", queryAPI+"ListTransportDocuments", map[string]any{})
	d.okAs(t, "bernd", docAPI+"RemoveDocumentsFromInbox", map[string]any{"ids": []string{reports[0]["id"].(string)}})
	for _, path := range []string{"/svc.core.preview.api.PreviewApi/ListTransportDocument", "/svc.core.preview.api.PreviewApi/ListTransportTemplates"} {
		if st, _, raw := d.getAs(t, "alice", path); st != 200 {
			t.Fatalf("%s: %d %.300s", path, st, raw)
		}
	}
	st, _, raw = d.getAs(t, "eve", docAPI+"ExportCurrentDocument?docId.id="+imp["docId"].(map[string]any)["id"].(string))
	wantError(t, 404, 5, st, raw)
}

// contractDeadlines: the deadline reports and the notifier's groups (the
// docs/compliance.md's deadlines).
func contractDeadlines(t *testing.T, d *docEnv) {
	st, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE", "DEADLINE_DUE_SOON"}})
	if st != 200 {
		t.Fatalf("register: %d %s", st, raw)
	}
	st, _, raw = d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DEADLINE_OVERDUE"}})
	wantError(t, 409, 6, st, raw)
	d.submitted(t)
	onTime := d.submitted(t)
	d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": onTime})
	d.advance(20 * 24 * time.Hour)
	if _, err := d.notes.Sweep(context.Background(), d.clock.Now()); err != nil {
		t.Fatal(err)
	}
	d.okAs(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
		"filter": []any{map[string]any{"path": "state", "op": "EQUAL", "operands": []any{map[string]any{"s": "OVERDUE"}}}},
		"sort":   []any{map[string]any{"path": "due_at", "direction": "DESC"}}, "pageSize": 10}})
	st, _, raw = d.call(t, "noor", rep+"ListDeadlines", map[string]any{"qpar": map[string]any{
		"filter": []any{map[string]any{"path": "secret_column", "op": "EQUAL", "operands": []any{map[string]any{"s": "x"}}}}}})
	wantError(t, 400, 3, st, raw)
	d.okAs(t, "noor", rep+"GetDeadlineSummary", map[string]any{})
	d.okAs(t, "noor", rep+"GetDeadlineSummary", map[string]any{"asOf": d.clock.Now().Add(-24 * time.Hour).Format(time.RFC3339)})
	st, h, _ := d.do(t, call{method: http.MethodGet, path: rep + "ExportDeadlines?state=OVERDUE", headers: hdr("dev-1", d.token(t, "noor"))})
	if st != 200 || !strings.HasPrefix(h.Get("Content-Type"), "text/csv") {
		t.Fatalf("export: %d %s", st, h.Get("Content-Type"))
	}

	_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
	gt := lg["groupToken"].(string)
	st, m, raw := d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
	if st != 200 {
		t.Fatalf("ListNotifications: %d %s", st, raw)
	}
	d.post(t, ntf+"AckNotifications", hdr("dev-1", gt), map[string]any{"cursor": m["nextCursor"]})
	d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"waitSeconds": 1})
	if st, _, raw := d.authEnv.get(t, grp+"GetGroup", hdr("dev-1", gt)); st != 200 {
		t.Fatalf("GetGroup: %d %s", st, raw)
	}
	if st, _, raw := d.authEnv.get(t, grp+"ListGroups", hdr("dev-1", d.token(t, "noor"))); st != 200 {
		t.Fatalf("ListGroups: %d %s", st, raw)
	}
	st, _, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", d.token(t, "noor")), map[string]any{})
	wantError(t, 401, 16, st, raw)
	d.okAs(t, "noor", grp+"UnregisterGroup", map[string]any{"groupId": g["groupId"]})
}

// contractSigning: the signing service's processes (docs/transport-documents.md's "Signing
// service").
func contractSigning(t *testing.T, d *docEnv) {
	carrier := newSigner(t, "Tom (Spedition Schnell)")
	d.signKeys.add("tom", carrier.key, carrier.cert)
	x := d.carrierNote(t)
	id := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2", "signer": "tom"}))["id"]
	st, _, raw := d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "nobody"})
	wantError(t, 400, 3, st, raw)
	d.okAs(t, "tom", signAPI+"ListSigningProcesses", map[string]any{})
	d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id})
	d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})
	d.okAs(t, "alice", signAPI+"WaitSigningProcess", map[string]any{"processId": id, "waitSeconds": 1})
	d.okAs(t, "alice", signAPI+"GetSigningProcess", map[string]any{"processId": id})
	pid := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2+envelope", "signer": "tom"}))["id"]
	d.okAs(t, "tom", signAPI+"DeclineSigningProcess", map[string]any{"processId": pid, "reason": "wrong vehicle"})
	pid = process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom"}))["id"]
	d.okAs(t, "alice", signAPI+"CancelSigningProcess", map[string]any{"processId": pid})
	st, _, raw = d.call(t, "eve", signAPI+"GetSigningProcess", map[string]any{"processId": pid})
	wantError(t, 404, 5, st, raw)
}
