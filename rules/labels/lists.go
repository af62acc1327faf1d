package labels

import (
	"golang.org/x/text/language"
	"golang.org/x/text/language/display"

	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// Names of the lists this package knows itself.
const (
	ListOperation        = "operation"
	ListMeansOfTransport = "meansOfTransport"
	ListPackagingType    = "packagingType"
	ListCountry          = "country"
	// ListWasteCode is the prefix of the waste code lists: the list of a
	// code is ListWasteCode + "/" + the classification's list
	// ("wasteCode/EU_LIST_OF_WASTE").
	ListWasteCode = "wasteCode"
	ListRole      = "role"
	// ListWasteClassificationList names the code lists a waste
	// classification can claim (WasteClassification.list).
	ListWasteClassificationList = "wasteClassificationList"
	// ListDeadlineRule names the deadline rules (registered by the kinds),
	// ListDeadlineState the states of a deadline, ListDocumentKind the
	// kinds of document.
	ListDeadlineRule  = "deadlineRule"
	ListDeadlineState = "deadlineState"
	ListDocumentKind  = "documentKind"
	// ListDIWASSState names the states of a document's exchange with
	// DIWASS (metadata.diwass.state).
	ListDIWASSState = "diwassState"
)

// DIWASSStates are the states of a document's exchange with DIWASS.
var DIWASSStates = map[string]Text{
	"NOT_CONNECTED": {"Not exchanged with DIWASS", "Nicht mit DIWASS ausgetauscht"},
	"PENDING":       {"Waiting to be sent", "Wartet auf Versand"},
	"SENT":          {"Sent, numbered by DIWASS", "Gesendet, von DIWASS nummeriert"},
	"REJECTED":      {"Rejected: correct and send again", "Abgelehnt: korrigieren und erneut senden"},
	"UNCERTAIN":     {"Uncertain: check in DIWASS", "Ungewiss: in DIWASS prüfen"},
}

// DeadlineStates are the states of a time limit.
var DeadlineStates = map[string]Text{
	"OPEN":      {"Open", "Offen"},
	"DUE_SOON":  {"Due soon", "Bald fällig"},
	"OVERDUE":   {"Overdue", "Überfällig"},
	"SUSPENDED": {"Suspended", "Gehemmt"},
	"MET":       {"Met", "Eingehalten"},
	"MET_LATE":  {"Met late", "Verspätet eingehalten"},
	"CANCELLED": {"Cancelled", "Entfallen"},
	"LAPSED":    {"Lapsed", "Abgelaufen"},
}

// DocumentKinds are the kinds of BMU note; a document kind adds its own
// name when its machine is built (engine.Labels.Kind).
var DocumentKinds = map[string]Text{
	"BGS": {"Consignment note", "Begleitschein"},
	"UNS": {"Acceptance note", "Übernahmeschein"},
}

// WasteClassificationLists are the code lists of waste codes.
var WasteClassificationLists = map[string]Text{
	wastecodes.EUListOfWaste:    {"European List of Waste", "Europäisches Abfallverzeichnis"},
	wastecodes.BaselAnnexVIII:   {"Basel Convention, Annex VIII", "Basler Übereinkommen, Anlage VIII"},
	wastecodes.BaselAnnexIX:     {"Basel Convention, Annex IX", "Basler Übereinkommen, Anlage IX"},
	wastecodes.OECD:             {"OECD list", "OECD-Liste"},
	wastecodes.National:         {"National code", "Nationaler Code"},
	wastecodes.BaselAnnexIandII: {"Basel Convention, Annexes I and II (Y-codes)", "Basler Übereinkommen, Anlagen I und II (Y-Codes)"},
	wastecodes.EUAnnexIIIA:      {"Annex IIIA of Regulation (EU) 2024/1157", "Anhang IIIA der Verordnung (EU) 2024/1157"},
	wastecodes.EUAnnexIIIB:      {"Annex IIIB of Regulation (EU) 2024/1157", "Anhang IIIB der Verordnung (EU) 2024/1157"},
}

// State, Intent: the names of a document kind's lists of states and
// intents; kind as in /workflows/<kind>.json ("notification").
func State(kind string) string  { return "state/" + kind }
func Intent(kind string) string { return "intent/" + kind }

// WasteCode is the name of the list of waste codes of a classification
// list ("EU_LIST_OF_WASTE").
func WasteCode(list string) string { return ListWasteCode + "/" + list }

// MeansOfTransport are the means of transport of Annex IA/IB (the codes the
// API takes), in the form's order.
var MeansOfTransport = map[string]Text{
	"ROAD":             {"Road", "Straße"},
	"RAIL":             {"Rail", "Schiene"},
	"SEA":              {"Sea", "See"},
	"AIR":              {"Air", "Luft"},
	"INLAND_WATERWAYS": {"Inland waterways", "Binnenwasserstraße"},
}

// PackagingTypes are the packaging types of Annex IA/IB box 7.
var PackagingTypes = map[string]Text{
	"DRUM":                {"Drum", "Fass"},
	"WOODEN_BARREL":       {"Wooden barrel", "Holzfass"},
	"JERRICAN":            {"Jerrican", "Kanister"},
	"BOX":                 {"Box", "Kiste"},
	"BAG":                 {"Bag", "Sack"},
	"COMPOSITE":           {"Composite packaging", "Kombinationsverpackung"},
	"PRESSURE_RECEPTACLE": {"Pressure receptacle", "Druckgefäß"},
	"BULK":                {"Bulk", "Lose Schüttung"},
	"OTHER":               {"Other", "Sonstige"},
}

func builtinLists() map[string]map[string]Text {
	out := map[string]map[string]Text{
		ListOperation:               Operations,
		ListMeansOfTransport:        MeansOfTransport,
		ListPackagingType:           PackagingTypes,
		ListCountry:                 countries(),
		ListWasteClassificationList: WasteClassificationLists,
		ListDeadlineState:           DeadlineStates,
		ListDocumentKind:            DocumentKinds,
		ListDIWASSState:             DIWASSStates,
	}
	for _, e := range wastecodes.Entries() {
		t, ok := wasteCodeText(e)
		if !ok {
			continue
		}
		name := WasteCode(e.List)
		if out[name] == nil {
			out[name] = map[string]Text{}
		}
		out[name][e.Code] = t
	}
	return out
}

// wasteCodeText is an entry's wording: the list's own (English, and German
// where the data has it: the EU list's entries, from the AVV), or the
// paraphrase of an entry without known wording (English in both
// languages; our data has no German for the Basel, OECD and EU Annex III
// lists). An entry of which only the code is known has no label.
func wasteCodeText(e wastecodes.Entry) (Text, bool) {
	en := e.Description
	if en == "" {
		en = e.Summary
	}
	if en == "" {
		return Text{}, false
	}
	de := e.DescriptionDE
	if de == "" {
		de = en
	}
	return Text{EN: en, DE: de}, true
}

// countries names every ISO 3166-1 alpha-2 country in English and German
// (CLDR's names, from golang.org/x/text/language/display).
func countries() map[string]Text {
	out := map[string]Text{}
	en, de := display.English.Regions(), display.German.Regions()
	for a := 'A'; a <= 'Z'; a++ {
		for b := 'A'; b <= 'Z'; b++ {
			code := string([]rune{a, b})
			r, err := language.ParseRegion(code)
			if err != nil || !r.IsCountry() || r.IsPrivateUse() || r.String() != code {
				continue
			}
			e, d := en.Name(r), de.Name(r)
			if e == "" || d == "" {
				continue
			}
			out[code] = Text{EN: e, DE: d}
		}
	}
	// The EU writes Greece EL in its own documents; ISO's GR is what the
	// API takes, and EL is named too in case a code list uses it.
	if g, ok := out["GR"]; ok {
		out["EL"] = g
	}
	return out
}
