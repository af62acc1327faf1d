package documents

import (
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// A filed document records its parties as the forms name them (Annex IA,
// IB, VII: registration number, name, address, contact person, telephone,
// e-mail, EORI and VAT) as they were when it was filed, so that a later
// change in the directory does not rewrite it:
//
//   - a kind's aggregate that embeds shipment.Recorded records them; the
//     runner fills the record whenever the document is written in a
//     state that is not private (a draft records nothing and shows the
//     directory's details): on the first write after its draft (a
//     notification's or Annex VII document's SUBMISSION, a movement's
//     creation) every party's details; later, a party the document names
//     for the first time (a changed carrier, say) gets its details of that
//     moment, a party it no longer names is dropped, and the others keep
//     theirs;
//   - an intent marked Refreshes (the kinds' corrections: a
//     notification's and an Annex VII document's CORRECTION, a
//     movement's MOVEMENT_TEMPLATE) records every party's details anew;
//   - a document stored before records existed has none: it reads, prints
//     and registers with the directory's details, and records them at its
//     next write.

// recorder is an aggregate that records its parties' details.
type recorder interface{ RecordedParties() *shipment.Recorded }

// recordOf is data's record of its parties (nil: the kind keeps none).
func recordOf(data any) *shipment.Recorded {
	if r, ok := data.(recorder); ok {
		return r.RecordedParties()
	}
	return nil
}

// partyIDs are the distinct organisations of k's parties in data, in the
// order the document names them.
func partyIDs(k *Kind, data any) []string {
	var out []string
	for _, p := range k.Parties(data) {
		if p.Org != "" && !slices.Contains(out, p.Org) {
			out = append(out, p.Org)
		}
	}
	return out
}

// record keeps in data (of kind k, in state) its parties' details: see
// above, read from the directory as it is now (past dir's cache, whose
// rows may be orgTTL old): only the parties without details yet (every
// party with refresh), in one query; none when there are none.
func record(dir *directory, k *Kind, state string, data any, refresh bool) error {
	rec := recordOf(data)
	if rec == nil || slices.Contains(k.Def.Private, state) {
		return nil
	}
	ids := partyIDs(k, data)
	have := make(map[string]shipment.PartyDetails, len(rec.PartyDetails))
	for _, p := range rec.PartyDetails {
		have[p.OrganisationID] = p
	}
	var want []string
	for _, id := range ids {
		if _, ok := have[id]; refresh || !ok {
			want = append(want, id)
		}
	}
	dir.refetch(want)
	if dir.err != nil {
		return dir.err
	}
	for _, id := range want {
		if p, ok := dir.details(id); ok {
			have[id] = p
		}
	}
	var out []shipment.PartyDetails
	for _, id := range ids {
		if p, ok := have[id]; ok { // an organisation the directory does not know has none
			out = append(out, p)
		}
	}
	rec.PartyDetails = out
	return nil
}

// viewParties fills v's parties' details: the record of a filed document,
// the directory's for a draft and for a party the record lacks (a
// document stored before records existed), read from the directory as
// it is now, in one query for those.
func viewParties(dir *directory, v *View) error {
	ids := partyIDs(v.Kind, v.Data)
	have := map[string]shipment.PartyDetails{}
	if rec := recordOf(v.Data); rec != nil && !slices.Contains(v.Kind.Def.Private, v.Doc.State) {
		for _, p := range rec.PartyDetails {
			have[p.OrganisationID] = p
		}
	}
	var want []string
	for _, id := range ids {
		if _, ok := have[id]; !ok {
			want = append(want, id)
		}
	}
	dir.refetch(want)
	if dir.err != nil {
		return dir.err
	}
	for _, id := range want {
		if o, ok := dir.known[id]; ok {
			have[id] = o.Details()
		}
	}
	v.parties = make([]shipment.PartyDetails, 0, len(ids))
	for _, id := range ids {
		if p, ok := have[id]; ok {
			v.parties = append(v.parties, p)
		}
	}
	return nil
}

// recorded is the details of organisation id as data (or, for a child,
// its parent's data) recorded them, if the document is filed and did.
func recorded(k *Kind, state string, data, parent any, id string) (shipment.PartyDetails, bool) {
	if slices.Contains(k.Def.Private, state) {
		return shipment.PartyDetails{}, false
	}
	for _, d := range []any{data, parent} {
		if rec := recordOf(d); rec != nil {
			if p, ok := rec.Party(id); ok {
				return p, true
			}
		}
	}
	return shipment.PartyDetails{}, false
}

// PartyLine is a party as a register cell shows it: "Name (id) [official
// numbers], street, postal code city, country, registration number, EORI
// …, VAT …", what is empty left out; the country in words of lang when
// the labels know it.
func PartyLine(p shipment.PartyDetails, numbers []string, lang string) string {
	head := p.OrganisationID
	if p.Name != "" {
		head = p.Name + " (" + p.OrganisationID + ")"
	}
	if len(numbers) > 0 {
		head += " [" + strings.Join(numbers, ", ") + "]"
	}
	parts := []string{head}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			parts = append(parts, s)
		}
	}
	a := p.Address
	add(a.Street)
	add(a.PostalCode + " " + a.City)
	add(CountryName(a.Country, lang))
	add(p.RegistrationNumber)
	if p.EORI != "" {
		add("EORI " + p.EORI)
	}
	if p.VAT != "" {
		add(vatWord(lang) + " " + p.VAT)
	}
	return strings.Join(parts, ", ")
}

// CountryName is a country code in words of lang (the code itself when
// the labels do not know it).
func CountryName(code, lang string) string {
	if code == "" {
		return ""
	}
	if t, ok := labels.Code("country", code); ok {
		if s := t.In(lang); s != "" {
			return s
		}
	}
	return code
}

func vatWord(lang string) string {
	if lang == "de" {
		return "USt-IdNr."
	}
	return "VAT"
}

// directoryDetails is o's details, or those of an organisation the
// directory does not know (its id alone).
func directoryDetails(o *models.Organisation, id string) shipment.PartyDetails {
	if o == nil || o.ID == "" {
		return shipment.PartyDetails{OrganisationID: id}
	}
	return o.Details()
}
