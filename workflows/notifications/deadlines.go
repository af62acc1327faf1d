package notifications

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Rule is a deadline rule (domain/workflows.md section 6), declared as data.
type Rule struct {
	Name       string
	LegalBasis string
	Days       int
	Working    bool // working days; calendar days moved to the next working day otherwise
	// UntilConsentEnd: the deadline is the end of the consent's validity.
	UntilConsentEnd bool
}

// Rules of the notification.
var Rules = map[string]Rule{
	"ACKNOWLEDGEMENT_DUE":   {Name: "ACKNOWLEDGEMENT_DUE", LegalBasis: "Art. 8(2) Regulation (EU) 2024/1157", Days: 10, Working: true},
	"INFORMATION_REPLY_DUE": {Name: "INFORMATION_REPLY_DUE", LegalBasis: "Art. 8(3) Regulation (EU) 2024/1157", Days: 10, Working: true},
	"DECISION_DUE":          {Name: "DECISION_DUE", LegalBasis: "Art. 9(1) Regulation (EU) 2024/1157", Days: 30},
	"CHANGE_REPLY_DUE":      {Name: "CHANGE_REPLY_DUE", LegalBasis: "Art. 17(2) Regulation (EU) 2024/1157", Days: 5, Working: true},
	"CONSENT_VALIDITY":      {Name: "CONSENT_VALIDITY", LegalBasis: "Art. 9 and 14 Regulation (EU) 2024/1157", UntilConsentEnd: true},
}

// Deadline states (public contract).
const (
	DeadlineOpen      = "OPEN"
	DeadlineDueSoon   = "DUE_SOON"
	DeadlineOverdue   = "OVERDUE"
	DeadlineSuspended = "SUSPENDED"
	DeadlineMet       = "MET"
	DeadlineMetLate   = "MET_LATE"
	DeadlineCancelled = "CANCELLED"
)

// running reports whether a deadline still waits for its party. A lapsed
// deadline (tacit consent, end of validity) stays OVERDUE but is closed.
func running(d *models.Deadline) bool {
	return (d.State == DeadlineOpen || d.State == DeadlineDueSoon || d.State == DeadlineOverdue) && d.ClosedAt == nil
}

// warnAt is the start of the day from which at most warnDays working days
// are left before due at place.
func warnAt(place calendar.Place, due time.Time, warnDays int) time.Time {
	loc := calendar.Location(place.Country)
	local := due.In(loc)
	day := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	for k := 0; k < warnDays; {
		day = day.AddDate(0, 0, -1)
		if calendar.IsWorkingDay(place, day) {
			k++
		}
	}
	return day.UTC()
}

// due computes when a deadline of rule started at start falls due for a
// party at place, after days of suspension.
func due(r Rule, place calendar.Place, start time.Time, suspendedDays int, doc *n.Notification) time.Time {
	switch {
	case r.UntilConsentEnd:
		end, err := time.ParseInLocation(time.DateOnly, doc.ConsentValidUntil, calendar.Location(place.Country))
		if err != nil {
			return start
		}
		return end.AddDate(0, 0, 1).Add(-time.Nanosecond).UTC()
	case r.Working:
		return calendar.AddWorkingDays(place, start, r.Days+suspendedDays)
	default:
		return calendar.AddCalendarDays(place, start, r.Days+suspendedDays)
	}
}

// firing is the state of one mutation that deadline effects work on.
type firing struct {
	tx        *gorm.DB
	doc       *models.Document
	data      *n.Notification
	ev        *engine.Eval
	places    map[string]calendar.Place
	deadlines []models.Deadline // all of the document's, loaded in the transaction
	before    map[string]string // their states when loaded, by id
	input     string            // INPUT_AUTHORITY selector
	warnDays  int
}

func (f *firing) parties(selector string) []n.Party {
	switch selector {
	case partyEachAuthority:
		return n.Authorities(&f.data.Content)
	case partyDestination:
		return []n.Party{{OrganisationID: f.data.Content.CompetentAuthorities.Destination.OrganisationID, Role: n.RoleAuthorityDestination}}
	case partyNotifier:
		return []n.Party{{OrganisationID: f.data.Content.Notifier.OrganisationID, Role: n.RoleNotifier}}
	case partyCaller:
		var out []n.Party
		for _, r := range f.ev.Caller.Roles {
			out = append(out, n.Party{OrganisationID: f.ev.Caller.Org, Role: r})
		}
		return out
	case partyInput:
		for _, a := range n.Authorities(&f.data.Content) {
			if a.OrganisationID == f.input {
				return []n.Party{a}
			}
		}
	}
	return nil
}

// applyEffects runs the intent's deadline effects in the transaction.
func (f *firing) applyEffects(in *engine.Intent) error {
	now := f.ev.Now
	for _, e := range in.Effects {
		if e.When != "" {
			name, negate := strings.CutPrefix(e.When, "!")
			if Definition.Guards[name](f.ev) == negate {
				continue
			}
		}
		rule, ok := Rules[e.Rule]
		if !ok {
			return fmt.Errorf("effect on unknown rule %s", e.Rule)
		}
		for _, p := range f.parties(e.Party) {
			if e.Op == engine.Restart || e.Op == engine.Start {
				if e.Op == engine.Restart {
					f.close(rule.Name, p.OrganisationID, DeadlineCancelled, now)
				}
				f.start(rule, p, now)
				continue
			}
			for i := range f.deadlines {
				d := &f.deadlines[i]
				if d.Rule != rule.Name || d.PartyOrg != p.OrganisationID {
					continue
				}
				switch e.Op {
				case engine.Stop:
					if running(d) || d.State == DeadlineSuspended {
						state := DeadlineMet
						if now.After(d.DueAt) {
							state = DeadlineMetLate
						}
						f.set(d, state, now)
					}
				case engine.Cancel:
					if running(d) || d.State == DeadlineSuspended {
						f.set(d, DeadlineCancelled, now)
					}
				case engine.Lapse:
					if running(d) {
						f.set(d, DeadlineOverdue, now)
					}
				case engine.Suspend:
					if running(d) {
						d.SuspendedSince = &now
						d.State = DeadlineSuspended
						d.UpdatedAt = now
					}
				case engine.Resume:
					if d.State == DeadlineSuspended && d.SuspendedSince != nil {
						place := f.places[d.PartyOrg]
						d.SuspendedDays += calendar.DaysBetween(place, *d.SuspendedSince, now)
						d.SuspendedSince = nil
						d.DueAt = due(rule, place, d.StartedAt, d.SuspendedDays, f.data)
						warn := warnAt(place, d.DueAt, f.warnDays)
						d.WarnAt = &warn
						d.State = DeadlineOpen
						if now.After(d.DueAt) {
							d.State = DeadlineOverdue
						} else if !now.Before(warn) {
							d.State = DeadlineDueSoon
						}
						d.UpdatedAt = now
					}
				}
			}
		}
	}
	for i := range f.deadlines {
		d := &f.deadlines[i]
		if f.before[d.ID] == d.State && !d.UpdatedAt.Equal(now) {
			continue // untouched
		}
		if err := saveDeadline(f.tx, d, f.before[d.ID], f.doc, now); err != nil {
			return err
		}
	}
	return nil
}

// Event kinds (public contract).
const (
	EventStateChanged = "DOCUMENT_STATE_CHANGED"
	EventDueSoon      = "DEADLINE_DUE_SOON"
	EventOverdue      = "DEADLINE_OVERDUE"
	EventMetLate      = "DEADLINE_MET_LATE"
)

var eventOfState = map[string]string{DeadlineDueSoon: EventDueSoon, DeadlineOverdue: EventOverdue, DeadlineMetLate: EventMetLate}

// saveDeadline writes d and, when it just became due soon, overdue or met
// late, one event for the party that must act (exactly once per change).
func saveDeadline(tx *gorm.DB, d *models.Deadline, before string, doc *models.Document, now time.Time) error {
	if err := tx.Save(d).Error; err != nil {
		return err
	}
	kind, ok := eventOfState[d.State]
	if !ok || before == d.State {
		return nil
	}
	return emit(tx, models.Event{ProviderID: d.ProviderID, OrganisationID: d.PartyOrg, Kind: kind, DocumentID: d.DocumentID,
		DeadlineID: d.ID, DedupKey: d.ID + ":" + d.State, CreatedAt: now}, map[string]any{
		"documentNumber": doc.Number, "documentKind": doc.Kind, "rule": d.Rule, "legalBasis": d.LegalBasis,
		"party": d.PartyOrg, "state": d.State, "dueAt": d.DueAt.UTC().Format(time.RFC3339)})
}

func emit(tx *gorm.DB, e models.Event, payload map[string]any) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	e.Payload = string(raw)
	return tx.Clauses(clause.OnConflict{DoNothing: true}).Create(&e).Error
}

func (f *firing) close(rule, org, state string, now time.Time) {
	for i := range f.deadlines {
		d := &f.deadlines[i]
		if d.Rule == rule && d.PartyOrg == org && (running(d) || d.State == DeadlineSuspended) {
			f.set(d, state, now)
		}
	}
}

func (f *firing) set(d *models.Deadline, state string, now time.Time) {
	d.State = state
	d.ClosedAt = &now
	d.SuspendedSince = nil
	d.UpdatedAt = now
}

func (f *firing) start(r Rule, p n.Party, now time.Time) {
	place := f.places[p.OrganisationID]
	d := due(r, place, now, 0, f.data)
	warn := warnAt(place, d, f.warnDays)
	state := DeadlineOpen
	if !now.Before(warn) {
		state = DeadlineDueSoon
	}
	f.deadlines = append(f.deadlines, models.Deadline{
		ID: newID("dl_"), DocumentID: f.doc.ID, ProviderID: f.doc.ProviderID, Rule: r.Name, LegalBasis: r.LegalBasis,
		PartyOrg: p.OrganisationID, PartyRole: p.Role, State: state, StartedAt: now,
		DueAt: d, WarnAt: &warn, UpdatedAt: now,
	})
}
