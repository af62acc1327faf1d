package tests

import (
	"bytes"
	"context"
	"slices"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestDraftsArePrivate: until it is filed, a draft is its author's
// organisation's alone. Every other party it names gets the answer a
// document that does not exist gets, finds it in no list, receives no
// event about it; once filed, all of them see it.
func TestDraftsArePrivate(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		groupToken := func(user string) string {
			_, g, raw := d.call(t, user, grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
			if g["groupId"] == nil {
				t.Fatalf("register: %s", raw)
			}
			_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
			return lg["groupToken"].(string)
		}
		events := func(gt, id string) int {
			_, m, raw := d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{})
			n := 0
			for _, e := range m["notifications"].([]any) {
				if bytes.Contains(mustJSON(e), []byte(id)) {
					n++
				}
			}
			if m["notifications"] == nil {
				t.Fatalf("ListNotifications: %s", raw)
			}
			return n
		}
		nlGroup := groupToken("noor")

		ntfID := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		a7ID := d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})["id"].(string)
		// The author's organisation reads and lists them.
		d.get(t, "bob", ntfID)
		d.annex7(t, "bob", a7ID)
		if e, _ := d.list(t, "bob", map[string]any{}); !slices.Contains(ids(e), ntfID) || !slices.Contains(ids(e), a7ID) {
			t.Fatalf("the author's list lacks its drafts: %v", ids(e))
		}

		// Everyone else: the 404 of a document that does not exist.
		missing := func(user, op, id string) {
			t.Helper()
			st, _, raw := d.call(t, user, op, map[string]any{"documentId": id})
			wantError(t, 404, 5, st, raw)
			st, _, ghost := d.call(t, user, op, map[string]any{"documentId": id[:4] + "00000000000000000000000000"})
			if st != 404 || !bytes.Equal(bytes.ReplaceAll(raw, []byte(id), nil), bytes.ReplaceAll(ghost, []byte(id[:4]+"00000000000000000000000000"), nil)) {
				t.Errorf("%s %s: a draft answers %s, a missing document %s", user, op, raw, ghost)
			}
		}
		for _, user := range []string{"rita", "tom", "eve"} {
			missing(user, co+"GetNotification", ntfID)
			missing(user, co+"GetDocument", ntfID)
			missing(user, co+"GetAnnex7", a7ID)
		}
		for _, user := range []string{"noor", "bernd", "bart"} {
			missing(user, au+"GetDocument", ntfID)
			missing(user, au+"GetDocument", a7ID)
		}
		for _, user := range []string{"rita", "tom", "noor", "bernd", "bart"} {
			if e, _ := d.list(t, user, map[string]any{}); slices.Contains(ids(e), ntfID) || slices.Contains(ids(e), a7ID) {
				t.Errorf("%s lists a draft it is named in: %v", user, ids(e))
			}
		}
		// Nor can they act on it.
		st, _, raw := d.call(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": ntfID})
		wantError(t, 404, 5, st, raw)

		// Filing it tells every party (and it is theirs to see from now on).
		changed := content()
		changed["numberOfShipments"] = 4
		d.ok(t, "alice", co+"SetSubmission", map[string]any{"documentId": ntfID, "notification": changed})
		// An event is listed once the sequencer has given it its position:
		// at once unless a transaction that began before it is still
		// running somewhere on the database (then up to a second, or
		// later under load), so the count is read until it shows.
		n := events(nlGroup, ntfID)
		for deadline := time.Now().Add(15 * time.Second); n == 0 && time.Now().Before(deadline); n = events(nlGroup, ntfID) {
			time.Sleep(100 * time.Millisecond)
		}
		if n != 1 {
			t.Fatalf("the destination authority got %d events of the filing, want 1", n)
		}
		d.read(t, "noor", au+"GetDocument", ntfID)
		d.get(t, "rita", ntfID)
		if e, _ := d.list(t, "bernd", map[string]any{}); !slices.Contains(ids(e), ntfID) {
			t.Fatalf("a filed notification is not in its dispatch authority's list: %v", ids(e))
		}
		// The Annex VII draft is still the arranger's alone.
		missing("rita", co+"GetAnnex7", a7ID)
	})
}

// TestDraftsStoredBeforeTheUpgradeBecomePrivate: a draft stored when every
// named party could see it (its party rows and list entries) is hidden
// from them by the server's first start after migration 00015.
func TestDraftsStoredBeforeTheUpgradeBecomePrivate(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		id := d.ok(t, "alice", co+"CreateSubmission", map[string]any{"notification": content()})["id"].(string)
		// As an older release left it: the destination authority a party.
		if err := d.db.Create(&models.DocumentParty{DocumentID: id, OrganisationID: "auth-nl", Role: "AUTHORITY_DESTINATION"}).Error; err != nil {
			t.Fatal(err)
		}
		var e models.DocumentEntry
		if err := d.db.Where("document_id = ? AND organisation_id = ?", id, "acme").First(&e).Error; err != nil {
			t.Fatal(err)
		}
		e.OrganisationID, e.Roles, e.Intents, e.Actionable = "auth-nl", "AUTHORITY_DESTINATION", "", false
		if err := d.db.Create(&e).Error; err != nil {
			t.Fatal(err)
		}
		d.read(t, "noor", au+"GetDocument", id) // visible, as before the upgrade
		// The migration asked for the rewrite; the server's start does it.
		if n, err := d.notes.IndexEntries(context.Background(), false); err != nil || n != 1 {
			t.Fatalf("IndexEntries: %d, %v", n, err)
		}
		st, _, raw := d.call(t, "noor", au+"GetDocument", map[string]any{"documentId": id})
		wantError(t, 404, 5, st, raw)
		if l, _ := d.list(t, "noor", map[string]any{}); slices.Contains(ids(l), id) {
			t.Fatalf("noor still lists the draft: %v", ids(l))
		}
		d.get(t, "alice", id)
		if n, err := d.notes.IndexEntries(context.Background(), false); err != nil || n != 0 {
			t.Fatalf("IndexEntries again: %d, %v (the task runs once)", n, err)
		}
	})
}
