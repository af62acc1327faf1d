package tests

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/rpc"
	"github.com/wasteflow/wasteflow/workflows/status"

	// The Go client generated from proto/ (make proto): its messages
	// register themselves, so the transport below finds them by name.
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/bmu/v1/api"
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/preview/api"
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/namespaced_notifier/v1/api"
	_ "github.com/wasteflow/wasteflow/proto/gen/go/svc/signer/sign/v1"
)

// serveH2C serves srv over loopback as wasteflow serve does: HTTP/1.1 and
// HTTP/2 in cleartext on one port, native gRPC connections on the gRPC
// face's grpc-go server (Server.Listen), which the test's end shuts down.
func serveH2C(t testing.TB, srv *handlers.Server) *httptest.Server {
	hs := httptest.NewUnstartedServer(srv)
	hs.Config.Protocols = rpc.HTTPProtocols()
	if os.Getenv("WASTEFLOW_BENCH_GRPC") != "connect" { // connect: the bench's comparison, native gRPC through net/http and connect-go
		hs.Listener = srv.Listen(hs.Listener)
	}
	hs.Start()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Error(err)
		}
	})
	return hs
}

// overGRPC tells the tests whose servers carry every operation's call
// over gRPC: those TestCoreFlowsOverGRPC runs.
func overGRPC(t testing.TB) bool { return strings.HasPrefix(t.Name(), "TestCoreFlowsOverGRPC/") }

// grpcCalls counts the calls doGRPC carried.
var grpcCalls atomic.Int64

func dialGRPC(t testing.TB, base string) *grpc.ClientConn {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := grpc.NewClient(u.Host, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(rpc.MaxResponseBytes)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return conn
}

// doGRPC is env.do over gRPC: the JSON body becomes the generated request
// message (protojson), the headers metadata; the answer comes back as the
// REST face would have written it, so a scenario's assertions hold for
// both faces: the message as JSON with every field, an error as {code,
// message, details} with the HTTP status of its code, response metadata
// as headers.
func (e *env) doGRPC(t *testing.T, c call) (int, http.Header, []byte) {
	t.Helper()
	full := strings.TrimPrefix(c.path, "/")
	svcName, method, _ := strings.Cut(full, "/")
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svcName))
	if err != nil {
		t.Fatalf("%s: no generated service: %v", c.path, err)
	}
	md := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
	if md == nil {
		t.Fatalf("%s: no generated method", c.path)
	}
	in := newMessage(t, md.Input())
	if len(bytes.TrimSpace(c.body)) > 0 {
		if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(c.body, in); err != nil {
			t.Fatalf("%s: the scenario's body is no %s: %v\n%s", c.path, md.Input().FullName(), err, c.body)
		}
	}
	out := newMessage(t, md.Output())
	pairs := []string{}
	for k, v := range c.headers {
		pairs = append(pairs, strings.ToLower(k), v)
	}
	ctx, cancel := context.WithTimeout(metadata.AppendToOutgoingContext(context.Background(), pairs...), time.Minute)
	defer cancel()
	var header, trailer metadata.MD
	grpcCalls.Add(1)
	if md.IsStreamingServer() { // its first message stands for the answer
		var stream grpc.ClientStream
		stream, err = e.grpc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true}, "/"+full)
		if err == nil {
			if err = stream.SendMsg(in); err == nil {
				if err = stream.CloseSend(); err == nil {
					err = stream.RecvMsg(out)
				}
			}
			header, _ = stream.Header()
			trailer = stream.Trailer()
		}
	} else {
		err = e.grpc.Invoke(ctx, "/"+full, in, out, grpc.Header(&header), grpc.Trailer(&trailer))
	}
	h := http.Header{}
	for _, m := range []metadata.MD{header, trailer} {
		for k, vs := range m {
			for _, v := range vs {
				h.Add(k, v)
			}
		}
	}
	if err != nil {
		st := grpcstatus.Convert(err)
		details := []json.RawMessage{}
		for _, a := range st.Proto().GetDetails() {
			b, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(a)
			if err != nil {
				t.Fatalf("%s: detail %s: %v", c.path, a.GetTypeUrl(), err)
			}
			details = append(details, b)
		}
		body, _ := json.Marshal(map[string]any{"code": int(st.Code()), "message": st.Message(), "details": details})
		return status.HTTPStatus(status.Code(st.Code())), h, body
	}
	body, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	return http.StatusOK, h, body
}

func newMessage(t *testing.T, d protoreflect.MessageDescriptor) proto.Message {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(d.FullName())
	if err != nil {
		t.Fatalf("no generated message %s: %v", d.FullName(), err)
	}
	return mt.New().Interface()
}

// The REST scenarios' core flows pass over gRPC too: the same tests, every
// operation's call carried by a grpc-go client in binary protobuf over
// HTTP/2 (h2c), with the generated messages.
func TestCoreFlowsOverGRPC(t *testing.T) {
	var ran atomic.Int64
	for _, f := range []struct {
		name string
		run  func(*testing.T)
	}{
		{"NotificationHappyPath", TestNotificationHappyPath},
		{"NotificationRejections", TestNotificationRejections},
		{"MovementLife", TestMovementLife},
		{"MovementRejectedAndTakenBack", TestMovementRejectedAndTakenBack},
		{"Annex7Life", TestAnnex7Life},
		{"Annex7TakeBack", TestAnnex7TakeBack},
		{"TransportNoteLife", TestTransportNoteLife},
		{"TransportLists", TestTransportLists},
		{"BmuCreateAndValidate", TestBmuCreateAndValidate},
		{"BmuUpdateAndLayers", TestBmuUpdateAndLayers},
		{"BmuSignatures", TestBmuSignatures},
		{"BmuTemplates", TestBmuTemplates},
		{"SigningProcesses", TestSigningProcesses},
		{"AuthFlow", TestAuthFlow},
		{"LoginThrottling", TestLoginThrottling},
		{"DocumentLists", TestDocumentLists},
		{"WorkQueuesFollowTheLifecycle", TestWorkQueuesFollowTheLifecycle},
		{"DeadlineReportsAndGroupNotifications", TestDeadlineReportsAndGroupNotifications},
		{"IdempotencyKeys", TestIdempotencyKeys},
		{"TestClockWalksShipmentsThroughTime", TestTestClockWalksShipmentsThroughTime},
		{"LegalActsArticle15ClosureOnlyWhenTrue", TestLegalActsArticle15ClosureOnlyWhenTrue},
		{"LegalActsCancellationNeedsGrounds", TestLegalActsCancellationNeedsGrounds},
		{"LegalActsNoActThatDoesNothing", TestLegalActsNoActThatDoesNothing},
		{"LegalActsRepeatedDecisionSaysSo", TestLegalActsRepeatedDecisionSaysSo},
		{"LegalActsCreateMovementOnlyWithAShipmentLeft", TestLegalActsCreateMovementOnlyWithAShipmentLeft},
		{"LegalActsAnnex7CompletionIsTheAnnouncedOperation", TestLegalActsAnnex7CompletionIsTheAnnouncedOperation},
		{"LegalActsConsentExtendsTheShipmentPeriod", TestLegalActsConsentExtendsTheShipmentPeriod},
		{"ConsentDatesHoldUp", TestConsentDatesHoldUp},
		{"AuthoritiesMatchThePlaces", TestAuthoritiesMatchThePlaces},
		{"ChangeAfterConsentChangesTheTerms", TestChangeAfterConsentChangesTheTerms},
		{"WithdrawADraft", TestWithdrawADraft},
		{"MovementsStopWhenTheConsentEnds", TestMovementsStopWhenTheConsentEnds},
		{"EveryConsentAllowsAShipment", TestEveryConsentAllowsAShipment},
		{"ShipmentRefusedInPart", TestShipmentRefusedInPart},
		{"DraftsArePrivate", TestDraftsArePrivate},
		{"SignerAskRule", TestSignerAskRule},
		{"SignerShowsWhoAsked", TestSignerShowsWhoAsked},
		{"SignerListsEndedProcesses", TestSignerListsEndedProcesses},
		{"InboxRowsTellDeliveriesApart", TestInboxRowsTellDeliveriesApart},
		{"LapsedAndSuspendedDeadlinesInReports", TestLapsedAndSuspendedDeadlinesInReports},
		{"Annex7SetByIntentMatchesOperations", TestAnnex7SetByIntentMatchesOperations},
		{"SetByIntentMatchesOperations", TestSetByIntentMatchesOperations},
		{"NULIsRefusedInEveryString", TestNULIsRefusedInEveryString},
		{"SetByIntentNeedsTheVersion", TestSetByIntentNeedsTheVersion},
		{"EveryVersionIsRequired", TestEveryVersionIsRequired},
		{"IDsAreHeldToTheirLimit", TestIDsAreHeldToTheirLimit},
		{"ExpiredTokenSaysSo", TestExpiredTokenSaysSo},
		{"MovementLimits", TestMovementLimits},
		{"TemplateNumbersAreTakenOnce", TestTemplateNumbersAreTakenOnce},
		{"BmuRoundTripAndGolden", TestBmuRoundTripAndGolden},
		{"RefusedCreateAnswersNoDocument", TestRefusedCreateAnswersNoDocument},
		{"WebhookGuardRefusesZones", TestWebhookGuardRefusesZones},
		{"AnswersRepeatAtMost64Characters", TestAnswersRepeatAtMost64Characters},
		{"RegisterCSVHasNoFormulas", TestRegisterCSVHasNoFormulas},
		{"FutureCursorLosesNoEvent", TestFutureCursorLosesNoEvent},
		{"TestClockBoundsAndReset", TestTestClockBoundsAndReset},
	} {
		t.Run(f.name, func(t *testing.T) {
			t.Parallel() // the scenarios share nothing but the machine: their servers and databases are their own
			ran.Add(1)
			f.run(t)
		})
	}
	t.Cleanup(func() {
		if n := grpcCalls.Load(); !t.Failed() && n < 5*ran.Load() {
			t.Errorf("only %d calls went over gRPC in %d scenarios", n, ran.Load())
		}
	})
}

// testLog is the servers' log: nothing, or warnings on stderr with
// WASTEFLOW_TEST_LOG set.
func testLog() *slog.Logger {
	if os.Getenv("WASTEFLOW_TEST_LOG") == "" {
		return nil
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
