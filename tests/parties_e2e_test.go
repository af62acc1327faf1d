package tests

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/bootstrap"
	"github.com/wasteflow/wasteflow/workflows/printing/printtest"
)

// setDirectory applies organisations (YAML entries of a bootstrap file's
// organisations section) as `wasteflow admin apply` does.
func (d *docEnv) setDirectory(t *testing.T, organisations string) {
	t.Helper()
	f, err := bootstrap.Parse(strings.NewReader("organisations:\n" + organisations))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := (&bootstrap.Applier{Store: models.NewSeedStore(d.db)}).Apply(context.Background(), f); err != nil {
		t.Fatal(err)
	}
}

// acmeAt is the notifier's directory entry with its name and street.
func acmeAt(name, street string) string {
	return fmt.Sprintf(`  - {id: acme, provider: dev-1, kind: company, name: %q, country: DE, numbers: [I123E45678],
     registrationNumber: "HRB 214365", street: %q, postalCode: "80687", city: "München",
     contactPerson: "Anna Huber", telephone: "+49 89 5432100", email: "anna.huber@acme.example.de",
     eori: DE123456789012345, vat: DE123456789}
`, name, street)
}

// partyOf is the entry of org in a document's partyDetails (nil: none).
func partyOf(doc map[string]any, org string) map[string]any {
	list, _ := doc["partyDetails"].([]any)
	for _, x := range list {
		if p := x.(map[string]any); p["organisationId"] == org {
			return p
		}
	}
	return nil
}

func streetOf(doc map[string]any, org string) string {
	p := partyOf(doc, org)
	if p == nil {
		return ""
	}
	s, _ := p["address"].(map[string]any)["street"].(string)
	return s
}

// Issue 45.1: a party as the forms name it. A draft shows the directory's
// details as they are; filing records them, so that a later change in the
// directory does not rewrite the filed notification (its Get, its print,
// its register row); a correction records them anew; a document stored
// before records existed reads with the directory's details.
func TestPartiesAsFiled(t *testing.T) {
	parallel(t)
	printtest.Tool(t, "pdftotext")
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.workJobs(t)
		d.setDirectory(t, acmeAt("ACME", "Landsberger Straße 155"))
		c := content()
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": c})["id"].(string)
		doc, _ := d.get(t, "alice", id)
		acme := partyOf(doc, "acme")
		if acme == nil || acme["name"] != "ACME" || acme["registrationNumber"] != "HRB 214365" || acme["contactPerson"] != "Anna Huber" ||
			acme["telephone"] != "+49 89 5432100" || acme["email"] != "anna.huber@acme.example.de" || acme["eori"] != "DE123456789012345" ||
			acme["vat"] != "DE123456789" || fmt.Sprint(acme["address"]) != "map[city:München country:DE postalCode:80687 street:Landsberger Straße 155]" {
			t.Fatalf("the draft's notifier: %v", acme)
		}
		var ids []string
		for _, x := range doc["partyDetails"].([]any) {
			ids = append(ids, x.(map[string]any)["organisationId"].(string))
		}
		if strings.Join(ids, ",") != "acme,recyc,truck,auth-de,auth-nl,auth-be" {
			t.Errorf("partyDetails: each party once, in the content's order: %v", ids)
		}
		if _, ok := doc["notification"].(map[string]any)["partyDetails"]; ok {
			t.Error("partyDetails inside the content")
		}

		// A draft shows the directory as it is now.
		d.setDirectory(t, acmeAt("ACME", "Werkstraße 2"))
		if doc, _ = d.get(t, "alice", id); streetOf(doc, "acme") != "Werkstraße 2" {
			t.Fatalf("the draft after a directory change: %v", partyOf(doc, "acme"))
		}

		// Filed: the details of the moment of filing, whatever the
		// directory says later.
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		d.setDirectory(t, acmeAt("ACME Elektronik GmbH", "Neue Straße 3"))
		for _, user := range []string{"alice", "noor"} {
			if doc, _ = d.get(t, user, id); streetOf(doc, "acme") != "Werkstraße 2" || partyOf(doc, "acme")["name"] != "ACME" {
				t.Fatalf("the filed notification as %s after a directory change: %v", user, partyOf(doc, "acme"))
			}
		}
		pdf, _ := d.printed(t, "alice", co, id, "en")
		if _, text := printtest.Text(t, pdf); !strings.Contains(text, "Werkstraße 2") || strings.Contains(text, "ACME Elektronik GmbH") {
			t.Errorf("the print names the notifier as the directory has it now, not as filed:\n%s", text)
		}
		file, _ := d.exported(t, "alice", co, map[string]any{"kinds": []string{"NOTIFICATION"}})
		rows, err := csv.NewReader(bytes.NewReader(file)).ReadAll()
		if err != nil || len(rows) != 2 {
			t.Fatalf("register: %v %v", rows, err)
		}
		want := "ACME (acme) [I123E45678], Werkstraße 2, 80687 München, Germany, HRB 214365, EORI DE123456789012345, VAT DE123456789"
		if got := rows[1][column("notifier")]; got != want {
			t.Errorf("register notifier = %q, want %q", got, want)
		}
		if got := rows[1][column("consignee")]; got != "Recycling (recyc), Netherlands" {
			t.Errorf("register consignee = %q", got)
		}

		// A list entry names the notifier and the consignee, as the
		// directory has them (one query for the page); with a mask
		// without them, they are not read.
		for _, c := range []struct{ user, face string }{{"alice", co}, {"noor", au}} {
			entries := d.okAs(t, c.user, c.face+"ListDocuments", map[string]any{})["entries"].([]any)
			if len(entries) != 1 {
				t.Fatalf("%s's list: %v", c.user, entries)
			}
			if e := entries[0].(map[string]any); e["notifierName"] != "ACME Elektronik GmbH" || e["consigneeName"] != "Recycling" {
				t.Errorf("%s's list entry: %v", c.user, e)
			}
		}
		masked := d.okAs(t, "alice", co+"ListDocuments", map[string]any{"qpar": map[string]any{"mask": "number,consigneeName"}})
		if e := masked["entries"].([]any)[0].(map[string]any); e["consigneeName"] != "Recycling" || e["notifierName"] != "" {
			t.Errorf("a masked entry: %v", e)
		}

		// A correction records the parties anew.
		c["numberOfShipments"] = 4
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": id, "notification": c})
		if doc, _ = d.get(t, "alice", id); streetOf(doc, "acme") != "Neue Straße 3" || partyOf(doc, "acme")["name"] != "ACME Elektronik GmbH" {
			t.Fatalf("after a correction: %v", partyOf(doc, "acme"))
		}

		// A notification stored before records existed reads (Get, print,
		// register) with the directory's details.
		var data string
		if err := d.db.Raw("SELECT CAST(data AS TEXT) FROM documents WHERE id = ?", id).Scan(&data).Error; err != nil {
			t.Fatal(err)
		}
		var agg map[string]any
		if err := json.Unmarshal([]byte(data), &agg); err != nil || agg["partyDetails"] == nil {
			t.Fatalf("the stored aggregate has no record: %v %.300s", err, data)
		}
		delete(agg, "partyDetails")
		old, _ := json.Marshal(agg)
		dbtest.SkipAtEnd(d.db) // a row written behind the server's back: its trail does not replay to it, on purpose
		if err := d.db.Exec("UPDATE documents SET data = ? WHERE id = ?", string(old), id).Error; err != nil {
			t.Fatal(err)
		}
		d.setDirectory(t, acmeAt("ACME Elektronik GmbH", "Vierte Straße 4"))
		if doc, _ = d.get(t, "alice", id); streetOf(doc, "acme") != "Vierte Straße 4" || partyOf(doc, "recyc")["name"] != "Recycling" {
			t.Fatalf("an old notification: %v", doc["partyDetails"])
		}
		pdf, _ = d.printed(t, "alice", co, id, "de")
		if _, text := printtest.Text(t, pdf); !strings.Contains(text, "ACME Elektronik GmbH") || !strings.Contains(text, "Vierte Straße 4") {
			t.Errorf("the print of an old notification:\n%s", text)
		}
		file, _ = d.exported(t, "alice", co, map[string]any{"kinds": []string{"NOTIFICATION"}, "language": "de"})
		if !bytes.Contains(file, []byte("Vierte Straße 4, 80687 München, Deutschland, HRB 214365, EORI DE123456789012345, USt-IdNr. DE123456789")) {
			t.Errorf("the register of an old notification:\n%s", file)
		}
		// and records them at its next write
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		d.setDirectory(t, acmeAt("ACME Elektronik GmbH", "Fünfte Straße 5"))
		if doc, _ = d.get(t, "alice", id); streetOf(doc, "acme") != "Vierte Straße 4" {
			t.Fatalf("an old notification after its next write: %v", partyOf(doc, "acme"))
		}
	})
}

// A movement records its parties when it is created, an Annex VII
// document when it is announced; a later change in the directory leaves
// both as they were, and a movement's template correction records them
// anew.
func TestPartiesAsFiledMovementAndAnnex7(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		truckAt := func(street string) string {
			return fmt.Sprintf("  - {id: truck, provider: dev-1, kind: company, name: Carrier, country: DE, region: NW, numbers: [E234F56781], street: %q, postalCode: \"47119\", city: Duisburg}\n", street)
		}
		d.setDirectory(t, truckAt("Hafenstraße 12"))
		nid := d.consented(t, shippable(3))
		mid := d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})["id"].(string)
		aid := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		if a, _ := d.read(t, "alice", co+"GetAnnex7", aid); streetOf(a, "truck") != "Hafenstraße 12" {
			t.Fatalf("the Annex VII draft: %v", a["partyDetails"])
		}
		d.ok(t, "alice", co+"SetAnnex7", map[string]any{"documentId": aid, "annex7": announcement()})
		d.setDirectory(t, truckAt("Kaiserstraße 1"))
		mv, _ := d.movement(t, "alice", mid)
		if streetOf(mv, "truck") != "Hafenstraße 12" || partyOf(mv, "acme") == nil || partyOf(mv, "auth-nl") == nil {
			t.Fatalf("the movement after a directory change: %v", mv["partyDetails"])
		}
		if a, _ := d.read(t, "tom", co+"GetAnnex7", aid); streetOf(a, "truck") != "Hafenstraße 12" {
			t.Fatalf("the Annex VII document after a directory change: %v", a["partyDetails"])
		}
		d.ok(t, "alice", co+"SetMovementTemplate", map[string]any{"documentId": mid, "movementTemplate": template("2026-12-07", 30)})
		if mv, _ = d.movement(t, "alice", mid); streetOf(mv, "truck") != "Kaiserstraße 1" {
			t.Fatalf("the movement after its correction: %v", mv["partyDetails"])
		}
	})
}

// The directory: the provider's organisations with their party details,
// filtered and paged; one by id; only with documents:read; another
// provider's organisations are not there.
func TestOrganisationDirectory(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		d.setDirectory(t, acmeAt("ACME", "Landsberger Straße 155"))
		const dir = "/svc.core.v1.api.DirectoryApi/"
		list := func(user, query string) map[string]any {
			t.Helper()
			st, m, raw := d.authEnv.get(t, dir+"ListOrganisation"+query, hdr("dev-1", d.token(t, user)))
			if st != 200 {
				t.Fatalf("ListOrganisation%s as %s: %d %s", query, user, st, raw)
			}
			return m
		}
		ids := func(m map[string]any) string {
			var out []string
			for _, x := range m["organisations"].([]any) {
				out = append(out, x.(map[string]any)["id"].(string))
			}
			return strings.Join(out, ",")
		}
		all := list("noor", "")
		if ids(all) != "acme,auth-be,auth-de,auth-nl,barge,dump,evil,recyc,truck" || all["nextPageToken"] != "" {
			t.Fatalf("the directory: %s %v", ids(all), all["nextPageToken"])
		}
		acme := all["organisations"].([]any)[0].(map[string]any)
		if det := acme["details"].(map[string]any); acme["kind"] != "company" || det["name"] != "ACME" || det["eori"] != "DE123456789012345" ||
			det["address"].(map[string]any)["street"] != "Landsberger Straße 155" {
			t.Fatalf("acme: %v", acme)
		}
		if got := ids(list("alice", "?kind=authority&country=DE")); got != "auth-de" {
			t.Errorf("authorities in DE: %s", got)
		}
		first := list("alice", "?pageSize=4")
		second := list("alice", "?pageSize=4&pageToken="+first["nextPageToken"].(string))
		third := list("alice", "?pageSize=4&pageToken="+second["nextPageToken"].(string))
		if ids(first)+";"+ids(second)+";"+ids(third) != "acme,auth-be,auth-de,auth-nl;barge,dump,evil,recyc;truck" || third["nextPageToken"] != "" {
			t.Errorf("pages: %s; %s; %s", ids(first), ids(second), ids(third))
		}
		st, m, raw := d.authEnv.get(t, dir+"GetOrganisation?organisationId=recyc", hdr("dev-1", d.token(t, "rita")))
		if st != 200 || m["organisation"].(map[string]any)["details"].(map[string]any)["name"] != "Recycling" {
			t.Fatalf("GetOrganisation: %d %s", st, raw)
		}
		st, _, raw = d.authEnv.get(t, dir+"GetOrganisation?organisationId=nobody", hdr("dev-1", d.token(t, "rita")))
		wantError(t, 404, 5, st, raw, "nobody")
		st, _, raw = d.authEnv.get(t, dir+"ListOrganisation?kind=person", hdr("dev-1", d.token(t, "rita")))
		wantError(t, 400, 3, st, raw, "kind")
		st, _, raw = d.authEnv.get(t, dir+"ListOrganisation", hdr("dev-1", d.token(t, "nina"))) // an account without scopes
		wantError(t, 403, 7, st, raw, "documents:read")
	})
}
