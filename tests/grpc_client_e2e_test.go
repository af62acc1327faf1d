package tests

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/types/known/structpb"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	grpcstatus "google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models/dbtest"
	diwass "github.com/wasteflow/wasteflow/proto/gen/go/svc/bxa/diwass/v1/api"
	core "github.com/wasteflow/wasteflow/proto/gen/go/svc/core/v1/api"
	types "github.com/wasteflow/wasteflow/proto/gen/go/wasteflow/types/v1"
)

// grpcLogin goes through the three stages of section 5 over gRPC: the
// provider_id and the credentials as the interface says, the refresh
// token as authorization metadata of RequestAccess.
func grpcLogin(t *testing.T, conn *grpc.ClientConn, user string) context.Context {
	t.Helper()
	ctx := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1")
	auth := core.NewAuthApiClient(conn)
	rt, err := auth.IssueRefreshToken(ctx, &core.IssueRefreshTokenRequest{
		UsernameCredentials: &types.UsernameCredentials{Username: user, Password: passwords[user]}, AppToken: appUI})
	if err != nil {
		t.Fatalf("login %s: %v", user, err)
	}
	at, err := auth.RequestAccess(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+rt.GetRefreshToken()), &core.RequestAccessRequest{})
	if err != nil {
		t.Fatalf("access %s: %v", user, err)
	}
	if at.GetAccessTokenExpiresAt().AsTime().Before(time.Now()) {
		t.Fatalf("access token expires at %v", at.GetAccessTokenExpiresAt().AsTime())
	}
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+at.GetAccessToken())
}

func protoTonnes(units int64) *types.Quantity {
	return &types.Quantity{Tonnes: &types.Decimal{Units: units}}
}

// A Go client generated from the committed protos (protoc-gen-go and
// protoc-gen-go-grpc, make proto) drives a notification to consent and a
// movement under it, and meets a business error, a refusal with its
// google.rpc details and the gateway's UNIMPLEMENTED for a missing
// provider_id, as typed values.
func TestGeneratedClientDrivesANotificationToConsent(t *testing.T) {
	parallel(t)
	dbtest.Each(t, func(t *testing.T, dbcfg configs.Database) {
		d := startDocs(t, dbcfg)
		conn := dialGRPC(t, d.url)
		company, authority := diwass.NewCompanyDocumentApiClient(conn), diwass.NewAuthorityDocumentApiClient(conn)
		alice := grpcLogin(t, conn, "alice")

		content := &types.NotificationContent{
			Notifier: &types.PartyRef{OrganisationId: "acme"}, Consignee: &types.PartyRef{OrganisationId: "recyc"},
			Facility:  &types.NotificationFacility{OrganisationId: "recyc"},
			Producers: []*types.PartyRef{{OrganisationId: "acme"}}, Carriers: []*types.PartyRef{{OrganisationId: "truck"}},
			CompetentAuthorities: &types.CompetentAuthorities{Dispatch: &types.PartyRef{OrganisationId: "auth-de"},
				Destination: &types.PartyRef{OrganisationId: "auth-nl"}, Transit: []*types.PartyRef{{OrganisationId: "auth-be"}}},
			WasteClassifications:  []*types.WasteClassification{{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}},
			RecoveryDisposalCodes: []string{"R4"}, TotalQuantity: protoTonnes(100), NumberOfShipments: 3,
			ShipmentPeriod: &types.ShipmentPeriod{FirstDeparture: "2026-12-01", LastDeparture: "2027-06-30"},
			PackagingTypes: []string{"DRUM"},
		}
		// A business error is an answer, not a failure: nothing is created.
		bad := proto.Clone(content).(*types.NotificationContent)
		bad.RecoveryDisposalCodes = []string{"R14"}
		created, err := company.CreateSubmission(alice, &diwass.CreateSubmissionRequest{Notification: bad})
		if err != nil || len(created.GetBusinessErrors()) != 1 || created.GetBusinessErrors()[0].GetCode() != "RECOVERY_DISPOSAL_CODE_INVALID" {
			t.Fatalf("business error: %v %v", err, created)
		}

		created, err = company.CreateSubmission(alice, &diwass.CreateSubmissionRequest{Notification: content})
		if err != nil || len(created.GetBusinessErrors()) != 0 || created.GetDocument().GetState() != "DRAFT" {
			t.Fatalf("create: %v %v", err, created)
		}
		id := created.GetDocument().GetId()
		version := created.GetDocument().GetVersion()
		filed, err := company.SetSubmission(alice, &diwass.SetSubmissionRequest{DocumentId: id, Version: &version, Notification: content})
		if err != nil || filed.GetDocument().GetState() != "SUBMITTED" {
			t.Fatalf("submit: %v %v", err, filed)
		}
		// A stale version: ABORTED, as REST's 409 with code 10.
		_, err = company.SetSubmission(alice, &diwass.SetSubmissionRequest{DocumentId: id, Version: &version, Notification: content})
		if grpcstatus.Code(err) != codes.Aborted {
			t.Fatalf("stale version: %v", err)
		}

		// The version is required: left out, INVALID_ARGUMENT naming it.
		_, err = company.SetSubmission(alice, &diwass.SetSubmissionRequest{DocumentId: id, Notification: content})
		if st := grpcstatus.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), `"version"`) {
			t.Fatalf("no version: %v", err)
		}
		version = filed.GetDocument().GetVersion() // each answer carries the version to send next

		noor := grpcLogin(t, conn, "noor")
		// The wrong authority acknowledging: PERMISSION_DENIED, saying whose intent it is.
		bernd := grpcLogin(t, conn, "bernd")
		_, err = authority.SubmitAcknowledgement(bernd, &diwass.SubmitAcknowledgementRequest{DocumentId: id, Version: &version, Acknowledgement: &types.Acknowledgement{}})
		if st := grpcstatus.Convert(err); st.Code() != codes.PermissionDenied || !strings.Contains(st.Message(), "AUTHORITY_DESTINATION") {
			t.Fatalf("wrong authority: %v", err)
		}
		acked, err := authority.SubmitAcknowledgement(noor, &diwass.SubmitAcknowledgementRequest{DocumentId: id, Version: &version, Acknowledgement: &types.Acknowledgement{}})
		if err != nil {
			t.Fatal(err)
		}
		version = acked.GetDocument().GetVersion()

		// The financial guarantee (Art. 7) through SetByIntent: submitted by
		// the notifier, approved by the authority of dispatch; a movement
		// needs one covering its date.
		document := func(block string, fields map[string]any) *structpb.Value {
			v, err := structpb.NewValue(map[string]any{"notification": map[string]any{"id": id, "version": fmt.Sprint(version), block: fields}})
			if err != nil {
				t.Fatal(err)
			}
			return v
		}
		g, err := company.SetByIntent(alice, &diwass.CompanyDocumentApiSetByIntentRequest{Intent: "GUARANTEE", Document: document("guarantee", map[string]any{
			"kind": "INSURANCE", "amount": map[string]any{"units": "180000"}, "currency": "eur", "guarantor": "Allianz Versicherungs-AG",
			"reference": "P-77-1203", "validFrom": "2026-12-01", "validUntil": "2027-12-31"})})
		if err != nil || len(g.GetBusinessErrors()) > 0 {
			t.Fatalf("guarantee: %v %v", err, g)
		}
		version = g.GetDocument().GetNotification().GetVersion()
		if gs := g.GetDocument().GetNotification().GetGuarantees(); len(gs) != 1 || gs[0].GetGuarantee().GetCurrency() != "EUR" || gs[0].GetApprovedAt() != nil {
			t.Fatalf("the guarantee submitted: %v", gs)
		}
		ga, err := authority.SetByIntent(bernd, &diwass.AuthorityDocumentApiSetByIntentRequest{Intent: "GUARANTEE_APPROVAL", Document: document("guaranteeApproval", map[string]any{"remarks": "approved"})})
		if err != nil || len(ga.GetBusinessErrors()) > 0 {
			t.Fatalf("approval: %v %v", err, ga)
		}
		version = ga.GetDocument().GetNotification().GetVersion()
		if gs := ga.GetDocument().GetNotification().GetGuarantees(); len(gs) != 1 || gs[0].GetApprovedBy() != "auth-de" || gs[0].GetApprovedAt() == nil {
			t.Fatalf("the guarantee approved: %v", gs)
		}
		var doc *types.NotificationDocument
		for _, u := range []context.Context{bernd, noor, grpcLogin(t, conn, "bart")} {
			r, err := authority.SetDecision(u, &diwass.SetDecisionRequest{DocumentId: id, Version: &version, Decision: &types.Decision{Type: types.DecisionType_CONSENT}})
			if err != nil || len(r.GetBusinessErrors()) > 0 {
				t.Fatalf("decision: %v %v", err, r)
			}
			doc = r.GetDocument()
			version = doc.GetVersion()
		}
		if doc.GetState() != "CONSENTED" {
			t.Fatalf("after three consents: %s", doc.GetState())
		}

		mv, err := company.CreateMovementTemplate(alice, &diwass.CreateMovementTemplateRequest{NotificationId: id, MovementTemplate: &types.Template{
			ActualDateOfShipment: "2026-12-07", ActualQuantity: protoTonnes(10), PackagingTypes: []string{"DRUM"},
			Carriers: []*types.MovementCarrier{{OrganisationId: "truck", MeansOfTransport: "ROAD"}}}})
		if err != nil || len(mv.GetBusinessErrors()) > 0 || mv.GetDocument().GetState() == "" {
			t.Fatalf("movement: %v %v", err, mv)
		}
		got, err := company.GetMovement(alice, &diwass.GetMovementRequest{DocumentId: mv.GetDocument().GetId()})
		if err != nil || got.GetDocument().GetNumber() != mv.GetDocument().GetNumber() || len(got.GetFollowUpIntents()) == 0 {
			t.Fatalf("get movement: %v %v", err, got)
		}

		// A field the request type requires, missing: INVALID_ARGUMENT with a BadRequest naming it.
		_, err = company.GetNotification(alice, &diwass.GetNotificationRequest{})
		st := grpcstatus.Convert(err)
		var br *errdetails.BadRequest
		for _, dt := range st.Details() {
			if b, ok := dt.(*errdetails.BadRequest); ok {
				br = b
			}
		}
		if st.Code() != codes.InvalidArgument || br == nil || br.GetFieldViolations()[0].GetField() != "documentId" {
			t.Fatalf("missing documentId: %v %v", err, st.Details())
		}
		// No provider_id: the gateway's UNIMPLEMENTED.
		_, err = core.NewDiscoveryApiClient(conn).ListProvider(context.Background(), &core.ListProviderRequest{})
		if err != nil {
			t.Fatalf("the directory needs no provider: %v", err)
		}
		_, err = company.GetNotification(context.Background(), &diwass.GetNotificationRequest{DocumentId: id})
		if st := grpcstatus.Convert(err); st.Code() != codes.Unimplemented || st.Message() != "Bad gRPC response. HTTP 404 Not Found: the provider_id header is missing" {
			t.Fatalf("no provider: %v", err)
		}
	})
}

// Over TLS (WASTEFLOW_TLS_CERT_FILE): gRPC over HTTP/2 and REST over
// HTTP/1.1 on one port.
func TestGRPCAndRESTOverTLS(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	hs := httptest.NewUnstartedServer(d.srv)
	hs.EnableHTTP2 = true
	hs.StartTLS()
	defer hs.Close()
	pool := x509.NewCertPool()
	pool.AddCert(hs.Certificate())
	conn, err := grpc.NewClient(strings.TrimPrefix(hs.URL, "https://"), grpc.WithTransportCredentials(credentials.NewClientTLSFromCert(pool, "")))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	list, err := core.NewDiscoveryApiClient(conn).ListProvider(context.Background(), &core.ListProviderRequest{})
	if err != nil || len(list.GetProviders()) == 0 {
		t.Fatalf("gRPC over TLS: %v %v", err, list)
	}
	client := hs.Client()
	client.Transport.(*http.Transport).ForceAttemptHTTP2 = false
	client.Transport.(*http.Transport).TLSNextProto = map[string]func(string, *tls.Conn) http.RoundTripper{} // HTTP/1.1
	resp, err := client.Get(hs.URL + "/svc.core.v1.api.DiscoveryApi/ListProvider")
	if err != nil || resp.StatusCode != 200 || resp.ProtoMajor != 1 {
		t.Fatalf("REST over TLS: %v %v", err, resp)
	}
	resp.Body.Close()
}

// Section 8's limits over gRPC: a request message over the body limit
// (about 28 MB) is RESOURCE_EXHAUSTED, as REST's 413 with code 8.
func TestGRPCRequestLimit(t *testing.T) {
	d := startDocs(t, dbtest.SQLite(t))
	conn := dialGRPC(t, d.url)
	alice := grpcLogin(t, conn, "alice")
	big := make([]byte, d.deps.Config.BodyLimit+1)
	_, err := core.NewDocumentApiClient(conn).ImportTransportDocument(alice, &core.ImportTransportDocumentRequest{Document: big})
	if grpcstatus.Code(err) != codes.ResourceExhausted {
		t.Fatalf("a request over the limit: %v", err)
	}
}

// A refusal REST sends with Retry-After carries a google.rpc.RetryInfo
// over gRPC, and the header as metadata.
func TestGRPCThrottledLoginCarriesRetryInfo(t *testing.T) {
	a := startAuth(t, dbtest.SQLite(t), 2)
	conn := dialGRPC(t, a.url)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "provider_id", "dev-1")
	auth := core.NewAuthApiClient(conn)
	wrong := &core.IssueRefreshTokenRequest{UsernameCredentials: &types.UsernameCredentials{Username: "alice", Password: "wrong-password-x"}, AppToken: appUI}
	for range 2 {
		if _, err := auth.IssueRefreshToken(ctx, wrong); grpcstatus.Code(err) != codes.Unauthenticated {
			t.Fatalf("wrong password: %v", err)
		}
	}
	var trailer metadata.MD
	_, err := auth.IssueRefreshToken(ctx, wrong, grpc.Trailer(&trailer))
	st := grpcstatus.Convert(err)
	var retry *errdetails.RetryInfo
	for _, d := range st.Details() {
		if r, ok := d.(*errdetails.RetryInfo); ok {
			retry = r
		}
	}
	if st.Code() != codes.ResourceExhausted || retry == nil || retry.GetRetryDelay().AsDuration() <= 0 || len(trailer.Get("retry-after")) == 0 {
		t.Fatalf("throttled: %v %v %v", err, st.Details(), trailer)
	}
}

// Over native gRPC the inspection link names the address the client
// called (the :authority of the call), and opens without login.
func TestInspectionLinkOverGRPC(t *testing.T) {
	parallel(t)
	d := startDocs(t, dbtest.SQLite(t))
	id := d.submitted(t)
	conn := dialGRPC(t, d.url)
	r, err := diwass.NewCompanyDocumentApiClient(conn).PrintDocument(grpcLogin(t, conn, "alice"), &diwass.CompanyDocumentApiPrintDocumentRequest{DocumentId: id})
	if err != nil {
		t.Fatal(err)
	}
	if link := r.GetInspectionLink(); !strings.HasPrefix(link, d.url+"/inspect/") {
		t.Fatalf("the link over gRPC: %q, want it under %s", link, d.url)
	}
	if st, _, body := inspect(t, r.GetInspectionLink(), ""); st != 200 || !strings.HasPrefix(string(r.GetDocument()), "%PDF-") {
		t.Fatalf("the link: %d %.200s", st, body)
	}
}
