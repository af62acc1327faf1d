package diwass_test

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

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
	"github.com/wasteflow/wasteflow/workflows/kinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
)

// An Annex VII document announced through the runner reaches DIWASS (the
// fake) through the job queue (River) with its parties registered as
// operators first (DIWASS busy at the first try: tried again), and its
// submission holds DIWASS's number; its
// correction is not sent again. Both databases.
func TestAnnouncedAnnex7GoesToDIWASS(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
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
		now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
		r, err := documents.New(db, func() time.Time { return now }, kinds.All()...)
		if err != nil {
			t.Fatal(err)
		}
		fake, url := startFake(t)
		queue, err := models.NewJobQueue(db, models.JobConfig{Workers: 2, Poll: 50 * time.Millisecond, JobTimeout: 10 * time.Second, RescueAfter: 20 * time.Second},
			slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		store := models.NewDIWASSStore(db)
		c := client(url)
		svc := &diwass.Service{Store: store, Jobs: queue, Client: c, Registrar: &diwass.Registrar{Client: c, Store: store, Authority: "DE002"}}
		svc.Register(queue)
		r.AfterAct = append(r.AfterAct, svc.OnAct)
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		if err := queue.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer queue.Stop(context.Background())

		as := reqctx.With(context.Background(), &reqctx.Info{RequestID: "t", Metadata: map[string][]string{},
			Principal: &reqctx.Principal{AccountID: 1, ProviderID: "p", OrganisationID: "acme"}})
		ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
		q, _ := decimal.Parse("12")
		content := a.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: a.Facility{OrganisationID: "recyc"}, Producers: []shipment.PartyRef{ref("acme")},
			Carriers:             []a.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
			CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("de"), Destination: ref("nl")},
			WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}}, UsualDescription: "PET flakes", RecoveryCode: "R3",
			ActualQuantity: shipment.Quantity{Tonnes: &q}, ActualDateOfShipment: "2026-12-04"}
		v, berrs, err := r.Create(as, annex7.Kind, &annex7.CreateInput{Content: content})
		if err != nil || len(berrs) > 0 {
			t.Fatalf("create: %v %v", err, berrs)
		}
		id := v.Doc.ID
		if _, err := store.Submission(ctx, id); err == nil {
			t.Fatal("a draft has a submission")
		}
		// DIWASS busy at the first registration: the submission waits and
		// its job runs again (River's backoff), not a rejection.
		fake.Next(diwassfake.Mishap{Status: 503, Plain: "busy"})
		if _, berrs, err := r.Fire(as, documents.Target{ID: id}, []string{annex7.IntentSubmission}, &content); err != nil || len(berrs) > 0 {
			t.Fatalf("announce: %v %v", err, berrs)
		}
		var sub *models.DIWASSSubmission
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if sub, err = store.Submission(ctx, id); err == nil && sub.State != "PENDING" && sub.State != "SENDING" {
				break
			}
		}
		if sub == nil || sub.State != "SENT" || !strings.HasPrefix(sub.DocumentNumber, "GLW.") || sub.Attempts != 2 {
			t.Fatalf("the submission: %+v %v", sub, err)
		}
		docs := fake.Documents()
		if len(docs) != 1 || docs[0].Number != sub.DocumentNumber || docs[0].Arranger.OperatorID == "" || docs[0].Carriers[0].OperatorID == "" ||
			docs[0].Export != "276" || docs[0].Import != "528" || !docs[0].ArrangerIsProducer {
			t.Fatalf("what DIWASS holds: %+v", docs)
		}
		if n := len(fake.Operators()); n != 3 {
			t.Fatalf("DIWASS holds %d operators, want the 3 companies", n)
		}
		// A correction is not sent as a second create.
		content.ActualQuantity.Tonnes = &decimal.Decimal{Units: 13}
		if _, berrs, err := r.Fire(as, documents.Target{ID: id}, []string{annex7.IntentCorrection}, &content); err != nil || len(berrs) > 0 {
			t.Fatalf("correct: %v %v", err, berrs)
		}
		time.Sleep(300 * time.Millisecond)
		if n := fake.Received("CreateAnnex7DocumentTypeRequest"); n != 1 {
			t.Fatalf("DIWASS received %d creates, want 1", n)
		}
	})
}
