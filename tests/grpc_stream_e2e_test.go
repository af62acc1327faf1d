package tests

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/models/dbtest"
	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
	notifier "github.com/wasteflow/wasteflow/proto/gen/go/svc/namespaced_notifier/v1/api"
)

// recvWithin receives one message of a stream or fails after d.
func recvWithin[T any](t *testing.T, d time.Duration, recv func() (*T, error)) (*T, error) {
	t.Helper()
	type result struct {
		m   *T
		err error
	}
	ch := make(chan result, 1)
	go func() { m, err := recv(); ch <- result{m, err} }()
	select {
	case r := <-ch:
		return r.m, r.err
	case <-time.After(d):
		t.Fatalf("no message within %v", d)
		return nil, nil
	}
}

// A notifier group's events stream over gRPC as they happen; a client that
// resumes from the last cursor it received, on another instance after the
// first went away, gets every later event once and none again. The server
// shutting down ends a stream with UNAVAILABLE. REST has no route for it.
func TestNotificationStreamResumesAcrossInstances(t *testing.T) {
	t.Parallel() // its own server and database; waits on I/O, so it runs beside others
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		st, g, raw := d.call(t, "noor", grp+"RegisterGroup", map[string]any{"name": "erp", "eventKinds": []string{"DOCUMENT_STATE_CHANGED"}})
		if st != 200 {
			t.Fatalf("register: %d %s", st, raw)
		}
		_, lg, _ := d.post(t, grp+"Login", hdr("dev-1", ""), map[string]any{"groupId": g["groupId"], "groupSecret": g["groupSecret"]})
		ctx := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+lg["groupToken"].(string))

		first := dialGRPC(t, d.url)
		sctx, cancel := context.WithCancel(ctx)
		stream, err := notifier.NewNotificationApiClient(first).StreamNotifications(sctx, &notifier.StreamNotificationsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		id := d.submitted(t)
		e1, err := recvWithin(t, 10*time.Second, stream.Recv)
		if err != nil || e1.GetDocumentId() != id || e1.GetKind().String() != "DOCUMENT_STATE_CHANGED" || e1.GetCursor() == "" ||
			!strings.Contains(e1.GetPayload().GetStructValue().GetFields()["to"].GetStringValue(), "SUBMITTED") {
			t.Fatalf("first event: %v %v", err, e1)
		}
		cancel()
		// The first instance goes away; the client resumes on another, served
		// wholly by net/http and connect-go (as over TLS).
		if err := d.srv.Shutdown(ctx); err != nil {
			t.Fatal(err)
		}

		srv2, err := handlers.New(d.deps)
		if err != nil {
			t.Fatal(err)
		}
		hs2 := httptest.NewUnstartedServer(srv2)
		hs2.Config.Protocols = rpc.HTTPProtocols()
		hs2.Config.WriteTimeout = time.Second // as WASTEFLOW_WRITE_TIMEOUT: a stream outlives it
		hs2.Start()
		defer hs2.Close()
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id}) // while nobody listens
		second := dialGRPC(t, hs2.URL)
		stream, err = notifier.NewNotificationApiClient(second).StreamNotifications(ctx, &notifier.StreamNotificationsRequest{Cursor: e1.GetCursor()})
		if err != nil {
			t.Fatal(err)
		}
		e2, err := recvWithin(t, 10*time.Second, stream.Recv)
		if err != nil || e2.GetDocumentId() != id || e2.GetCursor() == e1.GetCursor() ||
			!strings.Contains(e2.GetPayload().GetStructValue().GetFields()["to"].GetStringValue(), "ACKNOWLEDGED") {
			t.Fatalf("resumed: %v %v", err, e2)
		}
		// Nothing else is pending: the next event is the next change, not a repeat,
		// after longer than the server's write timeout.
		time.Sleep(1500 * time.Millisecond)
		other := d.submitted(t)
		e3, err := recvWithin(t, 10*time.Second, stream.Recv)
		if err != nil || e3.GetDocumentId() != other {
			t.Fatalf("after resuming: %v %v (a repeat of %s?)", err, e3, id)
		}
		srv2.StopStreams()
		_, err = recvWithin(t, 10*time.Second, stream.Recv)
		if grpcstatus.Code(err) != codes.Unavailable {
			t.Fatalf("shutdown: %v", err)
		}
		st, _, raw = d.do(t, call{path: "/svc.namespaced_notifier.v1.api.NotificationApi/StreamNotifications", headers: hdr("dev-1", lg["groupToken"].(string)), body: []byte("{}"), rest: true})
		wantError(t, 404, 5, st, raw)
		if strings.Contains(string(d.srv.OpenAPIYAML()), "StreamNotifications") {
			t.Fatal("a stream in the OpenAPI description")
		}
	})
}

// A UI watches a document: its retrieval document at once, then again on
// each change, with the caller's follow-up intents; the watch keeps the
// caller's access rules (a non-party's watch ends with NOT_FOUND).
func TestWatchDocumentSendsEachChange(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		conn := dialGRPC(t, d.url)
		id := d.submitted(t)
		ctx := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+d.token(t, "noor"))
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		watch, err := diwass.NewAuthorityDocumentApiClient(conn).WatchDocument(ctx, &diwass.AuthorityDocumentApiWatchDocumentRequest{DocumentId: id})
		if err != nil {
			t.Fatal(err)
		}
		m, err := recvWithin(t, 10*time.Second, watch.Recv)
		n := m.GetDocument().GetNotification()
		if err != nil || n.GetState() != "SUBMITTED" || len(m.GetFollowUpIntents()) == 0 || m.GetFollowUpIntents()[0].GetIntent() != "ACKNOWLEDGEMENT" {
			t.Fatalf("first: %v %v", err, m)
		}
		d.ok(t, "noor", au+"SubmitAcknowledgement", map[string]any{"documentId": id})
		m, err = recvWithin(t, 10*time.Second, watch.Recv)
		if err != nil || m.GetDocument().GetNotification().GetState() != "ACKNOWLEDGED" || m.GetDocument().GetNotification().GetVersion() <= n.GetVersion() {
			t.Fatalf("after acknowledgement: %v %v", err, m)
		}
		eve := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1", "authorization", "Bearer "+d.token(t, "eve"))
		w, err := diwass.NewCompanyDocumentApiClient(conn).WatchDocument(eve, &diwass.CompanyDocumentApiWatchDocumentRequest{DocumentId: id})
		if err == nil {
			_, err = recvWithin(t, 10*time.Second, w.Recv)
		}
		if grpcstatus.Code(err) != codes.NotFound {
			t.Fatalf("a non-party's watch: %v", err)
		}
	})
}
