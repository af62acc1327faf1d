package tests

import (
	"fmt"
	"runtime"
	"time"

	"github.com/wasteflow/wasteflow/rules/decimal"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/notifications"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

// print: PrintDocument of a typical consented notification (one producer,
// two carriers, three authorities, their decisions), over HTTP, beside
// its raw baseline: printing.Render of the same notification's Annex IA
// form in process (the layout and the PDF without the request, the read
// and the inspection link's insert). After the runs, 1,000 more prints
// one after another: the live heap after them, beside the live heap after
// the first 100, is the figure "print heap" (it must not grow).
func (b *loadBench) print(clients int) figure {
	id := b.d.consented(b.t, shippable(3))
	tok := b.d.token(b.t, "alice")
	body := []byte(fmt.Sprintf(`{"documentId":%q,"language":"de"}`, id))
	server, p99 := b.run(clients, func(c, i int) error { return b.post(co+"PrintDocument", tok, body) })
	form := typicalForm()
	raw, _ := b.run(1, func(c, i int) error { _, err := printing.Render(form); return err })
	return figure{name: "print", db: b.db, clients: clients, server: server, baseline: raw, p99: p99}
}

// printHeap prints 1,000 times and reports the live heap's growth from
// the 100th print to the 1,000th, in KiB.
func (b *loadBench) printHeap() float64 {
	id := b.d.consented(b.t, shippable(3))
	tok := b.d.token(b.t, "alice")
	body := []byte(fmt.Sprintf(`{"documentId":%q}`, id))
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var at100 uint64
	for i := 1; i <= 1000; i++ {
		if err := b.post(co+"PrintDocument", tok, body); err != nil {
			b.t.Fatal(err)
		}
		if i == 100 {
			time.Sleep(100 * time.Millisecond) // let the idle connections' buffers settle
			at100 = live()
		}
	}
	time.Sleep(100 * time.Millisecond)
	return (float64(live()) - float64(at100)) / 1024
}

func typicalForm() *printing.Form {
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	tonnes, _ := decimal.Parse("100")
	at := time.Date(2026, 12, 3, 10, 0, 0, 0, time.UTC)
	d := &n.Notification{Content: n.Content{Notifier: ref("acme"), Consignee: ref("recyc"), Facility: n.Facility{OrganisationID: "recyc"},
		Producers: []shipment.PartyRef{ref("acme")}, Carriers: []shipment.PartyRef{ref("truck"), ref("barge")},
		CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("auth-de"), Destination: ref("auth-nl"), Transit: []shipment.PartyRef{ref("auth-be")}},
		WasteClassifications: []shipment.WasteClassification{{List: "EU_LIST_OF_WASTE", Code: "16 02 13*"}}, RecoveryDisposalCodes: []string{"R4"},
		TotalQuantity: shipment.Quantity{Tonnes: &tonnes}, NumberOfShipments: 3,
		ShipmentPeriod: n.ShipmentPeriod{FirstDeparture: "2026-12-01", LastDeparture: "2027-06-30"}, PackagingTypes: []string{"DRUM", "BULK"}},
		Acknowledgements: []n.AcknowledgementRecord{{Authority: "auth-nl", At: at}}}
	for _, a := range []string{"auth-de", "auth-nl", "auth-be"} {
		d.Decisions = append(d.Decisions, n.DecisionRecord{Authority: a, At: at, Type: n.DecisionConsent})
	}
	names := map[string]string{"acme": "ACME", "recyc": "Recycling", "truck": "Carrier", "barge": "Barge carrier", "auth-de": "LfU Bayern", "auth-nl": "ILT", "auth-be": "OVAM"}
	title, basis, blocks := notifications.Form(d, "DE-2026-000001", "de", func(id string) shipment.PartyDetails {
		return shipment.PartyDetails{OrganisationID: id, Name: names[id], Address: shipment.Address{Country: "DE"}}
	})
	return &printing.Form{Title: title, Basis: basis, Number: "DE-2026-000001", Blocks: blocks, Labels: printing.German, Printed: at,
		AuditHead: "0f0f", InspectionLink: "http://127.0.0.1:8080/inspect/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}
}
