package diwass_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/models/dbtest"
	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

// A provider's companies become DIWASS operators once (issue 47.1): each
// with an EORI or VAT number is registered, one without is named; a second
// run keeps the links and sends nothing; a company DIWASS knows already is
// found and linked (its 409); a registration whose outcome is unknown
// (a hang) links on the next run through that same 409. Both databases.
func TestCompaniesBecomeOperatorsOnce(t *testing.T) {
	dbtest.Each(t, func(t *testing.T, cfg configs.Database) {
		db := dbtest.Open(t, cfg)
		if err := db.Create(&models.Provider{ID: "p", Environment: "test", Name: "P"}).Omit("Settings").Error; err != nil {
			t.Fatal(err)
		}
		for _, o := range []models.Organisation{
			{ProviderID: "p", ID: "acme", Kind: "company", Country: "DE", Name: "ACME", Street: "Werkstraße 2", PostalCode: "80687", City: "München",
				ContactPerson: "Anna Huber", Email: "anna@acme.example", EORI: "DE123456789012345", VAT: "DE123456789"},
			{ProviderID: "p", ID: "recyc", Kind: "company", Country: "NL", Name: "Recycling", City: "Venlo", VAT: "NL001234567B01"},
			{ProviderID: "p", ID: "truck", Kind: "company", Country: "DE", Name: "Truck"},
			{ProviderID: "p", ID: "lfu", Kind: "authority", Country: "DE", Name: "LfU", EORI: "DE999"},
		} {
			if err := db.Create(&o).Error; err != nil {
				t.Fatal(err)
			}
		}
		fake, url := startFake(t)
		reg := &diwass.Registrar{Client: client(url), Store: models.NewDIWASSStore(db), Authority: "DE002",
			Now: func() time.Time { return time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC) }}
		ctx := context.Background()
		outcomes := func() map[string]diwass.Registration {
			t.Helper()
			regs, err := reg.RegisterAll(ctx, "p")
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]diwass.Registration{}
			for _, r := range regs {
				out[r.Organisation] = r
			}
			return out
		}

		got := outcomes()
		if len(got) != 3 || got["acme"].Outcome != "registered" || got["recyc"].Outcome != "registered" || !errors.Is(got["truck"].Err, diwass.ErrNoIdentifier) {
			t.Fatalf("first run: %+v", got)
		}
		if l := got["acme"].Link; l.Identifier != "eori:DE123456789012345" || l.Status != "New" || l.Linked || l.OperatorID == "" {
			t.Fatalf("acme's link: %+v", l)
		}
		if l := got["recyc"].Link; l.Identifier != "vat:NL001234567B01" {
			t.Fatalf("recyc's link (VAT when there is no EORI): %+v", l)
		}
		if ops := fake.Operators(); len(ops) != 2 || ops[0].Authority != "DE002" || ops[1].Addresses[0].Country != "NL" {
			t.Fatalf("the fake holds %+v", ops)
		}
		sent := fake.Received("CreateOperatorRequest")
		if got := outcomes(); got["acme"].Outcome != "kept" || got["recyc"].Outcome != "kept" || fake.Received("CreateOperatorRequest") != sent {
			t.Fatalf("second run (nothing to send: truck has no identifier; %d requests sent): %+v", fake.Received("CreateOperatorRequest")-sent, got)
		}

		// A company DIWASS knows already: registered elsewhere, linked here.
		if _, err := client(url).CreateOperator(ctx, diwass.Operator{Name: "Barge BV", Identifiers: []diwass.Identifier{{Type: "eori", Name: "NL777", Main: true}},
			Addresses: []diwass.OperatorAddress{{Main: true, Address: diwass.Address{City: diwass.City{CountryID: "NL"}}}}}); err != nil {
			t.Fatal(err)
		}
		barge := fake.Operators()[2].InternalID
		if err := db.Create(&models.Organisation{ProviderID: "p", ID: "barge", Kind: "company", Country: "NL", Name: "Barge", EORI: "NL777"}).Error; err != nil {
			t.Fatal(err)
		}
		if got := outcomes(); got["barge"].Outcome != "linked" || got["barge"].Link.OperatorID != barge || !got["barge"].Link.Linked {
			t.Fatalf("a company DIWASS knew: %+v", got["barge"])
		}

		// The answer lost after DIWASS registered it: unknown outcome, no
		// link; the next run's 409 links the operator the lost request made.
		if err := db.Create(&models.Organisation{ProviderID: "p", ID: "rail", Kind: "company", Country: "DE", Name: "Rail", VAT: "DE555"}).Error; err != nil {
			t.Fatal(err)
		}
		fake.Next(diwassfake.Mishap{Lost: true})
		got = outcomes()
		var uncertain *diwass.UncertainError
		if got["rail"].Link != nil || !errors.As(got["rail"].Err, &uncertain) {
			t.Fatalf("a lost answer: %+v", got["rail"])
		}
		made := fake.Operators()[3].InternalID
		if got := outcomes(); got["rail"].Outcome != "linked" || got["rail"].Link.OperatorID != made {
			t.Fatalf("the run after a lost answer: %+v (DIWASS made %s)", got["rail"], made)
		}
		if n := len(fake.Operators()); n != 4 {
			t.Fatalf("DIWASS holds %d operators, want 4: none twice", n)
		}
		_, links, err := models.NewDIWASSStore(db).Companies(ctx, "p", nil)
		if err != nil || len(links) != 4 || links["rail"].OperatorID != made {
			t.Fatalf("the stored links: %+v %v", links, err)
		}
	})
}
