package documents

import (
	"context"
	"fmt"
	"github.com/wasteflow/wasteflow/rules/labels"
	"sort"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// A register is one row per document with what compliance staff must be
// able to show. Each kind declares its row (KindOf.Register): codes,
// quantities, parties, dates; the runner adds what every document has
// (number, kind, state, when it was filed, its deadlines) and names the
// parties with their official numbers.

// RegisterRequest is what a kind's Register sees besides its aggregate.
type RegisterRequest struct {
	Parent       any // the parent's aggregate (nil for a kind without parent)
	ParentNumber string
	// Children are the documents under this one, each with its summary
	// as data (what a parent reads of its children); a child kind without
	// a summary gives its id, kind, state and number alone (a register
	// page does not read children's data).
	Children []engine.Related
	// Lang is the register's language ("en" or "de"): the words of its
	// values.
	Lang string
}

// RegisterRow is a kind's part of a document's row. Organisations are
// ids (the runner names them); dates are YYYY-MM-DD.
type RegisterRow struct {
	Codes                         []shipment.WasteClassification
	Notified, Shipped, Received   shipment.Quantity
	Notifier, Consignee, Facility string
	Producers, Carriers           []string
	Authorities                   *shipment.CompetentAuthorities
	AcknowledgedOn, Decision      string
	DecidedOn, ValidUntil         string
	ShipmentFrom, ShipmentTo      string
	ReceivedOn, CompletedOn       string
	// DIWASS is the exchange with DIWASS (nil: not exchanged).
	DIWASS *shipment.DIWASSExchange
}

// RegisterColumn is one column of the register: its key, its headers in
// English and German, and where its values come from (for docs/reference/registers.md).
type RegisterColumn struct{ Key, En, De, Source string }

// RegisterColumns are the register's columns, in order.
var RegisterColumns = []RegisterColumn{
	{"number", "Number", "Nummer", "the document's number (BMU notes: the note number)"},
	{"kind", "Kind", "Art", "the kind of document in the register's language (Notification, Annex VII document, Movement, Consignment note, Acceptance note; German: Notifizierung, …)"},
	{"state", "State", "Zustand", "the document's state in the register's language (BMU notes: the top layer's type, cancelled when cancelled)"},
	{"version", "Version", "Version", "the document's version"},
	{"notification_number", "Notification No.", "Notifizierungsnummer", "a movement's notification"},
	{"filed_on", "Filed on", "Eingereicht am", "when it left DRAFT (the audit trail); a movement: when it was created; BMU notes: when stored"},
	{"basel_codes", "Basel codes", "Basel-Codes", "waste classifications of the Basel annexes VIII and IX"},
	{"oecd_codes", "OECD codes", "OECD-Codes", "waste classifications of the OECD list"},
	{"ewc_codes", "EWC/AVV codes", "AVV-Schlüssel", "the European list of waste (AVV in Germany); BMU notes: the Abfallschlüssel"},
	{"other_codes", "National codes", "Nationale Codes", "national classifications"},
	{"notified_t", "Notified (t)", "Notifiziert (t)", "the notified total (notifications; movements: their notification's)"},
	{"notified_m3", "Notified (m³)", "Notifiziert (m³)", "the same in cubic metres"},
	{"shipped_t", "Shipped (t)", "Verbracht (t)", "movements and Annex VII documents: the actual quantity; notifications: the sum of their movements; BMU notes: the Menge"},
	{"received_t", "Received (t)", "Angenommen (t)", "the facility's receipt (else the consignee's)"},
	{"notifier", "Notifier / arranger / producer", "Notifizierende Person / Veranlasser / Erzeuger", "the notifier (Annex VII: the arranger; BMU: the producer): name, id and official numbers, address, registration number, EORI and VAT identifiers as the document recorded them when filed (a draft: as the directory has them)"},
	{"consignee", "Consignee", "Empfänger", "the consignee (likewise)"},
	{"facility", "Facility / disposer", "Anlage / Entsorger", "the recovery or disposal facility (BMU: the disposer)"},
	{"producers", "Producers", "Erzeuger", "the waste producers"},
	{"carriers", "Carriers", "Beförderer", "the carriers (BMU: with the vehicle)"},
	{"authorities", "Competent authorities", "Zuständige Behörden", "dispatch, destination and transit"},
	{"acknowledged_on", "Acknowledged on", "Bestätigt am", "the destination authority's acknowledgement (movements: the first)"},
	{"decision", "Decision", "Entscheidung", "each authority's decision in words (notifications): \"auth-de: Consent with conditions\""},
	{"decided_on", "Decided on", "Entschieden am", "the last decision"},
	{"valid_until", "Valid until", "Gültig bis", "the consent's validity"},
	{"shipment_from", "Shipment / handover", "Verbringung / Übergabe", "first departure or the actual date of shipment; BMU: the handover (Übergabedatum)"},
	{"shipment_to", "Last departure", "Letzter Versand", "the notification's last departure"},
	{"received_on", "Received / accepted on", "Eingegangen / angenommen am", "the facility's receipt; BMU: the disposer's acceptance (Annahmedatum)"},
	{"completed_on", "Completed on", "Abgeschlossen am", "the certificate of completed recovery or disposal"},
	{"deadlines", "Deadlines", "Fristen", "every deadline in words: rule, state, due day (\"Acknowledgement due: Met, 2026-12-15\")"},
	{"deadlines_met", "Met", "Eingehalten", "deadlines met in time"},
	{"deadlines_missed", "Missed", "Versäumt", "deadlines met late or overdue"},
	{"deadlines_lapsed", "Lapsed", "Abgelaufen", "periods that ended as the law foresees (tacit consent, end of validity)"},
	{"diwass", "DIWASS", "DIWASS", "Annex VII documents: DIWASS's number once sent, else the state of the exchange in the register's language (Waiting to be sent, Rejected: correct and send again, Uncertain: check in DIWASS); empty when not exchanged"},
}

// RegisterHeader is the header row in lang.
func RegisterHeader(lang string) []string {
	out := make([]string, len(RegisterColumns))
	for i, c := range RegisterColumns {
		out[i] = c.En
		if lang == "de" {
			out[i] = c.De
		}
	}
	return out
}

// RegisterQuery is one page of an organisation's register.
type RegisterQuery = models.RegisterQuery

// RegisterCount counts the documents of q.
func (r *Runner) RegisterCount(ctx context.Context, q RegisterQuery) (int64, error) {
	return r.Store.RegisterCount(ctx, q)
}

// RegisterLines reads one page of q and returns its rows (in
// RegisterColumns' order, words in lang) and the keyset of its last
// document (AfterID "" when the page was empty).
func (r *Runner) RegisterLines(ctx context.Context, q RegisterQuery, lang string) ([][]string, time.Time, string, error) {
	page, err := r.Store.RegisterPage(ctx, q)
	if err != nil || len(page.Docs) == 0 {
		return nil, time.Time{}, "", err
	}
	type made struct {
		doc          *models.Document
		kind         *Kind
		data, parent any
		row          RegisterRow
		pnum         string
	}
	rows := make([]made, 0, len(page.Docs))
	var orgs []string
	for i := range page.Docs {
		d := &page.Docs[i]
		k, ok := r.Kinds.Kind(d.Kind)
		if !ok || k.Register == nil {
			continue
		}
		data, err := k.decode(d.Data)
		if err != nil {
			return nil, time.Time{}, "", fmt.Errorf("document %s: stored data: %w", d.ID, err)
		}
		req := &RegisterRequest{Lang: lang}
		if d.ParentID != nil {
			if pdoc := page.Parents[*d.ParentID]; pdoc != nil {
				if pk, ok := r.Kinds.Kind(pdoc.Kind); ok {
					if req.Parent, err = pk.decode(pdoc.Data); err != nil {
						return nil, time.Time{}, "", fmt.Errorf("document %s: stored data: %w", pdoc.ID, err)
					}
				}
				req.ParentNumber = pdoc.Number
			}
		}
		if kids := page.Children[d.ID]; len(kids) > 0 {
			for i := range kids {
				c := &kids[i]
				ck, ok := r.Kinds.Kind(c.Kind)
				if !ok {
					continue
				}
				rel := &engine.Related{ID: c.ID, Kind: c.Kind, State: c.State, Number: c.Number}
				if ck.summarised() && c.Summary != "" { // the page reads children's summaries, not their data
					if rel.Data, err = ck.familyOf(c); err != nil {
						return nil, time.Time{}, "", fmt.Errorf("document %s: stored data: %w", c.ID, err)
					}
				}
				req.Children = append(req.Children, *rel)
			}
		}
		row := k.Register(req, data)
		orgs = append(orgs, row.Notifier, row.Consignee, row.Facility)
		orgs = append(orgs, row.Producers...)
		orgs = append(orgs, row.Carriers...)
		orgs = append(orgs, authorityIDs(row.Authorities)...)
		rows = append(rows, made{doc: d, kind: k, data: data, parent: req.Parent, row: row, pnum: req.ParentNumber})
	}
	dir, err := r.registerDirectory(ctx, q.Provider, orgs)
	if err != nil {
		return nil, time.Time{}, "", err
	}
	out := make([][]string, 0, len(rows))
	for _, m := range rows {
		d, row := m.doc, m.row
		// a party as the document recorded it when filed, else as the
		// directory has it now
		names := func(id string) string {
			if id == "" {
				return ""
			}
			p, ok := recorded(m.kind, d.State, m.data, m.parent, id)
			if !ok {
				p = dir.details(id)
			}
			return PartyLine(p, dir.numbers[id], lang)
		}
		filed := m.doc.CreatedAt
		if at, ok := page.Filed[d.ID]; ok {
			filed = at
		} else if d.State == "DRAFT" {
			filed = time.Time{}
		}
		basel, oecd, ewc, other := SplitCodes(row.Codes)
		dl, met, missed, lapsed := deadlineColumns(page.Deadlines[d.ID], lang)
		out = append(out, []string{
			d.Number, Word(labels.ListDocumentKind, d.Kind, lang), Word("state/"+strings.ToLower(d.Kind), d.State, lang), fmt.Sprint(d.Version), m.pnum, Day(filed),
			basel, oecd, ewc, other,
			tonnes(row.Notified), cubic(row.Notified), tonnes(row.Shipped), tonnes(row.Received),
			names(row.Notifier), names(row.Consignee), names(row.Facility), namesOf(names, row.Producers), namesOf(names, row.Carriers), namesOf(names, authorityIDs(row.Authorities)),
			row.AcknowledgedOn, row.Decision, row.DecidedOn, row.ValidUntil, row.ShipmentFrom, row.ShipmentTo, row.ReceivedOn, row.CompletedOn,
			dl, met, missed, lapsed, diwassColumn(row.DIWASS, lang),
		})
	}
	last := page.Docs[len(page.Docs)-1]
	return out, last.CreatedAt, last.ID, nil
}

// registerDir is what the directory knows of a register page's
// organisations: their rows and official numbers.
type registerDir struct {
	orgs    map[string]*models.Organisation
	numbers map[string][]string
}

func (d *registerDir) details(id string) shipment.PartyDetails {
	return directoryDetails(d.orgs[id], id)
}

// registerDirectory reads the organisations among ids and their official
// numbers for the register, in two queries.
func (r *Runner) registerDirectory(ctx context.Context, provider string, ids []string) (*registerDir, error) {
	var want []string
	seen := map[string]bool{}
	for _, id := range ids {
		if id != "" && !seen[id] {
			seen[id] = true
			want = append(want, id)
		}
	}
	dir := &registerDir{orgs: map[string]*models.Organisation{}, numbers: map[string][]string{}}
	if len(want) == 0 {
		return dir, nil
	}
	orgs, err := r.Store.Reads(ctx).Organisations(provider, want)
	if err != nil {
		return nil, err
	}
	if dir.numbers, err = r.Store.OrganisationNumbers(ctx, provider, want); err != nil {
		return nil, err
	}
	for i := range orgs {
		dir.orgs[orgs[i].ID] = &orgs[i]
	}
	return dir, nil
}

// authorityIDs are the competent authorities: dispatch, destination,
// transits (nil: none).
func authorityIDs(ca *shipment.CompetentAuthorities) []string {
	if ca == nil {
		return nil
	}
	var out []string
	for _, p := range ca.Authorities() {
		out = append(out, p.OrganisationID)
	}
	return out
}

func namesOf(name func(string) string, ids []string) string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		out = append(out, name(id))
	}
	return strings.Join(out, "; ")
}

// SplitCodes sorts waste classifications by list: Basel (annexes VIII and
// IX), OECD, the European list (EWC, AVV in Germany) and national ones,
// each "; "-joined.
func SplitCodes(cs []shipment.WasteClassification) (basel, oecd, ewc, other string) {
	var b, o, e, n []string
	for _, c := range cs {
		switch c.List {
		case "BASEL_ANNEX_VIII", "BASEL_ANNEX_IX":
			b = append(b, c.Code)
		case "OECD":
			o = append(o, c.Code)
		case "EU_LIST_OF_WASTE":
			e = append(e, c.Code)
		default:
			n = append(n, c.Code)
		}
	}
	return strings.Join(b, "; "), strings.Join(o, "; "), strings.Join(e, "; "), strings.Join(n, "; ")
}

// deadlineColumns: every deadline as "RULE STATE due YYYY-MM-DD", and how
// many were met in time, missed (met late or overdue) and lapsed.
func deadlineColumns(ds []models.Deadline, lang string) (all, met, missed, lapsed string) {
	sort.SliceStable(ds, func(i, j int) bool { return ds[i].StartedAt.Before(ds[j].StartedAt) })
	var parts []string
	var m, x, l int
	for _, d := range ds {
		parts = append(parts, Word(labels.ListDeadlineRule, d.Rule, lang)+": "+Word(labels.ListDeadlineState, d.State, lang)+", "+Day(d.DueAt))
		switch d.State {
		case "MET":
			m++
		case "MET_LATE", "OVERDUE":
			x++
		case "LAPSED":
			l++
		}
	}
	return strings.Join(parts, "; "), fmt.Sprint(m), fmt.Sprint(x), fmt.Sprint(l)
}

// Word is code of the label list named list in words in lang, or the code
// itself when the list does not know it (a register never loses a value).
func Word(list, code, lang string) string {
	if w, ok := labels.Code(list, code); ok {
		return w.In(lang)
	}
	return code
}

// Day is t as a register's date (YYYY-MM-DD in UTC; "" for none).
func Day(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.DateOnly)
}

func tonnes(q shipment.Quantity) string {
	if q.Tonnes == nil {
		return ""
	}
	return q.Tonnes.String()
}

func cubic(q shipment.Quantity) string {
	if q.CubicMetres == nil {
		return ""
	}
	return q.CubicMetres.String()
}

// diwassColumn: DIWASS's number once sent, else the exchange's state in
// words.
func diwassColumn(x *shipment.DIWASSExchange, lang string) string {
	switch {
	case x == nil:
		return ""
	case x.DocumentNumber != "":
		return x.DocumentNumber
	}
	return Word(labels.ListDIWASSState, x.State, lang)
}
