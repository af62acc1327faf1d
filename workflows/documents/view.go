package documents

import (
	stdcmp "cmp"
	"slices"
	"strconv"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// Header opens every kind's retrieval document (inlined: its fields stand
// in the document itself). The values of kind and state, and the number's
// format, are written into each kind's schema from its declaration.
type Header struct {
	ID      string `json:"id" label:"Document|Dokument"`
	Number  string `json:"number" doc:"human number (our design)" label:"Document number|Dokumentnummer"`
	Kind    string `json:"kind" label:"Kind of document|Dokumentart" codeList:"documentKind"`
	State   string `json:"state" label:"Status|Status"`
	Version int64  `json:"version" doc:"send it back as version to detect concurrent changes (409, code 10)" label:"Version|Version"`
}

// Trailer is what every kind's retrieval document shows after its content
// and history (inlined too).
type Trailer struct {
	Deadlines []DeadlineInfo `json:"deadlines" doc:"the time limits running or suspended, then the 20 that ended latest, oldest first (deadlinesOmitted counts the others; GetDocument with fullHistory returns them all)" label:"Time limits|Fristen"`
	// DeadlinesOmitted: see DeadlinesListed.
	DeadlinesOmitted int32     `json:"deadlinesOmitted" doc:"how many ended time limits deadlines leaves out (0 with fullHistory). Our design (issue 49)." label:"Earlier time limits not listed|Nicht aufgeführte frühere Fristen"`
	CreatedAt        time.Time `json:"createdAt" label:"Created|Angelegt"`
	UpdatedAt        time.Time `json:"updatedAt" label:"Last changed|Zuletzt geändert"`
	// PartyDetails are the parties as the forms name them: see parties.go.
	PartyDetails []shipment.PartyDetails `json:"partyDetails" doc:"each party of the document once (the organisations its content names, in the order it names them) with its registration number, name, address, contact person, telephone, e-mail, EORI and VAT identifiers: as they were when the document was filed (or last corrected); a draft, and a document filed before details were recorded, shows the directory's current details. Our design." label:"Parties|Beteiligte"`
}

// KeptApart is how many of list's items (its JSON name in the aggregate)
// the view's data lacks: the oldest closed ones, kept apart and not read,
// which a retrieval document counts with those Latest leaves out.
func (v *View) KeptApart(list string) int32 { return int32(v.keptApart[list]) }

// Header of the viewed document.
func (v *View) Header() Header {
	return Header{ID: v.Doc.ID, Number: v.Doc.Number, Kind: v.Doc.Kind, State: v.Doc.State, Version: v.Doc.Version}
}

// Trailer of the viewed document.
func (v *View) Trailer() Trailer {
	ds := InOrder(v.Deadlines)
	var omitted int32
	if !v.FullHistory {
		ds, omitted = Latest(ds, pending, DeadlinesListed)
	}
	infos := DeadlineInfos(ds)
	if !v.now.IsZero() {
		for i := range infos {
			d := &ds[i]
			if !running(d) || d.SuspendedSince != nil {
				continue
			}
			place := v.places[d.PartyOrg]
			days := int32(calendar.DaysBetween(place, v.now, d.DueAt))
			working := int32(calendar.WorkingDaysBetween(place, v.now, d.DueAt))
			infos[i].DaysLeft, infos[i].WorkingDaysLeft = &days, &working
		}
	}
	return Trailer{Deadlines: infos, DeadlinesOmitted: omitted, CreatedAt: v.Doc.CreatedAt, UpdatedAt: v.Doc.UpdatedAt, PartyDetails: v.parties}
}

// DeadlinesListed is how many ended time limits a retrieval document
// lists after those that run or are suspended: a long history's met
// ones are not what a party acts on (Latest).
const DeadlinesListed = 20

// DeadlineInfo is a deadline as every retrieval document shows it.
type DeadlineInfo struct {
	Rule           string     `json:"rule" label:"Time limit|Frist" codeList:"deadlineRule"`
	LegalBasis     string     `json:"legalBasis" label:"Legal basis|Rechtsgrundlage"`
	Party          string     `json:"party" doc:"organisation that must act" label:"Who must act|Wer handeln muss"`
	PartyRole      string     `json:"partyRole" label:"Role|Rolle" codeList:"role"`
	State          string     `json:"state" doc:"OPEN, DUE_SOON, OVERDUE (a duty missed), SUSPENDED, MET, MET_LATE, CANCELLED, LAPSED (the period ended as the law foresees: tacit consent, end of a consent's validity)" label:"Status|Status" codeList:"deadlineState"`
	StartedAt      time.Time  `json:"startedAt" label:"Started|Begonnen"`
	DueAt          time.Time  `json:"dueAt" label:"Due by|Fällig bis"`
	SuspendedSince *time.Time `json:"suspendedSince" label:"Suspended since|Gehemmt seit"`
	Remaining      string     `json:"remaining" doc:"while suspended: the time left when it was suspended, as a duration (e.g. 1728000s)" label:"Time left when suspended|Restzeit bei Hemmung"`
	// What is left of a running deadline, counted at the acting party's
	// place (its calendar and time zone) from today by the provider's clock.
	DaysLeft        *int32 `json:"daysLeft" doc:"while it runs (OPEN, DUE_SOON, OVERDUE): calendar days from today to the due day at the acting party's place (0 on the due day, negative when overdue); null otherwise" label:"Days left|Verbleibende Tage"`
	WorkingDaysLeft *int32 `json:"workingDaysLeft" doc:"while it runs: working days at the acting party's place after today up to the due day (its public holidays and weekends skipped; negative when overdue); null otherwise" label:"Working days left|Verbleibende Arbeitstage"`
}

// InOrder is a copy of ds in the order a document shows them: oldest
// first, and those started together (the decision periods of every
// authority) by rule, party role and party, the same on every read (the
// store's order breaks ties by random ids).
func InOrder(ds []models.Deadline) []models.Deadline {
	out := slices.Clone(ds)
	slices.SortStableFunc(out, func(a, b models.Deadline) int {
		return stdcmp.Or(a.StartedAt.Compare(b.StartedAt), stdcmp.Compare(a.Rule, b.Rule),
			stdcmp.Compare(a.PartyRole, b.PartyRole), stdcmp.Compare(a.PartyOrg, b.PartyOrg))
	})
	return out
}

// DeadlineInfos shows a document's deadlines.
func DeadlineInfos(ds []models.Deadline) []DeadlineInfo {
	out := make([]DeadlineInfo, 0, len(ds))
	for _, dl := range ds {
		info := DeadlineInfo{Rule: dl.Rule, LegalBasis: dl.LegalBasis, Party: dl.PartyOrg, PartyRole: dl.PartyRole, State: dl.State,
			StartedAt: dl.StartedAt, DueAt: dl.DueAt, SuspendedSince: dl.SuspendedSince}
		if dl.SuspendedSince != nil {
			info.Remaining = strconv.FormatInt(int64(dl.DueAt.Sub(*dl.SuspendedSince)/time.Second), 10) + "s"
		}
		out = append(out, info)
	}
	return out
}
