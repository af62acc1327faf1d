package tests

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/rules/bmu"
)

// wantViolation requires a 400, code 3, whose BadRequest names field, with
// a description containing what.
func wantViolation(t *testing.T, st int, raw []byte, field, what string) {
	t.Helper()
	if st != 400 {
		t.Fatalf("%s: HTTP %d, want 400: %.300s", field, st, raw)
	}
	m := wantError(t, 400, 3, st, raw, field)
	details := m["details"].([]any)
	if len(details) != 1 {
		t.Fatalf("details %v", details)
	}
	v := details[0].(map[string]any)["fieldViolations"].([]any)
	if len(v) != 1 || v[0].(map[string]any)["field"] != field || !strings.Contains(v[0].(map[string]any)["description"].(string), what) {
		t.Fatalf("field violations %v, want %s: %s", v, field, what)
	}
	if len(raw) > 2000 {
		t.Fatalf("the refusal repeats the input: %d bytes", len(raw))
	}
}

func (d *docEnv) documents(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := d.db.Model(&models.Document{}).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// Issue 22, point 10: no text or list of a document grows without bound.
// A 5 MB description and 200,000 producers fit in the body limit but are
// refused (400, code 3, naming the field's JSON path) and stored nowhere;
// lengths count characters, not bytes; the blocks of intents are bounded
// too, through their own operation and through SetByIntent.
func TestBoundedDocumentInput(t *testing.T) {
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		before := d.documents(t)
		huge := strings.Repeat("x", 5<<20)

		c := content()
		c["wasteDescription"] = huge
		st, _, raw := d.call(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})
		wantViolation(t, st, raw, "notification.wasteDescription", "at most 4000 characters")

		c = content()
		producers := make([]any, 200_000)
		for i := range producers {
			producers[i] = map[string]any{"organisationId": "acme"}
		}
		c["producers"] = producers
		st, _, raw = d.call(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})
		wantViolation(t, st, raw, "notification.producers", "at most 200 items")

		a := announcement()
		a["usualDescription"] = huge
		st, _, raw = d.call(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": a})
		wantViolation(t, st, raw, "annex7.usualDescription", "at most 4000 characters")

		// Characters, not bytes: 4,000 two-byte letters are taken, one more is not.
		c = content()
		c["wasteDescription"] = strings.Repeat("é", 4000)
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		c["wasteDescription"] = strings.Repeat("é", 4001)
		st, _, raw = d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		wantViolation(t, st, raw, "notification.wasteDescription", "at most 4000 characters, not 4001")

		// Elements, codes, map entries and keys, and the other kinds' blocks.
		for _, tc := range []struct{ path, field, what string }{
			{co + "CreateSubmission", "notification.carriers[1].organisationId", "at most 128 characters"},
			{co + "CreateSubmission", "notification.recoveryDisposalCodes[0]", "at most 64 characters"},
			{co + "CreateSubmission", "metadata.addresses", "at most 100 entries"},
			{co + "CreateSubmission", "metadata.additionalData", "keys of at most 100 characters"},
			{au + "SetDecision", "decision.grounds", "at most 4000 characters"},
			{au + "SetRequestInformation", "requestInformation.questions", "at most 100 items"},
			{co + "SetRequestForChangeAfterConsent", "requestForChange.proposed.route.entryExitPoints[0]", "at most 200 characters"},
			{co + "CreateMovementTemplate", "movementTemplate.carriers", "at most 100 items"},
			{co + "SetFacilityReception", "facilityReception.reason", "at most 4000 characters"},
		} {
			body := map[string]any{"documentId": id, "notificationId": id}
			switch tc.field {
			case "notification.carriers[1].organisationId":
				c := content()
				c["carriers"] = []any{map[string]any{"organisationId": "truck"}, map[string]any{"organisationId": strings.Repeat("o", 129)}}
				body["notification"] = c
			case "notification.recoveryDisposalCodes[0]":
				c := content()
				c["recoveryDisposalCodes"] = []any{strings.Repeat("R", 65)}
				body["notification"] = c
			case "metadata.addresses":
				addrs := map[string]any{}
				for i := range 101 {
					addrs[fmt.Sprint("ROLE_", i)] = "Hauptstraße 1, Berlin"
				}
				body["notification"], body["metadata"] = content(), map[string]any{"addresses": addrs}
			case "metadata.additionalData":
				body["notification"], body["metadata"] = content(), map[string]any{"additionalData": map[string]any{strings.Repeat("k", 101): "v"}}
			case "decision.grounds":
				body["decision"] = map[string]any{"type": "OBJECTION", "grounds": huge}
			case "requestInformation.questions":
				body["requestInformation"] = map[string]any{"questions": make([]string, 101)}
			case "requestForChange.proposed.route.entryExitPoints[0]":
				c := content()
				c["route"] = map[string]any{"entryExitPoints": []any{strings.Repeat("p", 201)}}
				body["requestForChange"] = map[string]any{"proposed": c}
			case "movementTemplate.carriers":
				tm := template("2026-12-07", 1)
				tm["carriers"] = make([]any, 101)
				body["movementTemplate"] = tm
			case "facilityReception.reason":
				body["facilityReception"] = map[string]any{"rejected": true, "reason": huge}
			}
			user := "alice"
			if strings.HasPrefix(tc.path, au) {
				user = "noor" // each face admits its own kind of organisation
			}
			st, _, raw := d.call(t, user, tc.path, body)
			wantViolation(t, st, raw, tc.field, tc.what)
		}

		// Through SetByIntent the block is bounded where it sits in the document.
		doc, _ := d.get(t, "alice", id)
		doc["withdrawal"] = map[string]any{"reason": huge}
		st, _, raw = d.call(t, "alice", co+"SetByIntent", map[string]any{"document": map[string]any{"notification": doc}, "intent": "WITHDRAWAL"})
		wantViolation(t, st, raw, "document.notification.withdrawal.reason", "at most 4000 characters")

		if after := d.documents(t); after != before {
			t.Fatalf("%d documents after the refusals, %d before", after, before)
		}
		if doc, _ := d.get(t, "alice", id); len(doc["notification"].(map[string]any)["wasteDescription"].(string)) != 8000 {
			t.Fatal("a refused correction changed the document")
		}

		// The description states the limits the server applies.
		api := d.openapi()
		schema := func(path string) *openapi3.Schema {
			return api.Paths.Find(path).Post.RequestBody.Value.Content.Get("application/json").Schema.Value
		}
		content := codec.Unwrap(schema(co + "CreateSubmission").Properties["notification"]).Value
		if p := content.Properties["producers"].Value; p.MaxItems == nil || *p.MaxItems != 200 {
			t.Errorf("producers: maxItems %v", p.MaxItems)
		}
		if p := content.Properties["wasteDescription"].Value; p.MaxLength == nil || *p.MaxLength != 4000 {
			t.Errorf("wasteDescription: maxLength %v", p.MaxLength)
		}
		if p := content.Properties["numberOfShipments"].Value; p.Min == nil || *p.Min != 0 || !strings.Contains(p.Description, "At least 1 when set") {
			t.Errorf("numberOfShipments: minimum %v, %q", p.Min, p.Description)
		}
		a7 := codec.Unwrap(schema(co + "CreateAnnex7").Properties["annex7"]).Value
		if p := a7.Properties["usualDescription"].Value; p.MaxLength == nil || *p.MaxLength != 4000 {
			t.Errorf("usualDescription: maxLength %v", p.MaxLength)
		}
	})
}

// Every text, list and map of the document schemas (the rules packages'
// types the document operations take) declares its limit, so none is
// forgotten as fields are added; the BMU notes' lists are bounded as the
// note model bounds them.
func TestEveryDocumentInputIsBounded(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	seen := map[reflect.Type]bool{}
	var walk func(t reflect.Type)
	checked := 0
	walk = func(typ reflect.Type) {
		for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice || typ.Kind() == reflect.Map {
			typ = typ.Elem()
		}
		if typ.Kind() != reflect.Struct || seen[typ] {
			return
		}
		seen[typ] = true
		for i := range typ.NumField() {
			f := typ.Field(i)
			if !f.IsExported() || f.Tag.Get("json") == "-" {
				continue
			}
			walk(f.Type)
			if !strings.HasPrefix(typ.PkgPath(), "github.com/wasteflow/wasteflow/rules/") {
				continue
			}
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			var want []string
			switch {
			case ft.Kind() == reflect.String:
				want = []string{"maxLength"}
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.String:
				want = []string{"maxItems", "maxLength"}
			case ft.Kind() == reflect.Slice && ft.Elem().Kind() != reflect.Uint8:
				want = []string{"maxItems"}
			case ft.Kind() == reflect.Map:
				want = []string{"maxProperties", "maxKeyLength", "maxLength"}
			}
			for _, tag := range want {
				checked++
				if _, ok := f.Tag.Lookup(tag); !ok {
					t.Errorf("%v.%s has no %s tag", typ, f.Name, tag)
				}
			}
		}
	}
	for _, op := range d.srv.Operations() {
		if op.Package == "svc.bxa.diwass.v1.api" && op.Request != nil {
			walk(op.Request)
		}
	}
	if checked < 60 {
		t.Fatalf("only %d limits checked", checked)
	}
	for _, name := range []string{"Befoerderer", "UnsNrn"} {
		f, _ := reflect.TypeFor[bmu.Bgs]().FieldByName(name)
		if f.Tag.Get("maxItems") != strconv.Itoa(bmu.MaxListLength) {
			t.Errorf("bmu.Bgs.%s: maxItems %q, the note's lists %d", name, f.Tag.Get("maxItems"), bmu.MaxListLength)
		}
	}
}

// refused requires HTTP 200 with a first business error of code, and no
// document: null, as the description admits (the recorded exchange is
// checked against it).
func (d *docEnv) refused(t *testing.T, path string, body map[string]any, code string) {
	t.Helper()
	st, _, raw := d.call(t, "alice", path, body)
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || st != 200 {
		t.Fatalf("%s: HTTP %d %.300s", code, st, raw)
	}
	var be []map[string]any
	_ = json.Unmarshal(m["businessErrors"], &be)
	if len(be) == 0 || be[0]["code"] != code || string(m["document"]) != "null" || string(m["followUpIntents"]) != "[]" {
		t.Fatalf("%s: %.300s", code, raw)
	}
}

// Issue 22, point 11: a create refused by business errors answers the
// errors and no document (not one with an empty id), of every kind, and
// stores nothing.
func TestRefusedCreateAnswersNoDocument(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.consented(t, shippable(2))
		before := d.documents(t)
		c := content()
		c["consignee"] = map[string]any{"organisationId": "nobody"}
		d.refused(t, co+"CreateSubmission", map[string]any{"notification": c}, "PARTY_UNKNOWN")
		a := announcement()
		a["consignee"] = map[string]any{"organisationId": "nobody"}
		d.refused(t, co+"CreateAnnex7", map[string]any{"annex7": a}, "PARTY_UNKNOWN")
		tm := template("2026-12-07", 10)
		tm["packagingTypes"] = []any{"BAG"}
		d.refused(t, co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": tm}, "PACKAGING_TYPE_INVALID")
		if after := d.documents(t); after != before {
			t.Fatalf("%d documents after the refusals, %d before", after, before)
		}
		mv := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 10)})
		if !strings.HasSuffix(mv["number"].(string), "-M001") {
			t.Fatalf("the first movement after a refused one: %v", mv["number"])
		}
	})
}

// Issue 22, point 11: a negative number of shipments is out of range (400,
// code 3, naming the field), not a missing field; 0 is not given yet,
// which a draft may be.
func TestNegativeShipmentCountIsOutOfRange(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		c := content()
		c["numberOfShipments"] = -3
		st, _, raw := d.call(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})
		wantViolation(t, st, raw, "notification.numberOfShipments", "must be at least 1, not -3")
		c["numberOfShipments"] = 0
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
		c["numberOfShipments"] = -1
		st, _, raw = d.call(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		wantViolation(t, st, raw, "notification.numberOfShipments", "must be at least 1, not -1")
	})
}

// Issue 22, point 11: an empty create body is refused (400, naming the
// block) and uses no document number, nor does a create refused by
// business errors: the counter moves in the create's transaction, so the
// next create gets the next number. An explicitly empty block is a draft.
func TestEmptyCreateUsesNoNumber(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		seq := func(number any) int {
			s, _ := number.(string)
			n, err := strconv.Atoi(s[strings.LastIndex(s, "-")+1:])
			if err != nil {
				t.Fatalf("number %q", s)
			}
			return n
		}
		for _, kind := range []struct {
			create, key string
			body        func() map[string]any
		}{{"CreateSubmission", "notification", content}, {"CreateAnnex7", "annex7", announcement}} {
			first := d.ok(t, "alice", co+kind.create, map[string]any{kind.key: kind.body()})
			before := d.documents(t)
			st, _, raw := d.call(t, "alice", co+kind.create, map[string]any{})
			wantViolation(t, st, raw, kind.key, "required")
			st, _, raw = d.call(t, "alice", co+kind.create, map[string]any{kind.key: nil, "metadata": map[string]any{}})
			wantViolation(t, st, raw, kind.key, "required")
			bad := kind.body()
			bad["consignee"] = map[string]any{"organisationId": "nobody"}
			d.refused(t, co+kind.create, map[string]any{kind.key: bad}, "PARTY_UNKNOWN")
			if after := d.documents(t); after != before {
				t.Fatalf("%s: %d documents after the refusals, %d before", kind.create, after, before)
			}
			next := d.ok(t, "alice", co+kind.create, map[string]any{kind.key: map[string]any{}})
			if seq(next["number"]) != seq(first["number"])+1 {
				t.Fatalf("%s: %v after %v: refused creates used numbers", kind.create, next["number"], first["number"])
			}
		}
	})
}
