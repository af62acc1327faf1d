package documents

import (
	"encoding/json"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
)

// Deadline states (public contract).
const (
	DeadlineOpen      = "OPEN"
	DeadlineDueSoon   = "DUE_SOON"
	DeadlineOverdue   = "OVERDUE"
	DeadlineSuspended = "SUSPENDED"
	DeadlineMet       = "MET"
	DeadlineMetLate   = "MET_LATE"
	DeadlineCancelled = "CANCELLED"
	// DeadlineLapsed is a period that ended as the law foresees (tacit
	// consent, the end of a consent's validity): not a missed duty.
	DeadlineLapsed = "LAPSED"
)

// Event kinds (public contract).
const (
	EventStateChanged = eventkinds.StateChanged
	EventDueSoon      = eventkinds.DueSoon
	EventOverdue      = eventkinds.Overdue
	EventMetLate      = eventkinds.MetLate
)

var eventOfState = map[string]string{DeadlineDueSoon: EventDueSoon, DeadlineOverdue: EventOverdue, DeadlineMetLate: EventMetLate}

// running reports whether a deadline still waits for its party.
func running(d *models.Deadline) bool {
	return (d.State == DeadlineOpen || d.State == DeadlineDueSoon || d.State == DeadlineOverdue) && d.ClosedAt == nil
}

// pending: d runs or is suspended (it has not ended).
func pending(d *models.Deadline) bool { return running(d) || d.State == DeadlineSuspended }

func placeOf(dir engine.Directory, org string) calendar.Place {
	if dir == nil {
		return calendar.Place{}
	}
	o, _ := dir(org)
	return calendar.Place{Country: o.Country, Region: o.Region}
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

// dueAt computes when a deadline of rule started at start falls due for a
// party at place, after days of suspension; ok is false when the rule's
// date is not (yet) in the data.
func (f *firing) dueAt(r *engine.Rule, place calendar.Place, start time.Time, suspendedDays int) (time.Time, bool) {
	switch {
	case r.Until != "":
		end, err := time.ParseInLocation(time.DateOnly, f.def.Dates[r.Until](f.ev), calendar.Location(place.Country))
		if err != nil {
			return time.Time{}, false
		}
		return end.AddDate(0, 0, 1).Add(-time.Nanosecond).UTC(), true
	case r.Working:
		return calendar.AddWorkingDays(place, start, r.Days+suspendedDays), true
	default:
		return calendar.AddCalendarDays(place, start, r.Days+suspendedDays), true
	}
}

// firing is the state of one mutation that deadline effects work on.
type firing struct {
	def       *engine.Definition
	doc       *models.Document
	ev        *engine.Eval
	deadlines []models.Deadline // all of the document's, loaded in the transaction
	before    map[string]string // their states when loaded, by id
	warnDays  int
	out       outbox            // events, written with the document
	changed   []models.Deadline // new and changed deadlines, likewise
	started   int               // deadlines started so far (their ids)
}

// outbox collects the events of one transaction.
type outbox []models.Event

func (o *outbox) add(e models.Event, payload any) error {
	raw, err := json.Marshal(payload)
	if err != nil {
		return err
	}
	e.Payload = string(raw)
	*o = append(*o, e)
	return nil
}

// parties selects the parties of an effect: its own selector, else its rule's.
func (f *firing) parties(e engine.Effect, r *engine.Rule) []engine.Party {
	sel := e.Party
	if sel == "" {
		sel = r.Party
	}
	return f.def.Selectors[sel](f.ev)
}

// applyEffects runs the intent's deadline effects in the transaction.
func (f *firing) applyEffects(in *engine.Intent) error {
	now := f.ev.Now
	for _, e := range in.Effects {
		if !f.def.Holds(e.When, f.ev) {
			continue
		}
		rule, _ := f.def.Rule(e.Rule) // engine.Validate made sure it exists
		start := now
		if e.Since != "" {
			since, err := time.Parse(time.DateOnly, f.def.Dates[e.Since](f.ev))
			if err != nil {
				continue // the data has no such date: no period to track
			}
			start = since
		}
		for _, p := range f.parties(e, rule) {
			if e.Op == engine.Restart || e.Op == engine.Start {
				if e.Op == engine.Restart {
					f.close(rule.Name, p.Org, DeadlineCancelled, now)
				}
				f.start(rule, p, start)
				continue
			}
			for i := range f.deadlines {
				d := &f.deadlines[i]
				if d.Rule != rule.Name || d.PartyOrg != p.Org {
					continue
				}
				f.apply(e.Op, rule, d, now)
			}
		}
	}
	var changed []models.Deadline
	for i := range f.deadlines {
		d := &f.deadlines[i]
		before, existed := f.before[d.ID]
		if existed && before == d.State && !d.UpdatedAt.Equal(now) {
			continue // untouched
		}
		changed = append(changed, *d)
		if err := f.out.deadlineEvent(d, before, f.doc, now); err != nil {
			return err
		}
	}
	f.changed = changed // written with the document (Tx.Commit)
	return nil
}

func (f *firing) apply(op string, rule *engine.Rule, d *models.Deadline, now time.Time) {
	switch op {
	case engine.Stop:
		if pending(d) {
			if rule.Until != "" { // the date may have moved with this intent's data
				if due, ok := f.dueAt(rule, placeOf(f.ev.Dir, d.PartyOrg), d.StartedAt, d.SuspendedDays); ok {
					d.DueAt = due
				}
			}
			state := DeadlineMet
			if now.After(d.DueAt) {
				state = DeadlineMetLate
			}
			f.set(d, state, now)
		}
	case engine.Cancel:
		if pending(d) {
			f.set(d, DeadlineCancelled, now)
		}
	case engine.Lapse:
		if running(d) {
			f.set(d, DeadlineLapsed, now)
		}
	case engine.Suspend:
		if running(d) {
			d.SuspendedSince = &now
			d.State = DeadlineSuspended
			d.UpdatedAt = now
		}
	case engine.Resume:
		if d.State == DeadlineSuspended && d.SuspendedSince != nil {
			place := placeOf(f.ev.Dir, d.PartyOrg)
			d.SuspendedDays += calendar.DaysBetween(place, *d.SuspendedSince, now)
			d.SuspendedSince = nil
			if due, ok := f.dueAt(rule, place, d.StartedAt, d.SuspendedDays); ok {
				d.DueAt = due
			}
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

// deadlineEvent adds to o, when d just became due soon, overdue or met
// late, one event for the party that must act (exactly once per change:
// its dedup key).
func (o *outbox) deadlineEvent(d *models.Deadline, before string, doc *models.Document, now time.Time) error {
	kind, ok := eventOfState[d.State]
	if !ok || before == d.State {
		return nil
	}
	return o.add(models.Event{ProviderID: d.ProviderID, OrganisationID: d.PartyOrg, Kind: kind, DocumentID: d.DocumentID,
		DeadlineID: d.ID, DedupKey: d.ID + ":" + d.State, CreatedAt: now}, eventkinds.Deadline{
		DocumentNumber: doc.Number, DocumentKind: doc.Kind, Rule: d.Rule, LegalBasis: d.LegalBasis,
		Party: d.PartyOrg, State: d.State, DueAt: d.DueAt.UTC().Format(time.RFC3339)})
}

func (f *firing) close(rule, org, state string, now time.Time) {
	for i := range f.deadlines {
		d := &f.deadlines[i]
		if d.Rule == rule && d.PartyOrg == org && pending(d) {
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

// start opens a deadline of rule for p, its period counted from start.
func (f *firing) start(r *engine.Rule, p engine.Party, start time.Time) {
	now := f.ev.Now
	place := placeOf(f.ev.Dir, p.Org)
	due, ok := f.dueAt(r, place, start, 0)
	if !ok {
		return // the data has no such date: no period to track
	}
	warn := warnAt(place, due, f.warnDays)
	state := DeadlineOpen
	switch {
	case now.After(due):
		state = DeadlineOverdue
	case !now.Before(warn):
		state = DeadlineDueSoon
	}
	f.deadlines = append(f.deadlines, models.Deadline{
		ID: deadlineID(f.doc.ID, f.doc.AuditSeq+1, f.started), DocumentID: f.doc.ID, ProviderID: f.doc.ProviderID, Rule: r.Name, LegalBasis: r.LegalBasis,
		PartyOrg: p.Org, PartyRole: p.Role, State: state, StartedAt: start,
		DueAt: due, WarnAt: &warn, UpdatedAt: now,
	})
	f.started++
}
