package notifications

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/annex7"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Annex VII documents in generated orders (issue 46.3): each sequence
// creates one, fires what its parties are offered (five times in six) or
// any of its intents by anyone, moves the clock and sweeps, and, once the
// arranger initiated a take-back, announces and walks the take-back
// document that references it (whose completion closes the original
// through a chained act). After every step: what was offered went
// through, what was not was refused with nothing changed, and both
// documents replay from their trails.
func TestModelGeneratedOrdersAnnex7(t *testing.T) {
	budget := 5 * time.Second // a third of the notification's
	if s, err := strconv.Atoi(os.Getenv("WASTEFLOW_MODEL_SECONDS")); err == nil && s > 0 {
		budget = time.Duration(s) * time.Second / 3
	}
	if testing.Short() {
		budget = time.Second
	}
	seeds := []uint64{}
	if s, err := strconv.ParseUint(os.Getenv("WASTEFLOW_MODEL_SEED"), 10, 64); err == nil {
		seeds, budget = []uint64{s}, 0
	}
	w := newModelWorld(t)
	stats := &modelStats{intents: map[string]int{}}
	start := time.Now()
	for i := 0; i < len(seeds) || time.Since(start) < budget; i++ {
		seed := uint64(time.Now().UnixNano())
		if i < len(seeds) {
			seed = seeds[i]
		}
		if !w.annex7Sequence(t, seed, stats) {
			break
		}
	}
	var closed int64
	w.db.Table("audit_events").Where("intent = ?", annex7.IntentTakeBackCompleted).Count(&closed)
	t.Logf("model, Annex VII: %d sequences, %d steps, %d acts fired (%d offered, %d not offered and refused), %d business errors, %d sweeps, %d take-back documents (%d originals closed by their completion), %s; intents fired: %s",
		stats.sequences, stats.steps, stats.fired, stats.offered, stats.refusedAsNotOffered, stats.businessErrors, stats.sweeps, stats.movements, closed,
		time.Since(start).Round(time.Millisecond), stats.intentList())
}

var annex7Weight = map[string]float64{annex7.IntentWithdrawal: 0.1, annex7.IntentTakeBack: 0.3, annex7.IntentCorrection: 0.5}

func (w *modelWorld) annex7Content(r *rand.Rand) a.Content {
	ref := func(id string) shipment.PartyRef { return shipment.PartyRef{OrganisationID: id} }
	return a.Content{Arranger: ref("acme"), Consignee: ref("recyc"), Facility: a.Facility{OrganisationID: "recyc"}, Producers: []shipment.PartyRef{ref("acme")},
		Carriers:             []a.Carrier{{OrganisationID: "truck", MeansOfTransport: "ROAD"}},
		CompetentAuthorities: shipment.CompetentAuthorities{Dispatch: ref("de"), Destination: ref("nl")},
		WasteClassifications: []shipment.WasteClassification{{List: "BASEL_ANNEX_IX", Code: "B3011"}}, UsualDescription: "PET flakes", RecoveryCode: "R3",
		ActualQuantity: shipment.Quantity{Tonnes: &n.Decimal{Units: int64(1 + r.IntN(30))}}, ActualDateOfShipment: w.date(1 + r.IntN(8))}
}

func (w *modelWorld) annex7Input(r *rand.Rand, intent string, d *a.Annex7) any {
	switch intent {
	case annex7.IntentSubmission, annex7.IntentCorrection:
		c := d.Content
		if r.IntN(3) > 0 {
			c.ActualDateOfShipment = w.date(1 + r.IntN(8)) // one working day is too soon: PRIOR_NOTICE_TOO_LATE
			c.ActualQuantity = shipment.Quantity{Tonnes: &n.Decimal{Units: int64(1 + r.IntN(30))}}
		}
		return &c
	case annex7.IntentCarrierTransfer:
		return &a.CarrierTransfer{TransferDate: w.date(0)}
	case annex7.IntentConsigneeCertificate, annex7.IntentFacilityCertificate:
		return &a.ReceiptCertificate{ReceivedOn: w.date(0), Quantity: d.Content.ActualQuantity}
	case annex7.IntentCertificateOfCompletion:
		return &a.CertificateOfCompletion{CompletedOn: w.date(0)}
	case annex7.IntentTakeBack:
		return &a.TakeBack{Reason: "model"}
	case annex7.IntentWithdrawal:
		return &shipment.Withdrawal{Reason: "model"}
	}
	return &engine.None{}
}

// annex7Sequence runs one generated sequence; false when it found a fault.
func (w *modelWorld) annex7Sequence(t *testing.T, seed uint64, stats *modelStats) bool {
	r := rand.New(rand.NewPCG(seed, seed^0x51ed270b27a1c3f5))
	w.mu.Lock()
	w.now = time.Date(2027, 1, 4, 9, 0, 0, 0, time.UTC).AddDate(0, 0, r.IntN(300))
	w.mu.Unlock()
	stats.sequences++
	var trail []string
	fail := func(format string, args ...any) bool {
		t.Errorf("Annex VII, seed %d (WASTEFLOW_MODEL_SEED=%d repeats it), after %s: %s", seed, seed, strings.Join(trail, " → "), fmt.Sprintf(format, args...))
		return false
	}
	v, berrs, err := w.r.Create(asOrg("acme"), annex7.Kind, &annex7.CreateInput{Content: w.annex7Content(r)})
	if err != nil || len(berrs) > 0 {
		return fail("create: %v %v", err, berrs)
	}
	docs := []string{v.Doc.ID}
	final := annex7.NewKind().Def.Final
	for step := 0; step < 15+r.IntN(30); step++ {
		stats.steps++
		if _, err := w.tick(r, 6, stats, &trail); err != nil {
			return fail("sweep: %v", err)
		}
		id := docs[r.IntN(len(docs))]
		of, err := w.offers(id, annex7Weight)
		if err != nil {
			return fail("%v", err)
		}
		var d *a.Annex7
		state := ""
		for _, v := range of.views {
			d, state = v.Data.(*a.Annex7), v.Doc.State
		}
		if d == nil {
			return fail("nobody reads %s", id)
		}
		// An initiated take-back is carried out on a new document.
		if state == a.TakeBackInitiated && len(docs) == 1 && r.IntN(2) == 0 {
			c := w.annex7Content(r)
			c.TakeBackOf = id
			c.Consignee, c.Facility = shipment.PartyRef{OrganisationID: "acme"}, a.Facility{OrganisationID: "acme"}
			c.CompetentAuthorities = shipment.CompetentAuthorities{Dispatch: shipment.PartyRef{OrganisationID: "nl"}, Destination: shipment.PartyRef{OrganisationID: "de"}}
			tv, berrs, err := w.r.Create(asOrg("acme"), annex7.Kind, &annex7.CreateInput{Content: c})
			trail = append(trail, "acme:CREATE take-back")
			if err != nil {
				return fail("the take-back's create: %v", err)
			}
			if len(berrs) == 0 {
				docs = append(docs, tv.Doc.ID)
				stats.movements++ // here: take-back documents
			} else {
				stats.businessErrors++
			}
			continue
		}
		if slices.Contains(final, state) {
			if len(docs) == 1 || id != docs[0] {
				break
			}
			continue
		}
		org, intent, ok := of.pick(r, annex7.NewKind().Def, stats)
		if !ok {
			continue
		}
		trail = append(trail, org+":"+intent)
		if !w.fireChecked(t, id, org, intent, w.annex7Input(r, intent, d), of, stats, "", fail) {
			return false
		}
		for _, doc := range docs {
			res, err := w.r.ReplayFamily(context.Background(), doc)
			if err != nil {
				return fail("replay: %v", err)
			}
			for _, dv := range res.Divergences {
				return fail("the trail does not replay to the document: %s", dv)
			}
		}
	}
	return true
}
