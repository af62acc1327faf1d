package documents

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// The trail replays to the document (issue 46.2): replaying a family's
// audit rows from nothing, in the order they were written, each act on
// the engine alone (step, createStep) with the act's time, caller and
// input and what it consulted (facts), reproduces every document of the
// family as stored: its aggregate byte for byte, state, version, number,
// times, summary, chain head, and its deadlines. Between acts the sweep
// moves running deadlines to DUE_SOON and OVERDUE as time passes (no act,
// no version): the replay checks those moves are the sweep's at the time
// each row says (sweepMove). The audit trail is so a second copy of every
// document, and a proof that nothing an act did is missing from it.

// Divergence is where the replay of a trail parts from what is stored.
type Divergence struct {
	DocumentID string
	// Seq is the act's audit row (0: the document as stored after its
	// last act), Intent its intent.
	Seq    int64
	Intent string
	Reason string
}

func (d Divergence) String() string {
	if d.Seq == 0 {
		return fmt.Sprintf("document %s as stored: %s", d.DocumentID, d.Reason)
	}
	return fmt.Sprintf("document %s, act %d (%s): %s", d.DocumentID, d.Seq, d.Intent, d.Reason)
}

// ReplayResult counts what a replay checked and names where it parted.
type ReplayResult struct {
	Families, Documents, Acts int
	// Divergences holds the first of each family that parted.
	Divergences []Divergence
}

func (r ReplayResult) add(o ReplayResult) ReplayResult {
	return ReplayResult{r.Families + o.Families, r.Documents + o.Documents, r.Acts + o.Acts, append(r.Divergences, o.Divergences...)}
}

// Replay replays every family in the store (a page of roots at a time).
func (r *Runner) Replay(ctx context.Context) (ReplayResult, error) {
	var res ReplayResult
	after := ""
	for {
		roots, err := r.Store.Roots(ctx, after, 200)
		if err != nil || len(roots) == 0 {
			return res, err
		}
		for _, id := range roots {
			one, err := r.ReplayFamily(ctx, id)
			if err != nil {
				return res, err
			}
			res = res.add(one)
		}
		after = roots[len(roots)-1]
	}
}

// ReplayFamily replays the family of root (the document and those under
// it) and compares it with the store: the first divergence, if any, is
// in the result. An error is the store's (or ctx's).
func (r *Runner) ReplayFamily(ctx context.Context, root string) (ReplayResult, error) {
	fam, err := r.Store.Family(ctx, root)
	if err != nil {
		return ReplayResult{}, err
	}
	rp := &replay{r: r, docs: map[string]*replayed{}}
	res := ReplayResult{Families: 1, Documents: len(fam.Documents)}
	for i := range fam.Audit {
		row := &fam.Audit[i]
		res.Acts++
		if d := rp.act(ctx, row); d != nil {
			d.DocumentID, d.Seq, d.Intent = row.DocumentID, row.Seq, row.Intent
			res.Divergences = append(res.Divergences, *d)
			return res, nil
		}
	}
	if d := rp.compare(fam); d != nil {
		res.Divergences = append(res.Divergences, *d)
	}
	return res, nil
}

type replay struct {
	r    *Runner
	docs map[string]*replayed
}

// replayed is a document as the replay has it after its acts so far.
type replayed struct {
	k         *Kind
	doc       models.Document
	deadlines []models.Deadline
	children  []*replayed
}

func parted(format string, args ...any) *Divergence {
	return &Divergence{Reason: echo.Sprintf(format, args...)}
}

// act replays one audit row.
func (rp *replay) act(ctx context.Context, row *models.AuditEvent) *Divergence {
	if row.Context == "" {
		return parted("the row was written before acts kept what they consulted (migration 29): the trail cannot be replayed from nothing")
	}
	var fx facts
	if err := json.Unmarshal([]byte(row.Context), &fx); err != nil {
		return parted("its context does not read: %v", err)
	}
	if fx.V != factsVersion {
		return parted("its context is of form %d, this server reads form %d", fx.V, factsVersion)
	}
	c := engine.Caller{Actor: row.Actor, Org: row.ActorOrg, System: row.Actor == engine.System}
	dir := &directory{replay: &fx}
	row.At = micro(row.At) // UTC, as the act had it, whatever zone the driver reads it in
	if row.Seq == 1 {
		return rp.create(ctx, row, &fx, c, dir)
	}
	st := rp.docs[row.DocumentID]
	if st == nil {
		return parted("the act comes before its document's create in the order the rows were written")
	}
	k, m := st.k, st.k.Machine()
	in, ok := m.Intent(row.Intent)
	if !ok {
		return parted("kind %s declares no intent %s", k.Name(), row.Intent)
	}
	if row.Seq != st.doc.AuditSeq+1 || row.FromState != st.doc.State {
		return parted("the replay has the document at act %d in state %s, the row follows act %d from state %s", st.doc.AuditSeq, st.doc.State, row.Seq-1, row.FromState)
	}
	data, err := k.decode(st.doc.Data)
	if err != nil {
		return parted("the replayed aggregate does not read: %v", err)
	}
	newInput := in.Input
	if newInput == nil {
		newInput = in.SystemInput
	}
	input, err := fx.input(newInput)
	if err != nil {
		return parted("%v", err)
	}
	if !c.System {
		c.Roles = k.RolesOf(data, c.Org)
	}
	ev := &engine.Eval{DocID: st.doc.ID, Number: st.doc.Number, State: st.doc.State, Data: data, Caller: c, Now: row.At, Input: input, Deadlines: views(st.deadlines), CreatedAt: st.doc.CreatedAt}
	if fx.ParentSeq > 0 {
		if d := rp.parent(k, st.doc.ParentID, st.doc.ID, &fx, ev); d != nil {
			return d
		}
	}
	if len(st.children) > 0 {
		ev.Children = familyOf(st.children, "")
	}
	if len(ev.Children) != fx.Children {
		return parted("the act read %d documents under it, the replay has %d", fx.Children, len(ev.Children))
	}
	if k.tally != nil {
		ev.Tally = k.tally.count(ev.Children)
		if d := sameTally("the documents under it", fx.Tally, ev.Tally); d != nil {
			return d
		}
	}
	if err := m.Check(ctx, ev, row.Intent); err != nil {
		return parted("the replayed machine does not permit it: %v", err)
	}
	ev.Dir, ev.Setting = dir.lookup, dir.setting
	if d := rp.related(&fx, ev); d != nil {
		return d
	}
	deadlines := slices.Clone(st.deadlines)
	res, err := step(ctx, k, &st.doc, ev, deadlines, dir, row.Intent, fx.WarnDays)
	if err != nil {
		return parted("it fails on replay: %v", err)
	}
	if len(res.berrs) > 0 {
		return parted("it is refused on replay: %s", codes(res.berrs))
	}
	raw, err := json.Marshal(ev.Data)
	if err != nil {
		return parted("the replayed aggregate does not write: %v", err)
	}
	if d := checkDigests(&fx, raw, res.f.deadlines); d != nil {
		return d
	}
	again := models.AuditEvent{DocumentID: row.DocumentID, FromState: res.from, ToState: ev.State, Intent: row.Intent,
		Actor: row.Actor, ActorOrg: row.ActorOrg, At: row.At, RequestID: row.RequestID, Detail: ev.Note, Context: row.Context}
	audit.Link(&again, st.doc.AuditSeq, st.doc.AuditHash)
	if d := sameRow(row, &again); d != nil {
		return d
	}
	summary, err := k.summary(ev.Data)
	if err != nil {
		return parted("the replayed summary does not write: %v", err)
	}
	st.doc.State, st.doc.Version, st.doc.UpdatedAt = ev.State, st.doc.Version+1, row.At
	st.doc.Data, st.doc.Summary, st.doc.AuditSeq, st.doc.AuditHash = string(raw), summary, again.Seq, again.Hash
	st.deadlines = stored(res.f.deadlines)
	return nil
}

// create replays a document's first row.
func (rp *replay) create(ctx context.Context, row *models.AuditEvent, fx *facts, c engine.Caller, dir *directory) *Divergence {
	if fx.Create == nil {
		return parted("the first row of a document holds no create")
	}
	k, ok := rp.r.Kinds.Kind(fx.Create.Kind)
	if !ok {
		return parted("this server runs no kind %s", fx.Create.Kind)
	}
	input, err := fx.input(k.Def.Create.Input)
	if err != nil {
		return parted("%v", err)
	}
	ev := &engine.Eval{State: k.Def.Initial, Data: k.NewData(), Caller: c, Now: row.At, Input: input, Dir: dir.lookup, Setting: dir.setting}
	var parentID *string
	if fx.Create.Parent != "" {
		parentID = &fx.Create.Parent
		if d := rp.parent(k, parentID, row.DocumentID, fx, ev); d != nil {
			return d
		}
	}
	if d := rp.related(fx, ev); d != nil {
		return d
	}
	berrs, err := createStep(k, ev, dir)
	if err != nil {
		return parted("it fails on replay: %v", err)
	}
	if len(berrs) > 0 {
		return parted("it is refused on replay: %s", codes(berrs))
	}
	raw, err := json.Marshal(ev.Data)
	if err != nil {
		return parted("the replayed aggregate does not write: %v", err)
	}
	if d := checkDigests(fx, raw, nil); d != nil {
		return d
	}
	again := models.AuditEvent{DocumentID: row.DocumentID, ToState: k.Def.Initial, Intent: k.Def.Create.Name,
		Actor: row.Actor, ActorOrg: row.ActorOrg, At: row.At, RequestID: row.RequestID, Detail: ev.Note, Context: row.Context}
	audit.Link(&again, 0, "")
	if d := sameRow(row, &again); d != nil {
		return d
	}
	summary, err := k.summary(ev.Data)
	if err != nil {
		return parted("the replayed summary does not write: %v", err)
	}
	st := &replayed{k: k, doc: models.Document{ID: row.DocumentID, ProviderID: fx.Create.Provider, Kind: k.Def.Kind, Number: fx.Create.Number,
		State: k.Def.Initial, Version: 1, Data: string(raw), Summary: summary, ParentID: parentID, AuditSeq: again.Seq, AuditHash: again.Hash,
		CreatedBy: row.Actor, CreatedAt: row.At, UpdatedAt: row.At}}
	rp.docs[row.DocumentID] = st
	if parentID != nil {
		p := rp.docs[*parentID]
		p.children = append(p.children, st)
		p.doc.Children++
	}
	return nil
}

// parent puts the replayed parent of document self into ev, with self's
// siblings, as the act read them (fx).
func (rp *replay) parent(k *Kind, id *string, self string, fx *facts, ev *engine.Eval) *Divergence {
	if id == nil {
		return parted("the act read a parent, and the document has none")
	}
	if rp.docs[*id] == nil {
		return parted("the act read its parent %s, which the replay does not have yet (its rows are out of order)", *id)
	}
	p := rp.docs[*id]
	if p.doc.AuditSeq != fx.ParentSeq {
		return parted("the act read its parent %s at act %d, the replay has it at act %d", p.doc.ID, fx.ParentSeq, p.doc.AuditSeq)
	}
	data, err := p.k.decode(p.doc.Data)
	if err != nil {
		return parted("the replayed parent does not read: %v", err)
	}
	ev.Parent = &engine.Related{ID: p.doc.ID, Kind: p.doc.Kind, State: p.doc.State, Number: p.doc.Number, Data: data, Parties: p.k.Parties(data)}
	ev.Siblings = familyOf(p.children, self)
	if len(ev.Siblings) != fx.Siblings {
		return parted("the act read %d other documents under its parent, the replay has %d", fx.Siblings, len(ev.Siblings))
	}
	if k.Parent != nil && k.Parent.Tally != nil && k.Parent.Tally == p.k.tally {
		ev.SiblingsTally = p.k.tally.count(ev.Siblings)
		return sameTally("the other documents under its parent", fx.SiblingsTally, ev.SiblingsTally)
	}
	return nil
}

// sameTally: the tally an act read (recorded, JSON; none in a row written
// before tallies) is the one the replay counts afresh.
func sameTally(of string, recorded json.RawMessage, counted any) *Divergence {
	if len(recorded) == 0 {
		return nil
	}
	raw, err := encodeTally(counted)
	if err != nil {
		return parted("the replayed tally does not write: %v", err)
	}
	if !sameJSON(string(recorded), string(raw)) {
		return parted("the act read the tally of %s as %.120s, counted afresh it is %.120s", of, recorded, raw)
	}
	return nil
}

// familyOf are the documents of children but self as their relatives read
// them (their summaries), oldest first as the store orders them.
func familyOf(children []*replayed, self string) []*engine.Related {
	children = slices.Clone(children)
	slices.SortStableFunc(children, func(a, b *replayed) int {
		if c := a.doc.CreatedAt.Compare(b.doc.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.doc.ID, b.doc.ID)
	})
	var out []*engine.Related
	for _, ch := range children {
		if ch.doc.ID == self {
			continue
		}
		data, err := ch.k.familyOf(&ch.doc)
		if err != nil {
			data = nil // the act's own check says it parted
		}
		out = append(out, &engine.Related{ID: ch.doc.ID, Kind: ch.doc.Kind, State: ch.doc.State, Number: ch.doc.Number, Data: data})
	}
	return out
}

// related puts the documents the act read through its kind's references
// into ev, as the facts keep them.
func (rp *replay) related(fx *facts, ev *engine.Eval) *Divergence {
	for name, rel := range fx.Related {
		rk, ok := rp.r.Kinds.Kind(rel.Kind)
		if !ok {
			return parted("the act read a %s, a kind this server does not run", rel.Kind)
		}
		data, err := rk.decode(string(rel.Data))
		if err != nil {
			return parted("the document it read as %s does not read: %v", name, err)
		}
		if ev.Related == nil {
			ev.Related = map[string]*engine.Related{}
		}
		ev.Related[name] = &engine.Related{ID: rel.ID, Kind: rel.Kind, State: rel.State, Data: data, Parties: rk.Parties(data)}
	}
	return nil
}

func checkDigests(fx *facts, raw []byte, deadlines []models.Deadline) *Divergence {
	if got := digest(raw); got != fx.After.Data {
		return parted("the replayed aggregate differs from the one the act left (digest %s, the act's %s)", got, fx.After.Data)
	}
	if got := deadlineDigest(deadlines); got != fx.After.Deadlines {
		var replayed []string
		for _, d := range stored(deadlines) {
			replayed = append(replayed, deadlineText(d))
		}
		return parted("the replayed deadlines differ from those the act left; the replay has: %s", strings.Join(replayed, "; "))
	}
	return nil
}

// sameRow compares a stored row with the one the replay makes of it.
func sameRow(row, again *models.AuditEvent) *Divergence {
	switch {
	case row.ToState != again.ToState:
		return parted("the replay ends in state %s, the row says %s", again.ToState, row.ToState)
	case row.Detail != again.Detail:
		return parted("the replay notes %q, the row %q", again.Detail, row.Detail)
	case row.Hash != again.Hash:
		return parted("the row's hash is not the replayed row's (the row was changed, or it links to another chain)")
	}
	return nil
}

func codes(berrs []engine.BusinessError) string {
	var out []string
	for _, b := range berrs {
		out = append(out, b.Code)
	}
	return strings.Join(out, ", ")
}

// stored are deadlines as the store keeps them: times in microseconds.
func stored(ds []models.Deadline) []models.Deadline {
	out := make([]models.Deadline, len(ds))
	for i, d := range ds {
		d.StartedAt, d.DueAt, d.UpdatedAt = micro(d.StartedAt), micro(d.DueAt), micro(d.UpdatedAt)
		d.WarnAt, d.SuspendedSince, d.ClosedAt = microPtr(d.WarnAt), microPtr(d.SuspendedSince), microPtr(d.ClosedAt)
		out[i] = d
	}
	sortDeadlines(out)
	return out
}

func microPtr(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	m := micro(*t)
	return &m
}

// compare checks the replayed family against the stored one.
func (rp *replay) compare(fam *models.Family) *Divergence {
	for i := range fam.Documents {
		s := &fam.Documents[i]
		st := rp.docs[s.ID]
		if st == nil {
			return &Divergence{DocumentID: s.ID, Reason: "it has no trail"}
		}
		if d := sameDocument(s, &st.doc); d != nil {
			d.DocumentID = s.ID
			return d
		}
		if s.Tally != "" && st.k.tally != nil { // kept by differences: it is the count
			if d := sameTally("the documents under it, kept with it,", json.RawMessage(s.Tally), st.k.tally.count(familyOf(st.children, ""))); d != nil {
				d.DocumentID = s.ID
				return d
			}
		}
		var mine []models.Deadline
		for _, d := range fam.Deadlines {
			if d.DocumentID == s.ID {
				mine = append(mine, d)
			}
		}
		if d := sameDeadlines(stored(mine), st.deadlines); d != nil {
			d.DocumentID = s.ID
			return d
		}
	}
	return nil
}

func sameDocument(s, r *models.Document) *Divergence {
	type field struct {
		name         string
		stored, mine any
	}
	parent := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	for _, f := range []field{
		{"kind", s.Kind, r.Kind}, {"provider", s.ProviderID, r.ProviderID}, {"number", s.Number, r.Number},
		{"parent", parent(s.ParentID), parent(r.ParentID)}, {"state", s.State, r.State}, {"version", s.Version, r.Version},
		{"created by", s.CreatedBy, r.CreatedBy}, {"created at", micro(s.CreatedAt), r.CreatedAt}, {"updated at", micro(s.UpdatedAt), r.UpdatedAt},
		{"audit head", fmt.Sprint(s.AuditSeq, " ", s.AuditHash), fmt.Sprint(r.AuditSeq, " ", r.AuditHash)},
		{"children", s.Children, r.Children},
	} {
		if fmt.Sprint(f.stored) != fmt.Sprint(f.mine) {
			return parted("its %s is %v, the replay's %v", f.name, f.stored, f.mine)
		}
	}
	if !sameJSON(s.Summary, r.Summary) {
		return parted("its summary is %.80q, the replay's %.80q", s.Summary, r.Summary)
	}
	if !sameJSON(s.Data, r.Data) {
		at := 0
		for at < min(len(s.Data), len(r.Data)) && s.Data[at] == r.Data[at] {
			at++
		}
		return parted("its aggregate differs from the replay's from byte %d: %.60q against %.60q", at, s.Data[at:], r.Data[at:])
	}
	return nil
}

// sameJSON: a and b are the same bytes, or (PostgreSQL keeps the
// aggregate as jsonb: the value, its keys ordered and spaced its way) the
// same JSON value, numbers compared as written.
func sameJSON(a, b string) bool {
	if a == b {
		return true
	}
	va, ok := jsonValue(a)
	if !ok {
		return false
	}
	vb, ok := jsonValue(b)
	return ok && reflect.DeepEqual(va, vb)
}

func jsonValue(s string) (any, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil || d.More() {
		return nil, false
	}
	return v, true
}

// sameDeadlines compares the stored deadlines with the replayed ones; a
// running deadline the sweep moved since its last act is moved by the
// replay as the sweep would at the time its row says.
func sameDeadlines(s, r []models.Deadline) *Divergence {
	if len(s) != len(r) {
		return parted("it has %d deadlines, the replay %d", len(s), len(r))
	}
	for i := range s {
		want, got := s[i], r[i]
		if got != want && want.State != got.State && !want.UpdatedAt.Before(got.UpdatedAt) {
			sweepMove(&got, want.UpdatedAt)
			got.UpdatedAt = want.UpdatedAt
		}
		if !sameDeadline(want, got) {
			return parted("deadline %s (%s of %s) is %s, the replay's is %s", want.ID, want.Rule, want.PartyOrg, deadlineText(want), deadlineText(got))
		}
	}
	return nil
}

func sameDeadline(a, b models.Deadline) bool {
	return deadlineText(a) == deadlineText(b) && a.DocumentID == b.DocumentID && a.ProviderID == b.ProviderID && a.LegalBasis == b.LegalBasis && a.PartyRole == b.PartyRole
}

func deadlineText(d models.Deadline) string {
	return fmt.Sprintf("%s %s started %s due %s warn %s suspended %s+%dd closed %s changed %s", d.ID, d.State, micro(d.StartedAt).Format(time.RFC3339Nano),
		micro(d.DueAt).Format(time.RFC3339Nano), microText(d.WarnAt), microText(d.SuspendedSince), d.SuspendedDays, microText(d.ClosedAt),
		micro(d.UpdatedAt).Format(time.RFC3339Nano))
}
