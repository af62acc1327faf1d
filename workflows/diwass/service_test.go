package diwass_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/decimal"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
	"github.com/wasteflow/wasteflow/workflows/kinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// An Annex VII document announced through the runner reaches DIWASS (the
// fake) through the job queue (River) with its parties registered as
// operators first (DIWASS busy at the first try: tried again), and the
// document shows DIWASS's number (metadata.diwass) and every outcome in
// its history; its correction is not sent again but recorded as not sent.
// A rejection is told to the parties (an event) and offers the arranger
// DIWASS_RESUBMISSION; an UNCERTAIN exchange is resolved by the arranger
// with the number found in DIWASS, or by sending it again. The trail
// replays to the documents. Both databases.
func TestAnnouncedAnnex7GoesToDIWASS(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		fake, url := startFake(t)
		c := client(url)
		c.Timeout = time.Second
		db, r, store := connected(t, cfg, func() time.Time { return now }, c)
		ctx := context.Background()

		as := reqctx.With(context.Background(), &reqctx.Info{RequestID: "t", Metadata: map[string][]string{},
			Principal: &reqctx.Principal{AccountID: 1, ProviderID: "p", OrganisationID: "acme"}})
		ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
		q, _ := decimal.Parse("12")
		content := a.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: a.Facility{OrganisationID: "recyc"}, Producers: []shipment.PartyRef{ref("acme")},
			Carriers:             []a.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
			CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("de"), Destination: ref("nl")},
			WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}}, UsualDescription: "PET flakes", RecoveryCode: "R3",
			ActualQuantity: shipment.Quantity{Tonnes: &q}, ActualDateOfShipment: "2026-12-04"}
		fire := func(id, intent string, in any) {
			t.Helper()
			if _, berrs, err := r.Fire(as, documents.Target{ID: id}, []string{intent}, in); err != nil || len(berrs) > 0 {
				t.Fatalf("%s: %v %v", intent, err, berrs)
			}
		}
		announce := func() string {
			t.Helper()
			v, berrs, err := r.Create(as, annex7.Kind, &annex7.CreateInput{Content: content})
			if err != nil || len(berrs) > 0 {
				t.Fatalf("create: %v %v", err, berrs)
			}
			if got := exchange(t, r, as, v.Doc.ID); got.State != "NOT_CONNECTED" {
				t.Fatalf("a draft's exchange: %+v", got)
			}
			fire(v.Doc.ID, annex7.IntentSubmission, &content)
			return v.Doc.ID
		}
		// settled waits for the document's exchange to leave PENDING.
		settled := func(id string) shipment.DIWASSExchange {
			t.Helper()
			var x shipment.DIWASSExchange
			for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
				if x = exchange(t, r, as, id); x.State != "PENDING" {
					break
				}
			}
			sub, err := store.Submission(ctx, id)
			if err != nil || sub.State != x.State || sub.DocumentNumber != x.DocumentNumber || sub.Attempts != x.Attempts || sub.LastError != x.LastError {
				t.Fatalf("the submission %+v (%v) is not the document's exchange %+v", sub, err, x)
			}
			return x
		}

		// DIWASS busy at the first registration: the submission waits and
		// its job runs again (River's backoff), not a rejection.
		fake.Next(diwassfake.Mishap{Status: 503, Plain: "busy"})
		id := announce()
		x := settled(id)
		if x.State != "SENT" || !strings.HasPrefix(x.DocumentNumber, "GLW.") || x.Attempts != 2 || x.SentAt == nil || x.LastError != "" {
			t.Fatalf("the exchange: %+v", x)
		}
		docs := fake.Documents()
		if len(docs) != 1 || docs[0].Number != x.DocumentNumber || docs[0].Arranger.OperatorID == "" || docs[0].Carriers[0].OperatorID == "" ||
			docs[0].Export != "276" || docs[0].Import != "528" || !docs[0].ArrangerIsProducer {
			t.Fatalf("what DIWASS holds: %+v", docs)
		}
		if n := len(fake.Operators()); n != 3 {
			t.Fatalf("DIWASS holds %d operators, want the 3 companies", n)
		}
		if notes := history(t, r, as, id); !slices.Contains(notes, "DIWASS_EXCHANGE: attempt 1 did not reach DIWASS, tried again later: registering ACME (acme): not sent to DIWASS: HTTP 503") ||
			!slices.Contains(notes, "DIWASS_EXCHANGE: sent to DIWASS: "+x.DocumentNumber) {
			t.Fatalf("the history: %q", notes)
		}
		// A correction is not sent as a second create: the document says so.
		content.ActualQuantity.Tonnes = &decimal.Decimal{Units: 13}
		fire(id, annex7.IntentCorrection, &content)
		time.Sleep(300 * time.Millisecond)
		if n := fake.Received("CreateAnnex7DocumentTypeRequest"); n != 1 {
			t.Fatalf("DIWASS received %d creates, want 1", n)
		}
		if x := exchange(t, r, as, id); x.State != "SENT" || len(x.NotSent) != 1 || x.NotSent[0].Intent != "CORRECTION" || !strings.Contains(x.NotSent[0].Reason, "update not supported") {
			t.Fatalf("after a correction: %+v", x)
		}

		// Rejected: the parties are told, the arranger may send it again.
		fake.Next(diwassfake.Mishap{Status: 400, Fault: "validation: the consignee's operator is suspended"})
		rejected := announce()
		if x := settled(rejected); x.State != "REJECTED" || !strings.Contains(x.LastError, "suspended") || x.Attempts != 1 {
			t.Fatalf("rejected: %+v", x)
		}
		var events []models.Event
		db.Where("document_id = ? AND kind = ? AND organisation_id = ?", rejected, "DIWASS_EXCHANGE_CHANGED", "acme").Order("id").Find(&events)
		var told eventkinds.DIWASSExchange
		if len(events) != 1 || json.Unmarshal([]byte(events[0].Payload), &told) != nil || told.State != "REJECTED" || told.Previous != "PENDING" ||
			!strings.Contains(told.Error, "suspended") || told.DocumentNumber == "" {
			t.Fatalf("the arranger's events of the rejection: %+v", events)
		}
		if fu := followUps(t, r, as, rejected); !slices.Contains(fu, annex7.IntentDIWASSResubmission) || slices.Contains(fu, annex7.IntentDIWASSResolution) {
			t.Fatalf("the arranger's follow-ups after a rejection: %v", fu)
		}
		fire(rejected, annex7.IntentDIWASSResubmission, &annex7.DIWASSResubmission{Comment: "the consignee's operator is active again"})
		if x := settled(rejected); x.State != "SENT" || x.Attempts != 2 {
			t.Fatalf("sent again: %+v", x)
		}

		// A hang after the request was written: UNCERTAIN, never sent by
		// itself; resolved with the number DIWASS shows.
		before := fake.Received("CreateAnnex7DocumentTypeRequest")
		fake.Next(diwassfake.Mishap{Hang: true})
		hung := announce()
		if x := settled(hung); x.State != "UNCERTAIN" {
			t.Fatalf("a hang: %+v", x)
		}
		fake.Release()
		if fu := followUps(t, r, as, hung); !slices.Contains(fu, annex7.IntentDIWASSResolution) || slices.Contains(fu, annex7.IntentDIWASSResubmission) {
			t.Fatalf("the arranger's follow-ups when uncertain: %v", fu)
		}
		if _, berrs, err := r.Fire(as, documents.Target{ID: hung}, []string{annex7.IntentDIWASSResolution}, &shipment.DIWASSResolution{}); err != nil || len(berrs) != 1 {
			t.Fatalf("a resolution that says nothing: %v %v", err, berrs)
		}
		fire(hung, annex7.IntentDIWASSResolution, &shipment.DIWASSResolution{DocumentNumber: "GLW.DE260000000042x"})
		if x := exchange(t, r, as, hung); x.State != "SENT" || x.DocumentNumber != "GLW.DE260000000042x" {
			t.Fatalf("resolved with the number: %+v", x)
		}
		if n := fake.Received("CreateAnnex7DocumentTypeRequest") - before; n != 1 {
			t.Fatalf("DIWASS received %d creates of the uncertain document, want 1", n)
		}
		// Another: DIWASS does not hold it; sent again deliberately.
		fake.Next(diwassfake.Mishap{Cut: true})
		lost := announce()
		if x := settled(lost); x.State != "UNCERTAIN" {
			t.Fatalf("a cut connection: %+v", x)
		}
		fire(lost, annex7.IntentDIWASSResolution, &shipment.DIWASSResolution{SendAgain: true})
		if x := settled(lost); x.State != "SENT" || x.Attempts != 2 {
			t.Fatalf("sent again deliberately: %+v", x)
		}

		res, err := r.Replay(ctx)
		if err != nil || len(res.Divergences) > 0 || res.Documents != 4 {
			t.Fatalf("the replay: %+v %v", res, err)
		}
	})
}

func exchange(t *testing.T, r *documents.Runner, as context.Context, id string) shipment.DIWASSExchange {
	t.Helper()
	v, err := r.Get(as, id)
	if err != nil {
		t.Fatal(err)
	}
	doc := reflect.ValueOf(v.Kind.Document(v)).Elem().Field(0).Interface().(annex7.Annex7Document) // the retrieval document's own fields
	return doc.Metadata.DIWASS
}

func followUps(t *testing.T, r *documents.Runner, as context.Context, id string) []string {
	t.Helper()
	v, err := r.Get(as, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range v.FollowUp {
		out = append(out, f.Intent)
	}
	return out
}

// history is the document's trail as intent: note.
func history(t *testing.T, r *documents.Runner, as context.Context, id string) []string {
	t.Helper()
	h, err := r.History(as, id)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, row := range h.Rows {
		out = append(out, row.Intent+": "+row.Detail)
	}
	return out
}

// The exchange holds whatever happened to the document meanwhile (every
// order of events), on both databases: announced while DIWASS cannot be
// reached, corrected while the submission waits (the correction goes with
// it: nothing is listed as not sent), then carried, received and
// completed before DIWASS is back; DIWASS's number then lands on the
// COMPLETED document, which keeps its state, and the trail replays.
func TestDIWASSOutcomeAfterTheShipmentEnded(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		var clock atomic.Pointer[time.Time]
		at := func(s string) {
			d, _ := time.Parse(time.RFC3339, s)
			clock.Store(&d)
		}
		at("2026-12-01T09:00:00Z")
		// DIWASS's address, nothing listening yet.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		_, r, _ := connected(t, cfg, func() time.Time { return *clock.Load() }, client("http://"+addr))
		ctx := context.Background()

		as := func(org string) context.Context {
			return reqctx.With(context.Background(), &reqctx.Info{RequestID: "t", Metadata: map[string][]string{},
				Principal: &reqctx.Principal{AccountID: 1, ProviderID: "p", OrganisationID: org}})
		}
		fire := func(org, id, intent string, in any) {
			t.Helper()
			if _, berrs, err := r.Fire(as(org), documents.Target{ID: id}, []string{intent}, in); err != nil || len(berrs) > 0 {
				t.Fatalf("%s: %v %v", intent, err, berrs)
			}
		}
		ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
		twelve, thirteen := decimal.Decimal{Units: 12}, decimal.Decimal{Units: 13}
		content := a.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: a.Facility{OrganisationID: "recyc"}, Producers: []shipment.PartyRef{ref("acme")},
			Carriers:             []a.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
			CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("de"), Destination: ref("nl")},
			WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}}, UsualDescription: "PET flakes", RecoveryCode: "R3",
			ActualQuantity: shipment.Quantity{Tonnes: &twelve}, ActualDateOfShipment: "2026-12-04"}
		v, berrs, err := r.Create(as("acme"), annex7.Kind, &annex7.CreateInput{Content: content})
		if err != nil || len(berrs) > 0 {
			t.Fatalf("create: %v %v", err, berrs)
		}
		id := v.Doc.ID
		fire("acme", id, annex7.IntentSubmission, &content)
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if x := exchange(t, r, as("acme"), id); x.State == "PENDING" && x.Attempts == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no failed attempt")
			}
		}
		// While it waits: corrected, carried, received, completed.
		content.ActualQuantity.Tonnes = &thirteen
		fire("acme", id, annex7.IntentCorrection, &content)
		at("2026-12-04T10:00:00Z")
		fire("truck", id, annex7.IntentCarrierTransfer, &a.CarrierTransfer{TransferDate: "2026-12-04"})
		fire("recyc", id, annex7.IntentFacilityCertificate, &a.ReceiptCertificate{ReceivedOn: "2026-12-04", Quantity: shipment.Quantity{Tonnes: &thirteen}})
		fire("recyc", id, annex7.IntentCertificateOfCompletion, &a.CertificateOfCompletion{CompletedOn: "2026-12-04"})
		// DIWASS back: the next attempt sends the document as it stands.
		fake := diwassfake.New()
		if ln, err = net.Listen("tcp", addr); err != nil {
			t.Skipf("DIWASS's port was taken meanwhile: %v", err)
		}
		srv := &http.Server{Handler: fake}
		go srv.Serve(ln)
		defer srv.Close()
		var x shipment.DIWASSExchange
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			if x = exchange(t, r, as("acme"), id); x.State == "SENT" {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("not sent once DIWASS was back: %+v", x)
			}
		}
		got, err := r.Get(as("acme"), id)
		if err != nil || got.Doc.State != "COMPLETED" || len(x.NotSent) != 0 || x.Attempts != 2 {
			t.Fatalf("after DIWASS's number: %s, %+v (%v)", got.Doc.State, x, err)
		}
		if docs := fake.Documents(); len(docs) != 1 || docs[0].Mass == nil || docs[0].Mass.Value != "13" {
			t.Fatalf("DIWASS holds %+v, want the corrected 13 t", docs)
		}
		if res, err := r.Replay(ctx); err != nil || len(res.Divergences) > 0 {
			t.Fatalf("the replay: %+v %v", res, err)
		}
	})
}

// connected is a database with a provider, its companies and authorities,
// and a runner connected to DIWASS through c as serve connects it: the
// submission worker on a running job queue, the announcement's hook, the
// server's connection recorded with the acts.
func connected(t *testing.T, cfg configs.Database, now func() time.Time, c *diwass.Client) (*gorm.DB, *documents.Runner, *models.DIWASSStore) {
	t.Helper()
	db := dbtest.Open(t, cfg)
	db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P", Settings: "{}"})
	for _, o := range []models.Organisation{
		{ProviderID: "p", ID: "acme", Kind: "company", Country: "DE", Region: "BY", Name: "ACME", ContactPerson: "Anna Huber", EORI: "DE123456789012345"},
		{ProviderID: "p", ID: "recyc", Kind: "company", Country: "NL", Name: "Recycling", VAT: "NL001234567B01"},
		{ProviderID: "p", ID: "truck", Kind: "company", Country: "DE", Name: "Truck", EORI: "DE234567890123456"},
		{ProviderID: "p", ID: "de", Kind: "authority", Country: "DE", Region: "BY", Name: "LfU"},
		{ProviderID: "p", ID: "nl", Kind: "authority", Country: "NL", Name: "ILT"},
	} {
		if err := db.Create(&o).Error; err != nil {
			t.Fatal(err)
		}
	}
	r, err := documents.New(db, now, kinds.All()...)
	if err != nil {
		t.Fatal(err)
	}
	queue, err := models.NewJobQueue(db, models.JobConfig{Workers: 2, Poll: 50 * time.Millisecond, JobTimeout: 10 * time.Second, RescueAfter: 20 * time.Second},
		slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	store := models.NewDIWASSStore(db)
	svc := &diwass.Service{Store: store, Jobs: queue, Client: c, Acts: r, Registrar: &diwass.Registrar{Client: c, Store: store, Authority: "DE002"}}
	svc.Register(queue)
	r.AfterAct = append(r.AfterAct, svc.OnAct)
	r.Server = map[string]int{shipment.SettingDIWASS: 1}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := queue.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { queue.Stop(context.Background()) })
	return db, r, store
}
