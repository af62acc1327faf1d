package tests

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
)

// Issue 44.8: an inspection link and who read it are the printing
// organisation's. Two organisations print one notification (acme's alice
// over CompanyDocumentApi, the authority auth-de's bernd over
// AuthorityDocumentApi); each lists only its own link, a third party
// (recyc's rita) lists none and revokes none, revoking takes only the
// caller's links, and a reader's address is stored and shown shortened
// (IPv4 without its last octet, IPv6 without its last 80 bits), a row
// stored whole before included. The same over native gRPC.
func TestInspectionLinksBelongToTheirPrinter(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		nid := d.submitted(t)
		_, ma := d.printed(t, "alice", co, nid, "en")
		_, mb := d.printed(t, "bernd", au, nid, "en")
		linkA, linkB := ma["inspectionLink"].(string), mb["inspectionLink"].(string)
		for _, l := range []string{linkA, linkA, linkB} {
			if st, _, body := inspect(t, l, ""); st != 200 {
				t.Fatalf("reading %s: %d %.200s", l, st, body)
			}
		}
		links := func(user, face string) []map[string]any {
			t.Helper()
			var out []map[string]any
			for _, l := range d.okAs(t, user, face+"ListInspectionLinks", map[string]any{"documentId": nid})["links"].([]any) {
				out = append(out, l.(map[string]any))
			}
			return out
		}
		addresses := func(l map[string]any) []any {
			var out []any
			for _, u := range l["recentUses"].([]any) {
				out = append(out, u.(map[string]any)["clientAddress"])
			}
			return out
		}

		// Each organisation lists its own link, with its readers shortened.
		la := links("alice", co)
		if len(la) != 1 || la[0]["organisationId"] != "acme" || fmt.Sprint(la[0]["uses"]) != "2" ||
			fmt.Sprint(addresses(la[0])) != "[127.0.0.0/24 127.0.0.0/24]" {
			t.Fatalf("alice (acme) sees %v, want acme's link alone, read twice from 127.0.0.0/24", la)
		}
		lb := links("bernd", au)
		if len(lb) != 1 || lb[0]["organisationId"] != "auth-de" || fmt.Sprint(lb[0]["uses"]) != "1" {
			t.Fatalf("bernd (auth-de) sees %v, want auth-de's link alone", lb)
		}
		if lr := links("rita", co); len(lr) != 0 {
			t.Fatalf("rita (recyc), a party who printed nothing, sees %v", lr)
		}

		// Nothing stored whole: the uses keep the network only.
		var stored []string
		if err := d.db.Table("inspection_uses").Order("id").Pluck("client_address", &stored).Error; err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stored) != "[127.0.0.0/24 127.0.0.0/24 127.0.0.0/24]" {
			t.Fatalf("stored client addresses %v, want each shortened", stored)
		}
		// A use stored whole before the change is shown shortened.
		for _, a := range []string{"203.0.113.77", "2001:db8:1:2:3:4:5:6", "::ffff:198.51.100.9"} {
			if err := d.db.Exec("INSERT INTO inspection_uses (link_id, document_id, used_at, client_address, user_agent, format) VALUES (?, ?, ?, ?, 'old', 'html')",
				la[0]["id"], nid, d.clock.Now().Add(-time.Hour), a).Error; err != nil {
				t.Fatal(err)
			}
		}
		if got := fmt.Sprint(addresses(links("alice", co)[0])); got != "[127.0.0.0/24 127.0.0.0/24 198.51.100.0/24 2001:db8:1::/48 203.0.113.0/24]" {
			t.Fatalf("old whole addresses shown as %s", got)
		}

		// Migration 00026 shortens what was stored whole, as it runs on an
		// upgraded server: forget that it ran and run it again.
		if err := d.db.Exec("DELETE FROM goose_db_version WHERE version_id = 26").Error; err != nil {
			t.Fatal(err)
		}
		m, err := models.NewMigrator(d.db, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Apply(context.Background(), 26); err != nil {
			t.Fatalf("migration 00026: %v", err)
		}
		stored = nil
		if err := d.db.Table("inspection_uses").Order("id").Pluck("client_address", &stored).Error; err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(stored) != "[127.0.0.0/24 127.0.0.0/24 127.0.0.0/24 203.0.113.0/24  ]" {
			t.Fatalf("after migration 00026 the stored addresses are %q", stored)
		}

		// A party revokes only its own links.
		if r := d.okAs(t, "rita", co+"RevokeInspectionLinks", map[string]any{"documentId": nid}); fmt.Sprint(r["revoked"]) != "0" {
			t.Fatalf("rita revoked %v of links she did not print", r)
		}
		if r := d.okAs(t, "bernd", au+"RevokeInspectionLinks", map[string]any{"documentId": nid}); fmt.Sprint(r["revoked"]) != "1" {
			t.Fatalf("bernd revoked %v, want his one link", r)
		}
		if st, _, _ := inspect(t, linkB, ""); st != 404 {
			t.Fatalf("bernd's revoked link: %d", st)
		}
		if st, _, _ := inspect(t, linkA, ""); st != 200 {
			t.Fatalf("alice's link after bernd revoked his: %d", st)
		}
		if la := links("alice", co); la[0]["state"] != "VALID" {
			t.Fatalf("alice's link after bernd revoked his: %v", la[0])
		}

		// The same over native gRPC.
		conn := dialGRPC(t, d.url)
		company, authority := diwass.NewCompanyDocumentApiClient(conn), diwass.NewAuthorityDocumentApiClient(conn)
		ga, err := company.ListInspectionLinks(grpcLogin(t, conn, "alice"), &diwass.CompanyDocumentApiListInspectionLinksRequest{DocumentId: nid})
		if err != nil {
			t.Fatal(err)
		}
		if len(ga.GetLinks()) != 1 || ga.GetLinks()[0].GetOrganisationId() != "acme" || ga.GetLinks()[0].GetRecentUses()[0].GetClientAddress() != "127.0.0.0/24" ||
			ga.GetLinks()[0].GetRecentUses()[5].GetClientAddress() != "203.0.113.0/24" {
			t.Fatalf("alice over gRPC: %v", ga)
		}
		gb, err := authority.ListInspectionLinks(grpcLogin(t, conn, "bernd"), &diwass.AuthorityDocumentApiListInspectionLinksRequest{DocumentId: nid})
		if err != nil {
			t.Fatal(err)
		}
		if len(gb.GetLinks()) != 1 || gb.GetLinks()[0].GetOrganisationId() != "auth-de" || gb.GetLinks()[0].GetState() != "REVOKED" {
			t.Fatalf("bernd over gRPC: %v", gb)
		}
		rita := grpcLogin(t, conn, "rita")
		gr, err := company.ListInspectionLinks(rita, &diwass.CompanyDocumentApiListInspectionLinksRequest{DocumentId: nid})
		if err != nil || len(gr.GetLinks()) != 0 {
			t.Fatalf("rita over gRPC: %v %v", gr, err)
		}
		rv, err := company.RevokeInspectionLinks(rita, &diwass.CompanyDocumentApiRevokeInspectionLinksRequest{DocumentId: nid})
		if err != nil || rv.GetRevoked() != 0 {
			t.Fatalf("rita's revoke over gRPC: %v %v", rv, err)
		}
		if st, _, _ := inspect(t, linkA, ""); st != 200 {
			t.Fatalf("alice's link after rita's revoke over gRPC: %d", st)
		}
	})
}
