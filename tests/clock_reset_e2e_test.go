package tests

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"math"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The test clock cannot be wrecked (issue 44.13): an advance past ten
// years after real time is refused with 400 naming to or days (9999 was
// accepted, swept as of 9999 and overflowed the offset into 2319); a
// field the TestClockApi does not know (dryRun) is refused, over REST by
// its name and over gRPC by its number; and a clock wrecked before the
// limit existed is set back by ResetTestClock, which deletes the
// provider's documents with their deadlines, audit rows, events, list
// entries and parties, keeps cursors valid, and is recorded.
func TestTestClockBoundsAndReset(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		real := d.clock.Now().UTC()
		clockNow := func() string {
			t.Helper()
			st, m, raw := d.call(t, "alice", clockAPI+"GetTestClock", map[string]any{})
			if st != 200 {
				t.Fatalf("GetTestClock: %d %s", st, raw)
			}
			return m["now"].(string)
		}
		start := clockNow()

		// Beyond the limit, by to or by days: refused, naming the field; nothing moves.
		limit := real.AddDate(10, 0, 0)
		for _, c := range []struct {
			body  map[string]any
			field string
		}{
			{map[string]any{"to": "9999-12-31T00:00:00Z"}, "to"},
			{map[string]any{"to": limit.Add(time.Second).Format(time.RFC3339)}, "to"},
			{map[string]any{"days": 36500}, "days"},
			{map[string]any{"days": 3654}, "days"},
			{map[string]any{"days": math.MaxInt32}, "days"},
		} {
			st, _, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", c.body)
			wantError(t, 400, 3, st, raw, `"`+c.field+`"`, "10 years")
		}
		// An unknown field is refused, not ignored (a gRPC client cannot name one: see below).
		if !overGRPC(t) {
			st, _, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 1, "dryRun": true})
			wantError(t, 400, 3, st, raw, `"dryRun"`)
			st, _, raw = d.call(t, "alice", clockAPI+"GetTestClock", map[string]any{"dry_run": true})
			wantError(t, 400, 3, st, raw, `"dry_run"`)
			st, _, raw = d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true, "dryRun": true})
			wantError(t, 400, 3, st, raw, `"dryRun"`)
			unknownFieldOverGRPCWeb(t, d)
		} else {
			unknownFieldOverGRPC(t, d)
		}
		if now := clockNow(); now != start {
			t.Fatalf("a refused advance moved the clock from %s to %s", start, now)
		}
		// The limit itself is reached.
		if m := d.clockTo(t, limit.Format("2006-01-02")); m["now"] != limit.Format(time.RFC3339) {
			t.Fatalf("advanced to the limit: %v", m)
		}
		st, _, raw := d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 1})
		wantError(t, 400, 3, st, raw, `"days"`, "10 years")

		// A provider's documents, a group that read their events, and a
		// clock wrecked as the old server left it (the offset saturated).
		st, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED", "INBOX_ENTRY_ADDED"}})
		if st != 200 {
			t.Fatalf("register: %d %s", st, raw)
		}
		_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
		gt := lg["groupToken"].(string)
		if err := d.db.Exec("DELETE FROM test_clocks").Error; err != nil { // documents made on real time
			t.Fatal(err)
		}
		d.notes.Clocks.Forget("dev-1")
		doc := d.submitted(t)
		// The document's events are listed once sequenced (see
		// DraftsArePrivate): a long poll waits for them.
		_, m, _ := d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"waitSeconds": 15})
		cursor := m["nextCursor"].(string)
		if len(m["notifications"].([]any)) == 0 {
			t.Fatal("no events of the document")
		}
		if err := d.db.Exec("INSERT INTO test_clocks (provider_id, offset_ns, updated_at) VALUES ('dev-1', ?, ?)", int64(math.MaxInt64), real).Error; err != nil {
			t.Fatal(err)
		}
		d.notes.Clocks.Forget("dev-1")
		if now := clockNow(); !strings.HasPrefix(now, "2319-") {
			t.Fatalf("the wrecked clock reads %s", now)
		}
		st, _, raw = d.call(t, "alice", clockAPI+"AdvanceTestClock", map[string]any{"days": 1})
		wantError(t, 400, 3, st, raw, `"days"`, "ResetTestClock")

		// The way back: confirmed, by an account with usermgt, in the sandbox.
		st, _, raw = d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{})
		wantError(t, 400, 3, st, raw, "deleteDocuments")
		st, _, raw = d.call(t, "bernd", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true})
		wantError(t, 403, 7, st, raw, "usermgt")
		st, m, raw = d.call(t, "alice", clockAPI+"ResetTestClock", map[string]any{"deleteDocuments": true})
		if st != 200 || m["now"] != real.Format(time.RFC3339) || m["advancedBy"] != "0s" || !strings.HasPrefix(m["from"].(string), "2319-") {
			t.Fatalf("reset: %d %s", st, raw)
		}
		del := m["deleted"].(map[string]any)
		if del["documents"] != float64(1) || del["deadlines"].(float64) < 1 || del["events"].(float64) < 1 || del["auditRows"].(float64) < 2 {
			t.Fatalf("deleted: %v", del)
		}
		if now := clockNow(); now != real.Format(time.RFC3339) {
			t.Fatalf("after the reset the clock reads %s", now)
		}
		for _, q := range []string{
			"SELECT COUNT(*) FROM documents WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM deadlines WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM events WHERE document_id = '" + doc + "'",
			"SELECT COUNT(*) FROM audit_events WHERE document_id = '" + doc + "'",
			"SELECT COUNT(*) FROM document_entries WHERE provider_id = 'dev-1'",
			"SELECT COUNT(*) FROM document_parties WHERE document_id = '" + doc + "'",
			"SELECT COUNT(*) FROM test_clocks",
		} {
			var n int64
			if err := d.db.Raw(q).Scan(&n).Error; err != nil || n != 0 {
				t.Errorf("%s: %d %v", q, n, err)
			}
		}
		var resets int64
		d.db.Raw("SELECT COUNT(*) FROM test_clock_advances WHERE provider_id = 'dev-1' AND organisation_id = 'acme' AND to_time < from_time").Scan(&resets)
		if resets != 1 {
			t.Fatalf("%d resets recorded", resets)
		}
		st, _, raw = d.call(t, "alice", co+"GetNotification", map[string]any{"documentId": doc})
		wantError(t, 404, 5, st, raw)
		_, m, _ = d.call(t, "alice", co+"ListDocuments", map[string]any{})
		if m["total"] != "0" {
			t.Fatalf("the list after the reset: %v", m)
		}

		// The group's cursor stays valid, and the sandbox starts again. (A
		// wait: under the suite's load an event's position can come later
		// than the second a read waits for it, as above.)
		again := d.submitted(t)
		st, m, raw = d.post(t, ntf+"ListNotifications", hdr("dev-1", gt), map[string]any{"cursor": cursor, "waitSeconds": 15})
		if st != 200 || len(m["notifications"].([]any)) == 0 || m["notifications"].([]any)[0].(map[string]any)["documentId"] != again {
			t.Fatalf("events after the reset: %d %s", st, raw)
		}
		if m := d.clockTo(t, real.AddDate(0, 0, 7).Format("2006-01-02")); m["advancedBy"] != "604800s" {
			t.Fatalf("an advance after the reset: %v", m)
		}
	})
}

// unknownFieldOverGRPC sends AdvanceTestClock with a field number its
// message does not have: refused like an unknown JSON field, naming it.
func unknownFieldOverGRPC(t *testing.T, d *docEnv) {
	t.Helper()
	sd, err := protoregistry.GlobalFiles.FindDescriptorByName("svc.core.v1.api.TestClockApi")
	if err != nil {
		t.Fatal(err)
	}
	md := sd.(protoreflect.ServiceDescriptor).Methods().ByName("AdvanceTestClock")
	in, out := newMessage(t, md.Input()), newMessage(t, md.Output())
	in.ProtoReflect().Set(md.Input().Fields().ByName("days"), protoreflect.ValueOfInt32(1))
	in.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 99, protowire.VarintType), 1))
	ctx := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+d.token(t, "alice"))
	err = d.grpc.Invoke(ctx, "/svc.core.v1.api.TestClockApi/AdvanceTestClock", in, out)
	if st := grpcstatus.Convert(err); status.Code(st.Code()) != status.InvalidArgument || !strings.Contains(st.Message(), "field 99") {
		t.Fatalf("an unknown field number: %v", err)
	}
}

// unknownFieldOverGRPCWeb is unknownFieldOverGRPC through the connect
// handlers (gRPC-Web, binary), the path of gRPC-Web and gRPC over TLS.
func unknownFieldOverGRPCWeb(t *testing.T, d *docEnv) {
	t.Helper()
	msg := protowire.AppendVarint(protowire.AppendTag(nil, 2, protowire.VarintType), 1) // days: 1
	msg = protowire.AppendVarint(protowire.AppendTag(msg, 99, protowire.VarintType), 1)
	frame := binary.BigEndian.AppendUint32([]byte{0}, uint32(len(msg)))
	req, err := http.NewRequest(http.MethodPost, d.url+"/svc.core.v1.api.TestClockApi/AdvanceTestClock", bytes.NewReader(append(frame, msg...)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/grpc-web+proto")
	req.Header.Set("X-Grpc-Web", "1")
	req.Header.Set("provider_id", "dev-1")
	req.Header.Set("Authorization", "Bearer "+d.token(t, "alice"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	code, message := resp.Header.Get("Grpc-Status"), resp.Header.Get("Grpc-Message")
	if code == "" { // the trailers in the body's last frame
		for len(body) >= 5 {
			n := int(binary.BigEndian.Uint32(body[1:5]))
			if body[0]&0x80 != 0 && 5+n <= len(body) {
				for _, line := range strings.Split(string(body[5:5+n]), "\r\n") {
					k, v, _ := strings.Cut(line, ":")
					switch strings.ToLower(strings.TrimSpace(k)) {
					case "grpc-status":
						code = strings.TrimSpace(v)
					case "grpc-message":
						message = strings.TrimSpace(v)
					}
				}
			}
			if 5+n > len(body) {
				break
			}
			body = body[5+n:]
		}
	}
	if message, _ = url.PathUnescape(message); code != "3" || !strings.Contains(message, "field 99") {
		t.Fatalf("an unknown field number over gRPC-Web: status %q %q", code, message)
	}
}
