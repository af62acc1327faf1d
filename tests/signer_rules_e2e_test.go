package tests

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// disposerNote is carrierNote with the carrier's layer signed and an open
// disposer layer (its acceptance date filled in).
func (d *docEnv) disposerNote(t *testing.T) []byte {
	t.Helper()
	carrier := newSigner(t, "Spedition Schnell")
	x := carrier.sign(t, d.carrierNote(t), "layer-2")
	_, x = d.bmuOK(t, "AddLayer", map[string]any{"docXml": x, "layerType": "ENTSORGER"})
	_, x = d.bmuOK(t, "UpdateDocument", map[string]any{"docXml": x, "document": map[string]any{"bgs": map[string]any{
		"entsorger": map[string]any{"annahmeDatum": inLayer("2026-12-03")}}}})
	return x
}

// stateFilter is a qpar selecting processes whose state is one of states.
func stateFilter(states ...string) map[string]any {
	ops := []any{}
	for _, s := range states {
		ops = append(ops, map[string]any{"s": s})
	}
	return map[string]any{"filter": []any{map[string]any{"path": "state", "op": "IN_LIST", "operands": ops}}}
}

var allStates = []string{"CREATED", "OPENED", "SIGNED", "DECLINED", "EXPIRED", "CANCELLED"}

// processes lists user's signing processes as qpar selects them: the rows
// by id, and the total.
func (d *docEnv) processes(t *testing.T, user string, qpar map[string]any) (map[string]map[string]any, string) {
	t.Helper()
	body := map[string]any{}
	if qpar != nil {
		body["qpar"] = qpar
	}
	m := d.okAs(t, user, signAPI+"ListSigningProcesses", body)
	out := map[string]map[string]any{}
	for _, p := range m["processes"].([]any) {
		out[p.(map[string]any)["id"].(string)] = p.(map[string]any)
	}
	return out, fmt.Sprint(m["total"])
}

// Who may be asked: a person of one's own organisation, or of the
// organisation that holds the position being signed by its official
// number in the note. Anyone else is refused (403, code 7, naming the
// rule) and nothing is created.
func TestSignerAskRule(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		carrierLayer := d.carrierNote(t) // layer-2: BEFOERDERER, the carrier E234F56781 (truck)
		disposerLayer := d.disposerNote(t)
		invoice := []byte(`<?xml version="1.0"?><invoice xmlns="urn:example:invoice"><total currency="EUR">1200.00</total></invoice>`)

		allowed := []struct {
			name, signer string
			doc          []byte
			position     string
		}{
			{"the carrier for the carrier's layer", "tom", carrierLayer, "layer-2"},
			{"the carrier for the whole note at its layer", "tom", carrierLayer, "layer-2+envelope"},
			{"a colleague for the carrier's layer", "bob", carrierLayer, "layer-2"},
			{"the disposer for the disposer's layer", "dora", disposerLayer, "layer-3"},
			{"a colleague for any XML", "bob", invoice, ""},
			{"oneself", "alice", carrierLayer, ""},
		}
		for _, c := range allowed {
			p := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": c.doc, "position": c.position, "signer": c.signer}))
			if p["state"] != "CREATED" || p["signer"] != c.signer {
				t.Fatalf("%s: %v", c.name, p)
			}
		}

		refused := []struct {
			name, signer string
			doc          []byte
			position     string
			says         string
		}{
			{"the disposer for the carrier's layer", "dora", carrierLayer, "layer-2", "befoerderer[0].nummer = E234F56781"},
			{"the carrier for the disposer's layer", "tom", disposerLayer, "", "entsorger.nummer = I345G67898"},
			{"a stranger to the note", "eve", carrierLayer, "layer-2", "E234F56781"},
			{"another carrier", "sam", carrierLayer, "layer-2+envelope", "layer-2+envelope (BEFOERDERER, BEF)"},
			{"another organisation for any XML", "tom", invoice, "", "not a BMU note"},
		}
		for _, c := range refused {
			st, m, raw := d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": c.doc, "position": c.position, "signer": c.signer})
			wantError(t, 403, 7, st, raw, "only of a person of your own organisation", "holds the signature position by its official number", c.says)
			if det := m["details"].([]any); len(det) != 1 || det[0].(map[string]any)["reason"] != "SIGNER_NOT_PERMITTED" {
				t.Fatalf("%s: details %v", c.name, det)
			}
		}
		// An unknown person is still a bad argument, not a refusal.
		st, _, raw := d.call(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": carrierLayer, "signer": "nobody"})
		wantError(t, 400, 3, st, raw, "nobody")

		// Nothing was created for the refused: neither they nor the
		// requester see a process of theirs, in any state.
		for _, who := range []string{"eve", "sam"} {
			if got, total := d.processes(t, who, stateFilter(allStates...)); len(got) != 0 || total != "0" {
				t.Fatalf("%s sees %v", who, got)
			}
		}
		mine, total := d.processes(t, "alice", stateFilter(allStates...))
		if total != fmt.Sprint(len(allowed)) {
			t.Fatalf("alice's processes: %s, want %d: %v", total, len(allowed), mine)
		}
		for _, p := range mine {
			if p["signer"] != "tom" && p["signer"] != "bob" && p["signer"] != "dora" && p["signer"] != "alice" {
				t.Fatalf("a refused request left a process: %v", p)
			}
		}
		if got, _ := d.processes(t, "dora", stateFilter(allStates...)); len(got) != 1 {
			t.Fatalf("dora is asked %d times, want once (her own layer): %v", len(got), got)
		}
	})
}

// Who asked, and when: GetSigningProcess, ListSigningProcesses and the
// signing page's OpenSigningProcess name the requesting account and its
// organisation, and createdAt is when it asked.
func TestSignerShowsWhoAsked(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		carrier := newSigner(t, "Tom (Spedition Schnell)")
		d.signKeys.add("tom", carrier.key, carrier.cert)
		x := d.carrierNote(t)
		asked := d.clock.Now().UTC()
		id := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom"}))["id"].(string)
		d.advance(time.Minute)

		check := func(how string, p map[string]any) {
			t.Helper()
			by, _ := p["requestedBy"].(map[string]any)
			if by["username"] != "alice" || by["organisationId"] != "acme" || by["organisationName"] != "ACME" {
				t.Fatalf("%s: requestedBy %v", how, p["requestedBy"])
			}
			at, err := time.Parse(time.RFC3339Nano, fmt.Sprint(p["createdAt"]))
			if err != nil || at.Sub(asked).Abs() > time.Millisecond {
				t.Fatalf("%s: createdAt %v, want %v", how, p["createdAt"], asked)
			}
		}
		check("creator's Get", process(d.okAs(t, "alice", signAPI+"GetSigningProcess", map[string]any{"processId": id})))
		check("signer's Get", process(d.okAs(t, "tom", signAPI+"GetSigningProcess", map[string]any{"processId": id})))
		list, _ := d.processes(t, "tom", nil)
		check("signer's list", list[id])
		list, _ = d.processes(t, "bob", nil) // alice's colleague
		check("colleague's list", list[id])
		check("the signing page", process(d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id})))
		check("signed", process(d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})))
		check("waited for", process(d.okAs(t, "alice", signAPI+"WaitSigningProcess", map[string]any{"processId": id})))
	})
}

// After signing, the signing page's view of the process shows the signed
// document: the layer signed by the signer, or the whole note sealed; any
// other XML as the signed XML.
func TestSignerPageShowsSignedState(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		carrier := newSigner(t, "Tom (Spedition Schnell)")
		d.signKeys.add("tom", carrier.key, carrier.cert)
		x := d.carrierNote(t)

		layer2 := func(o map[string]any) map[string]any {
			t.Helper()
			ls := o["layers"].([]any)
			if len(ls) != 2 {
				t.Fatalf("layers: %v", ls)
			}
			return ls[1].(map[string]any)
		}
		id := process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2", "signer": "tom"}))["id"]
		if l := layer2(d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id})); l["signed"] != false {
			t.Fatalf("before signing: %v", l)
		}
		d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})
		o := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id})
		if l := layer2(o); process(o)["state"] != "SIGNED" || l["signed"] != true || l["signedBy"] != "Tom (Spedition Schnell)" || o["sealed"] != false ||
			!strings.Contains(o["covers"].(string), "layer 2 (BEFOERDERER") {
			t.Fatalf("after signing: %v", o)
		}

		id = process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "position": "layer-2+envelope", "signer": "tom"}))["id"]
		if o := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id}); o["sealed"] != false {
			t.Fatalf("sealed before signing: %v", o)
		}
		d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})
		if o := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id}); o["sealed"] != true || process(o)["state"] != "SIGNED" {
			t.Fatalf("after sealing: %v", o)
		}

		invoice := []byte(`<?xml version="1.0"?><invoice xmlns="urn:example:invoice"><total currency="EUR">1200.00</total></invoice>`)
		id = process(d.okAs(t, "tom", signAPI+"CreateSigningProcess", map[string]any{"document": invoice, "signer": "tom"}))["id"]
		d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": id})
		if o := d.okAs(t, "tom", signAPI+"OpenSigningProcess", map[string]any{"processId": id}); !strings.Contains(o["xml"].(string), "SignatureValue") {
			t.Fatalf("the signed invoice: %v", o)
		}
	})
}

// Ended processes stay listable: without a filter on state the list keeps
// those that have not ended; a filter on state selects among all, for the
// requester's organisation and for the signer; paging and totals hold.
func TestSignerListsEndedProcesses(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		carrier := newSigner(t, "Tom (Spedition Schnell)")
		d.signKeys.add("tom", carrier.key, carrier.cert)
		x := d.carrierNote(t)
		create := func(ttl int) string {
			t.Helper()
			d.clock.Advance(time.Second) // one after the other
			return process(d.okAs(t, "alice", signAPI+"CreateSigningProcess", map[string]any{"document": x, "signer": "tom", "expiresInSeconds": ttl}))["id"].(string)
		}
		expired := create(60)
		signed, declined, cancelled, open := create(0), create(0), create(0), create(0)
		d.okAs(t, "tom", signAPI+"SignSigningProcess", map[string]any{"processId": signed})
		d.okAs(t, "tom", signAPI+"DeclineSigningProcess", map[string]any{"processId": declined, "reason": "wrong vehicle"})
		d.okAs(t, "alice", signAPI+"CancelSigningProcess", map[string]any{"processId": cancelled})
		d.advance(2 * time.Minute) // the first one expires unseen: the list finds out

		for _, user := range []string{"alice", "tom"} {
			got, total := d.processes(t, user, nil)
			if len(got) != 1 || total != "1" || got[open] == nil {
				t.Fatalf("%s's default list: %s %v", user, total, got)
			}
			got, total = d.processes(t, user, stateFilter("SIGNED", "DECLINED", "CANCELLED", "EXPIRED"))
			if len(got) != 4 || total != "4" || got[signed]["state"] != "SIGNED" || got[declined]["state"] != "DECLINED" ||
				got[declined]["reason"] != "wrong vehicle" || got[cancelled]["state"] != "CANCELLED" || got[expired]["state"] != "EXPIRED" {
				t.Fatalf("%s's ended processes: %s %v", user, total, got)
			}
			if got[signed]["completedAt"] == nil || got[signed]["signedDocument"] != "" {
				t.Fatalf("%s's signed row: %v", user, got[signed])
			}
		}
		got, total := d.processes(t, "alice", map[string]any{"filter": []any{map[string]any{"path": "state", "op": "EQUAL", "operands": []any{map[string]any{"s": "SIGNED"}}}}})
		if len(got) != 1 || total != "1" || got[signed] == nil {
			t.Fatalf("signed only: %v", got)
		}
		// All of them, a page at a time, in the order they were asked for.
		q := stateFilter(allStates...)
		q["pageSize"] = 2
		q["pageStart"] = 2
		got, total = d.processes(t, "tom", q)
		if len(got) != 2 || total != "5" || got[declined] == nil || got[cancelled] == nil {
			t.Fatalf("the second page: %s %v", total, got)
		}
		// GetSigningProcess still gives the signed document.
		if p := process(d.okAs(t, "alice", signAPI+"GetSigningProcess", map[string]any{"processId": signed})); p["signedDocument"] == "" {
			t.Fatalf("get signed: %v", p)
		}
		// Nobody else sees them; bad lists are bad arguments.
		if got, total := d.processes(t, "eve", stateFilter(allStates...)); len(got) != 0 || total != "0" {
			t.Fatalf("a stranger sees %v", got)
		}
		st, _, raw := d.call(t, "alice", signAPI+"ListSigningProcesses", map[string]any{"qpar": map[string]any{
			"filter": []any{map[string]any{"path": "state", "op": "EQUAL", "operands": []any{map[string]any{"s": "DONE"}}}}}})
		wantError(t, 400, 3, st, raw, "qpar.filter[0]")
		st, _, raw = d.call(t, "alice", signAPI+"ListSigningProcesses", map[string]any{"qpar": map[string]any{"mask": "id"}})
		wantError(t, 400, 3, st, raw, "qpar.mask")
	})
}

// Inbox rows carry the delivered version's top layer, as store rows carry
// their newest version's, and two deliveries of the same note differ by
// version, top layer and time (ListInboxDocuments and ListInbox alike).
func TestInboxRowsTellDeliveriesApart(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		_, tm, _ := d.getAs(t, "alice", "/svc.core.v1.api.DocumentTemplateApi/ExportTransportTemplate?templateId.id=tpl-acme")
		_, x := d.bmuAs(t, "alice", "CreateDocumentFromTemplate", map[string]any{"templateXml": b64(t, tm["document"])})
		_, x = d.bmuAs(t, "alice", "UpdateDocument", map[string]any{"docXml": x, "document": completeNote()})
		// An organisation the note does not name cannot deliver it into the
		// parties' inboxes; the refusal stores nothing.
		st, _, raw := d.call(t, "rita", docAPI+"ImportTransportDocument", map[string]any{"document": x})
		wantError(t, 403, 7, st, raw, "only a party delivers")
		if rows := d.okAs(t, "rita", queryAPI+"ListTransportDocuments", map[string]any{})["entries"].([]any); len(rows) != 0 {
			t.Fatalf("a refused import was stored: %v", rows)
		}
		d.okAs(t, "rita", docAPI+"ImportTransportDocument", map[string]any{"document": x, "distribute": map[string]any{"value": false}})
		first := d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x})
		d.advance(time.Hour)
		second := d.okAs(t, "alice", docAPI+"ImportTransportDocument", map[string]any{"document": x, "cancel": map[string]any{"value": true}})
		if first["version"] != "1" || second["version"] != "2" {
			t.Fatalf("versions: %v %v", first, second)
		}

		for _, op := range []string{queryAPI + "ListInboxDocuments", docAPI + "ListInbox"} {
			rows := d.okAs(t, "tom", op, map[string]any{})["entries"].([]any)
			if len(rows) != 2 {
				t.Fatalf("%s: %v", op, rows)
			}
			newer, older := rows[0].(map[string]any), rows[1].(map[string]any) // newest first
			nd, od := newer["doc"].(map[string]any), older["doc"].(map[string]any)
			if nd["number"] != od["number"] || nd["documentId"].(map[string]any)["id"] != od["documentId"].(map[string]any)["id"] {
				t.Fatalf("%s: not the same note: %v %v", op, nd, od)
			}
			if nd["version"] != "2" || od["version"] != "1" || nd["topLayer"] != "ERZEUGER" || od["topLayer"] != "ERZEUGER" ||
				newer["cancelled"] != true || older["cancelled"] != false {
				t.Fatalf("%s: rows %v / %v", op, newer, older)
			}
			if nd["updatedAt"] == od["updatedAt"] || newer["receivedAt"] == older["receivedAt"] || nd["createdAt"] != od["createdAt"] ||
				nd["updatedAt"] != newer["receivedAt"] {
				t.Fatalf("%s: times do not tell them apart: %v / %v", op, newer, older)
			}
			// The mask keeps what it names (as the store's list does), and
			// a path the rows do not have is 400 naming it.
			masked := d.okAs(t, "tom", op, map[string]any{"qpar": map[string]any{"mask": "doc.number,kind"}})["entries"].([]any)[0].(map[string]any)
			if md := masked["doc"].(map[string]any); md["number"] != nd["number"] || masked["kind"] != newer["kind"] ||
				masked["sender"] != "" || masked["receivedAt"] != nil || fmt.Sprint(md["version"]) != "0" || masked["id"] != "" {
				t.Fatalf("%s: masked row: %v", op, masked)
			}
			st, _, raw = d.call(t, "tom", op, map[string]any{"qpar": map[string]any{"mask": "bogus"}})
			wantError(t, 400, 3, st, raw, "qpar.mask")
		}

		// The carrier's own version reaches the producer with its top layer,
		// as the carrier's store row shows it.
		_, y := d.bmuAs(t, "tom", "AddLayer", map[string]any{"docXml": x, "layerType": "BEFOERDERER"})
		_, y = d.bmuAs(t, "tom", "UpdateDocument", map[string]any{"docXml": y, "document": map[string]any{"bgs": map[string]any{
			"befoerderer": []any{map[string]any{"uebernahmeDatum": inLayer("2026-12-02")}}}}})
		d.okAs(t, "tom", docAPI+"ImportTransportDocument", map[string]any{"document": y})
		store := d.okAs(t, "tom", queryAPI+"ListTransportDocuments", map[string]any{})["entries"].([]any)[0].(map[string]any)["doc"].(map[string]any)
		in := d.inbox(t, "alice", map[string]any{"filter": []any{map[string]any{"path": "doc.top_layer", "op": "EQUAL", "operands": []any{map[string]any{"s": "BEFOERDERER"}}}}})
		if len(in) != 1 || in[0]["sender"] != "truck" || in[0]["doc"].(map[string]any)["topLayer"] != store["topLayer"] || store["topLayer"] != "BEFOERDERER" {
			t.Fatalf("the carrier's delivery: %v (store %v)", in, store)
		}
		if got := d.inbox(t, "tom", map[string]any{"filter": []any{map[string]any{"path": "doc.top_layer", "op": "EQUAL", "operands": []any{map[string]any{"s": "ERZEUGER"}}}}}); len(got) != 2 {
			t.Fatalf("filter on the top layer: %v", got)
		}
	})
}
