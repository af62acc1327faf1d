package documents

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/audit"
	"github.com/wasteflow/wasteflow/workflows/clock"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/eventkinds"
	"github.com/wasteflow/wasteflow/workflows/reqctx"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Runner creates, reads and fires documents of every registered kind.
type Runner struct {
	Store Store
	Kinds *Registry
	Now   func() time.Time
	// Clocks moves the time of providers with a test clock (sandbox
	// environments); nil: real time everywhere.
	Clocks *clock.Clocks
	// WarnWorkingDays is the DUE_SOON window before a deadline (default 2).
	WarnWorkingDays int
	// SweepWorkers is how many documents a sweep processes at once, each
	// document's due deadlines in one transaction (default 4).
	SweepWorkers int
	// AfterAct are called after each act is written, in its transaction
	// (ctx carries it): what must happen if and only if the act commits,
	// such as a job it starts. An error undoes the act.
	AfterAct []func(ctx context.Context, act Act) error
	// Server holds the facts of this server an act may read like a
	// provider's setting (serverSettings names them; 0 when absent),
	// recorded with the act as settings are.
	Server map[string]int

	orgs orgCache
}

// Act is an act just written: the document after it (as stored, and its
// aggregate), its intent.
type Act struct {
	Kind, Intent string
	Doc          *models.Document
	Data         any
}

// serverSettings are the server facts acts read (Runner.Server).
var serverSettings = map[string]struct{}{shipment.SettingDIWASS: {}}

func (r *Runner) afterAct(ctx context.Context, act Act) error {
	for _, fn := range r.AfterAct {
		if err := fn(ctx, act); err != nil {
			return err
		}
	}
	return nil
}

// orgCache remembers organisations (kind, place and party details) for a
// few seconds: rules ask for them on every transition, a filed document
// records its parties' details, and they change only through
// bootstrap and admin commands, whose changes reach a running server within
// orgTTL. Unknown ids are not remembered.
type orgCache struct {
	mu      sync.Mutex
	entries map[[2]string]cachedOrg
}

type cachedOrg struct {
	org     models.Organisation
	expires time.Time
}

const orgTTL = 10 * time.Second

func (c *orgCache) get(provider, id string, now time.Time) (models.Organisation, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[[2]string{provider, id}]
	return e.org, ok && now.Before(e.expires)
}

func (c *orgCache) put(provider, id string, o models.Organisation, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > 100_000 {
		c.entries = map[[2]string]cachedOrg{}
	}
	c.entries[[2]string{provider, id}] = cachedOrg{org: o, expires: now.Add(orgTTL)}
}

// New makes a runner over the kinds (validated by NewRegistry), keeping
// the documents in db.
func New(db *models.DB, now func() time.Time, kinds ...*Kind) (*Runner, error) {
	return NewOn(NewStore(db), now, kinds...)
}

// NewOn makes a runner over the kinds keeping the documents in store.
func NewOn(store Store, now func() time.Time, kinds ...*Kind) (*Runner, error) {
	reg, err := NewRegistry(kinds...)
	if err != nil {
		return nil, err
	}
	if now == nil {
		now = time.Now
	}
	return &Runner{Store: store, Kinds: reg, Now: now}, nil
}

// now is provider's time: real time, moved forward by the provider's test
// clock.
func (r *Runner) now(ctx context.Context, provider string) (time.Time, error) {
	t, err := r.Clocks.At(ctx, provider, r.Now())
	return micro(t), err // an act's time is its audit row's: what the store keeps
}

func (r *Runner) warnDays() int {
	if r.WarnWorkingDays <= 0 {
		return 2
	}
	return r.WarnWorkingDays
}

// FollowUp is an intent the caller may fire now.
type FollowUp struct {
	Intent    string
	Operation string
	Block     string
	DueAt     *time.Time
}

// View is a document as its caller sees it.
type View struct {
	Kind      *Kind
	Doc       models.Document
	Data      any
	Deadlines []models.Deadline
	FollowUp  []FollowUp
	// Children are the documents of child kinds under this one, oldest
	// first (all of them, or the part a kind that keeps their tally lists);
	// Visible says whether the caller is a party to each.
	Children []Child
	// Tally is what the children add up to (a kind that keeps a tally of
	// them; nil otherwise); such a kind's Children are the part of them
	// its retrieval document lists (listed), ChildrenOmitted how many of
	// the caller's it leaves out.
	Tally           any
	ChildrenOmitted int64
	// FullHistory: the retrieval document carries its exchange lists
	// whole, not their open items and the latest closed ones (Latest):
	// GetDocument's fullHistory.
	FullHistory bool
	// keptApart counts, by list, the items Data lacks: kept apart from
	// the aggregate and not read (Get; exchanges.go). nil: Data is whole.
	keptApart map[string]int
	// parent is the document a child kind's document belongs to, as its
	// follow-up intents' guards see it.
	parent *engine.Related
	// now is the provider's time when the caller's follow-up intents were
	// read, places where the deadlines' parties are: what is left of each
	// running deadline is counted with them (Trailer).
	now    time.Time
	places map[string]calendar.Place
	// parties are the parties' details the document shows (viewParties).
	parties []shipment.PartyDetails
	// offered are the caller's follow-up intents as the act that made the
	// view listed them (its list entry), so they are computed once per
	// request; nil: followUp asks the machine.
	offered []string
}

// Child is a document under a parent.
type Child struct {
	engine.Related
	Visible bool
}

// Target names the document a request acts on: its id, the kinds the
// operation serves (any when empty) and the version the caller expects.
type Target struct {
	ID      string
	Kinds   []string
	Version *int64
}

func partyOrgs(ps []engine.Party) []string {
	out := make([]string, 0, len(ps))
	for _, p := range ps {
		out = append(out, p.Org)
	}
	return out
}

func newID(prefix string) string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func notFound(id string) error { return status.New(status.NotFound, "no document %q", id) }

// caller is the engine caller of the request (roles come from the document).
func caller(ctx context.Context) (engine.Caller, *reqctx.Principal, error) {
	p := reqctx.From(ctx).Principal
	if p == nil || p.AccountID == 0 {
		return engine.Caller{}, nil, status.New(status.PermissionDenied, "document operations need an account's access token")
	}
	return engine.Caller{Actor: fmt.Sprint(p.AccountID), Org: p.OrganisationID}, p, nil
}

// directory looks organisations up as the rules ask, one query for the
// ones named up front (the document's parties and the caller) and one per
// other organisation, remembered for the transaction: its cost follows the
// document, not the provider's size. A database error is kept in err and
// the runner returns it after the rules ran. With rec set, every answer
// the rules were given is written into it (the act's facts, kept with its
// audit row); with replay set, it answers from those facts alone and
// reads nothing (the replay's directory).
type directory struct {
	tx       Reader
	provider string
	cache    *orgCache
	known    map[string]models.Organisation
	missing  map[string]bool
	settings *string // the provider's settings, read when a rule first asks
	server   map[string]int
	err      error
	rec      *facts
	replay   *facts
}

// setting is the provider's value of rule setting name (its default when
// the provider set none): engine.Eval.Setting.
func (d *directory) setting(name string) int {
	_, server := serverSettings[name]
	if d.replay != nil {
		v, ok := d.replay.Settings[name]
		if !ok && !server { // a server fact an older act did not read was 0
			d.fail(fmt.Errorf("the act read setting %s, which its trail does not hold", name))
		}
		return v
	}
	if server {
		v := d.server[name]
		if d.rec != nil {
			if d.rec.Settings == nil {
				d.rec.Settings = map[string]int{}
			}
			d.rec.Settings[name] = v
		}
		return v
	}
	if d.settings == nil {
		raw, err := d.tx.ProviderSettings(d.provider)
		if err != nil && d.err == nil {
			d.err = err
		}
		d.settings = &raw
	}
	v := rules.ProviderSettingValue(*d.settings, name)
	if d.rec != nil {
		if d.rec.Settings == nil {
			d.rec.Settings = map[string]int{}
		}
		d.rec.Settings[name] = v
	}
	return v
}

func (d *directory) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (r *Runner) newDirectory(tx Reader, provider string, ids ...string) *directory {
	d := &directory{tx: tx, provider: provider, cache: &r.orgs, known: map[string]models.Organisation{}, missing: map[string]bool{}, server: r.Server}
	d.fetch(ids, false)
	return d
}

// fetch reads the organisations among ids the directory does not hold
// yet, from the cache unless fresh.
func (d *directory) fetch(ids []string, fresh bool) {
	if d.replay != nil {
		return
	}
	var want []string
	now := time.Now()
	for _, id := range ids {
		if _, ok := d.known[id]; ok || id == "" || d.missing[id] || slices.Contains(want, id) {
			continue
		}
		if o, ok := d.cache.get(d.provider, id, now); ok && !fresh {
			d.known[id] = o
			continue
		}
		want = append(want, id)
	}
	if len(want) == 0 || d.err != nil {
		return
	}
	orgs, err := d.tx.Organisations(d.provider, want)
	if err != nil {
		d.err = err
		return
	}
	for _, o := range orgs {
		d.known[o.ID] = o
		d.cache.put(d.provider, o.ID, o, now)
	}
	for _, id := range want {
		if _, ok := d.known[id]; !ok {
			d.missing[id] = true
		}
	}
}

// refetch reads ids anew, past the cache (a correction records its
// parties' details as the directory has them now).
func (d *directory) refetch(ids []string) {
	for _, id := range ids {
		delete(d.known, id)
		delete(d.missing, id)
	}
	d.fetch(ids, true)
}

// details are the party details of organisation id as the directory has
// them (after refetch), recorded when the act keeps its facts.
func (d *directory) details(id string) (shipment.PartyDetails, bool) {
	if d.replay != nil {
		p, ok := d.replay.Details[id]
		return p, ok
	}
	o, ok := d.known[id]
	if !ok {
		return shipment.PartyDetails{}, false
	}
	p := o.Details()
	if d.rec != nil {
		if d.rec.Details == nil {
			d.rec.Details = map[string]shipment.PartyDetails{}
		}
		d.rec.Details[id] = p
	}
	return p, true
}

func (d *directory) lookup(id string) (engine.Org, bool) {
	if d.replay != nil {
		if id == "" {
			return engine.Org{}, false
		}
		o, ok := d.replay.Orgs[id]
		if !ok {
			d.fail(fmt.Errorf("the act looked organisation %s up, which its trail does not hold", id))
			return engine.Org{}, false
		}
		if o == nil {
			return engine.Org{}, false
		}
		return engine.Org{Kind: o.Kind, Country: o.Country, Region: o.Region}, true
	}
	d.fetch([]string{id}, false)
	o, ok := d.known[id]
	if d.rec != nil && id != "" {
		if d.rec.Orgs == nil {
			d.rec.Orgs = map[string]*orgFact{}
		}
		if ok {
			d.rec.Orgs[id] = &orgFact{Kind: o.Kind, Country: o.Country, Region: o.Region}
		} else {
			d.rec.Orgs[id] = nil
		}
	}
	return engine.Org{Kind: o.Kind, Country: o.Country, Region: o.Region}, ok
}

// Create makes a new document of kind from the Create intent's block,
// created by the caller's organisation. A create refused by business
// errors stores nothing, uses no number and answers no view: there is no
// document to show.
func (r *Runner) Create(ctx context.Context, kind string, input any) (*View, []engine.BusinessError, error) {
	k, ok := r.Kinds.Kind(kind)
	if !ok {
		return nil, nil, echo.Errorf("unknown document kind %q", kind)
	}
	c, p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	now, err := r.now(ctx, p.ProviderID)
	if err != nil {
		return nil, nil, err
	}
	var view *View
	var berrs []engine.BusinessError
	err = r.Store.Update(ctx, func(ctx context.Context, tx Tx) error {
		fx, err := newFacts(input, r.warnDays())
		if err != nil {
			return err
		}
		dir := r.newDirectory(tx, p.ProviderID, c.Org)
		dir.rec = fx
		ev := &engine.Eval{State: k.Def.Initial, Data: k.NewData(), Caller: c, Now: now, Input: input, Dir: dir.lookup, Setting: dir.setting}
		if k.Parent != nil {
			if err := r.underParent(ctx, tx, k, ev, fx, p.ProviderID, k.Parent.Ref(input)); err != nil {
				return err
			}
		}
		if err := r.related(tx, k, ev, p.ProviderID); err != nil {
			return err
		}
		if err := fx.related(ev); err != nil {
			return err
		}
		if berrs, err = createStep(k, ev, dir); err != nil || len(berrs) > 0 {
			return err // refused: nothing stored
		}
		dir.rec = nil // what follows is the runner's, not the rules'
		view = &View{Kind: k, Data: ev.Data, parent: ev.Parent}
		var number string
		var parentID *string
		if k.Parent != nil {
			number, parentID = k.Parent.Number(ev.Parent.Number, ev.Data), &ev.Parent.ID
		} else {
			org, _ := dir.lookup(c.Org)
			country := org.Country
			if country == "" {
				country = "XX"
			}
			if number, err = tx.NextNumber(p.ProviderID, k.NumberPrefix(country, now)); err != nil {
				return err
			}
		}
		raw, err := json.Marshal(ev.Data)
		if err != nil {
			return err
		}
		summary, err := k.summary(ev.Data)
		if err != nil {
			return err
		}
		doc := models.Document{ID: newID(k.IDPrefix), ProviderID: p.ProviderID, Kind: k.Def.Kind, Number: number, State: k.Def.Initial,
			Version: 1, Data: string(raw), Summary: summary, ParentID: parentID, CreatedBy: c.Actor, CreatedAt: now, UpdatedAt: now}
		fx.Create = &createFacts{Kind: k.Def.Kind, Provider: p.ProviderID, Number: number}
		if parentID != nil {
			fx.Create.Parent = *parentID
		}
		context, err := fx.seal(raw, nil)
		if err != nil {
			return err
		}
		row := models.AuditEvent{DocumentID: doc.ID, FromState: "", ToState: doc.State, Intent: k.Def.Create.Name,
			Actor: c.Actor, ActorOrg: c.Org, At: now, RequestID: reqctx.From(ctx).RequestID, Detail: ev.Note, Context: context}
		audit.Link(&row, 0, "")
		doc.AuditSeq, doc.AuditHash = row.Seq, row.Hash
		es, err := r.entries(ctx, k, &doc, ev.Data, nil, ev.Parent, nil, nil, now)
		if err != nil {
			return err
		}
		var related []models.EntryIntents
		var parentTally string
		if ev.Parent != nil { // the parent's guards count its children
			self := &engine.Related{ID: doc.ID, Kind: doc.Kind, State: doc.State, Number: doc.Number, Data: k.family(ev.Data)}
			if related, parentTally, err = r.parentAfter(ctx, k, ev, fx, self, now); err != nil {
				return err
			}
		}
		if _, err := tx.Commit(&models.Change{Doc: &doc, Created: true, Audit: &row, Parties: partyRows(doc.ID, k.Visible(doc.State, ev.Data)), PartiesChanged: true,
			Entries: es, Related: related, ParentTally: parentTally}); err != nil {
			return err
		}
		if err := r.afterAct(ctx, Act{Kind: k.Def.Kind, Intent: k.Def.Create.Name, Doc: &doc, Data: ev.Data}); err != nil {
			return err
		}
		view.Doc = doc
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	if len(berrs) > 0 {
		return nil, berrs, nil
	}
	c.Roles = k.RolesOf(view.Data, c.Org)
	if err := r.followUp(ctx, view, c); err != nil {
		return nil, nil, err
	}
	return view, nil, nil
}

func partyRows(id string, parties []engine.Party) []models.DocumentParty {
	var rows []models.DocumentParty
	for _, p := range parties {
		row := models.DocumentParty{DocumentID: id, OrganisationID: p.Org, Role: p.Role}
		if p.Org != "" && !slices.Contains(rows, row) {
			rows = append(rows, row)
		}
	}
	return rows
}

// underParent locks the parent document id of child kind k, which the
// caller must see and whose machine must permit the creating intent to the
// caller, and puts it and its children into ev.
func (r *Runner) underParent(ctx context.Context, tx Tx, k *Kind, ev *engine.Eval, fx *facts, provider, id string) error {
	if id == "" {
		return status.Invalid("parent", fmt.Sprintf("a %s belongs to a %s: its id is required", k.Def.Kind, k.Parent.Kind))
	}
	c := ev.Caller
	tallied := r.tallied(k) // the children are counted by the parent's tally: read only to count them afresh
	pk, loaded, pdata, err := r.load(tx, Target{ID: id, Kinds: []string{k.Parent.Kind}}, provider, c, models.DocumentQuery{Lock: true, ChildrenTallied: tallied})
	if err != nil {
		return err
	}
	pdoc := &loaded.Doc
	children, err := r.children(loaded.Children, loaded.Visible)
	if err != nil {
		return err
	}
	if !c.System {
		c.Roles = pk.RolesOf(pdata, c.Org)
	}
	pev := &engine.Eval{DocID: pdoc.ID, State: pdoc.State, Data: pdata, Caller: c, Now: ev.Now, Deadlines: views(loaded.Deadlines), CreatedAt: pdoc.CreatedAt}
	if tallied {
		if pev.Tally, err = r.tallyOf(pk, pdoc, loaded.Children); err != nil {
			return err
		}
	} else {
		pev.Children = relatedOf(children)
	}
	if err := pk.Machine().Check(ctx, pev, k.Parent.Intent); err != nil {
		return r.refusal(ctx, pk.Machine(), err, pev, k.Parent.Intent)
	}
	ev.Parent = &engine.Related{ID: pdoc.ID, Kind: pdoc.Kind, State: pdoc.State, Number: pdoc.Number, Data: pdata, Parties: pk.Parties(pdata)}
	fx.ParentSeq = pdoc.AuditSeq
	if tallied {
		ev.SiblingsTally, fx.Siblings = pev.Tally, int(pdoc.Children)
		fx.SiblingsTally, err = encodeTally(pev.Tally)
		return err
	}
	for i := range children {
		ev.Siblings = append(ev.Siblings, &children[i].Related)
	}
	fx.Siblings = len(ev.Siblings)
	return nil
}

// parentOf puts the parent of loaded, a document of child kind k, and the
// parent's other children into ev, as the system reads them for the rules
// whoever the caller.
func (r *Runner) parentOf(k *Kind, loaded *models.LoadedDocument, ev *engine.Eval) error {
	p := loaded.Parent
	pk, ok := r.Kinds.Kind(p.Kind)
	if !ok || p.Kind != k.Parent.Kind {
		return notFound(p.ID)
	}
	pdata, err := pk.decode(p.Data)
	if err != nil {
		return fmt.Errorf("document %s: stored data: %w", p.ID, err)
	}
	ev.Parent = &engine.Related{ID: p.ID, Kind: p.Kind, State: p.State, Number: p.Number, Data: pdata, Parties: pk.Parties(pdata)}
	if r.tallied(k) { // the siblings are counted by the parent's tally, less this one as it is before the act
		t, err := r.tallyOf(pk, p, loaded.ParentChildren)
		if err != nil {
			return err
		}
		self, err := k.familyOf(&loaded.Doc)
		if err != nil {
			return fmt.Errorf("document %s: stored data: %w", loaded.Doc.ID, err)
		}
		pk.tally.add(t, self, -1)
		ev.SiblingsTally = t
		return nil
	}
	siblings, err := r.children(loaded.ParentChildren, nil)
	if err != nil {
		return err
	}
	for i := range siblings {
		if siblings[i].ID != loaded.Doc.ID {
			ev.Siblings = append(ev.Siblings, &siblings[i].Related)
		}
	}
	return nil
}

// children are docs, the documents under a parent, as the runner sees
// them: of a kind it runs, their data decoded, Visible when visible says
// so.
func (r *Runner) children(docs []models.Document, visible map[string]bool) ([]Child, error) {
	out := make([]Child, 0, len(docs))
	for i := range docs {
		d := &docs[i]
		ck, ok := r.Kinds.Kind(d.Kind)
		if !ok {
			continue
		}
		data, err := ck.familyOf(d)
		if err != nil {
			return nil, fmt.Errorf("document %s: stored data: %w", d.ID, err)
		}
		out = append(out, Child{Related: engine.Related{ID: d.ID, Kind: d.Kind, State: d.State, Number: d.Number, Data: data},
			Visible: visible[d.ID]})
	}
	return out, nil
}

// wholeChildren are docs, the documents under a parent read with their
// data, each with its aggregate and parties (its own machine's view).
func (r *Runner) wholeChildren(docs []models.Document) ([]Child, error) {
	out := make([]Child, 0, len(docs))
	for _, d := range docs {
		ck, ok := r.Kinds.Kind(d.Kind)
		if !ok {
			continue
		}
		data, err := ck.decode(d.Data)
		if err != nil {
			return nil, fmt.Errorf("document %s: stored data: %w", d.ID, err)
		}
		out = append(out, Child{Related: engine.Related{ID: d.ID, Kind: d.Kind, State: d.State, Number: d.Number, Data: data, Parties: ck.Parties(data)}})
	}
	return out, nil
}

// related loads the documents the kind's Refs name into ev.Related; a
// reference to a document that does not exist, or of which the caller's
// organisation is not a party, is left out.
func (r *Runner) related(tx Reader, k *Kind, ev *engine.Eval, provider string) error {
	for name, ref := range k.Def.Refs {
		id := ref(ev)
		if id == "" || id == ev.DocID {
			continue
		}
		party := ev.Caller.Org
		if ev.Caller.System {
			party = ""
		}
		doc, err := tx.Find(id, provider, party)
		if errors.Is(err, models.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		rk, ok := r.Kinds.Kind(doc.Kind)
		if !ok {
			continue
		}
		data, err := rk.decode(doc.Data)
		if err != nil {
			return fmt.Errorf("document %s: stored data: %w", id, err)
		}
		if ev.Related == nil {
			ev.Related = map[string]*engine.Related{}
		}
		ev.Related[name] = &engine.Related{ID: doc.ID, Kind: doc.Kind, State: doc.State, Data: data, Parties: rk.Parties(data)}
	}
	return nil
}

// load reads a document the caller may see (of provider; any provider's
// for the system when provider is ""), with its deadlines, parent and
// children, as q asks for them (its Lock, ParentChildren, ParentTallied,
// ChildrenTallied, ChildrenLimit and ChildrenFinal; load fills in the
// rest). Another provider's or another party's document, or one of a kind
// the operation does not serve, is reported exactly like a missing one.
// The children are marked by whether the caller is a party to each.
func (r *Runner) load(tx Reader, t Target, provider string, c engine.Caller, q models.DocumentQuery) (*Kind, *models.LoadedDocument, any, error) {
	k, loaded, err := r.read(tx, t, provider, c, q)
	if err != nil {
		return nil, nil, nil, err
	}
	data, err := k.decodeRow(&loaded.Doc)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("document %s: stored data: %w", t.ID, err)
	}
	return k, loaded, data, nil
}

// read is load without the decoding: the row read apart unless q.Hot
// (the runner's decoders put the archive back, or not: decodeRow,
// decodeAct).
func (r *Runner) read(tx Reader, t Target, provider string, c engine.Caller, q models.DocumentQuery) (*Kind, *models.LoadedDocument, error) {
	party := c.Org
	if c.System {
		party = ""
	}
	q.ID, q.Provider, q.Kinds, q.Party, q.Root = t.ID, provider, t.Kinds, party, r.roots(t.Kinds)
	q.Apart = !q.Hot
	loaded, err := tx.Load(q)
	if errors.Is(err, models.ErrNotFound) {
		return nil, nil, notFound(t.ID)
	}
	if err != nil {
		return nil, nil, err
	}
	k, ok := r.Kinds.Kind(loaded.Doc.Kind)
	if !ok {
		return nil, nil, notFound(t.ID) // a kind this server does not run
	}
	return k, loaded, nil
}

// Get returns a document the caller is a party to, of one of kinds (any
// when empty), as its retrieval document lists it: its exchange lists
// read from the aggregate without what it keeps apart (exchanges.go).
func (r *Runner) Get(ctx context.Context, id string, kinds ...string) (*View, error) {
	return r.get(ctx, id, false, kinds)
}

// GetFullHistory is Get with every list whole (GetDocument's fullHistory).
func (r *Runner) GetFullHistory(ctx context.Context, id string) (*View, error) {
	return r.get(ctx, id, true, nil)
}

func (r *Runner) get(ctx context.Context, id string, full bool, kinds []string) (*View, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	reads := r.Store.Reads(ctx)
	// A kind that keeps its children's tally lists a part of them: the
	// store reads that part (and counts the rest), unless the document
	// turns out to be of another kind with children or its row keeps no
	// tally yet (written before tallies: counted from all of them).
	q := models.DocumentQuery{Hot: !full}
	if final, states, ok := r.tallyFinals(kinds); ok {
		q.ChildrenLimit, q.ChildrenFinal, q.ChildrenStates = childrenListed, final, states
	}
	k, loaded, data, err := r.load(reads, Target{ID: id, Kinds: kinds}, p.ProviderID, c, q)
	if err != nil {
		return nil, err
	}
	final, bounded := r.tallyFinal(k)
	if q.ChildrenLimit > 0 && loaded.Doc.Children > 0 && (!bounded || loaded.Doc.Tally == "") {
		q = models.DocumentQuery{Hot: q.Hot}
		if k, loaded, data, err = r.load(reads, Target{ID: id, Kinds: kinds}, p.ProviderID, c, q); err != nil {
			return nil, err
		}
		final, bounded = r.tallyFinal(k)
	}
	view := &View{Kind: k, Doc: loaded.Doc, Data: data, Deadlines: loaded.Deadlines, FullHistory: full}
	if !full && loaded.Doc.Archived != "" {
		if view.keptApart, err = models.ArchivedCounts(loaded.Doc.Archived); err != nil {
			return nil, fmt.Errorf("document %s: %w", id, err)
		}
	}
	if bounded {
		if view.Tally, err = r.tallyOf(k, &loaded.Doc, loaded.Children); err != nil {
			return nil, err
		}
	}
	if loaded.Doc.Children > 0 {
		children, err := r.children(loaded.Children, loaded.Visible)
		if err != nil {
			return nil, err
		}
		if loaded.ChildrenBounded {
			view.ChildrenOmitted = max(loaded.ChildrenVisible-int64(len(children)), 0)
		} else if bounded {
			children, view.ChildrenOmitted = listed(children, final)
		}
		if len(children) > 0 {
			view.Children = children
		}
	}
	if pdoc := loaded.Parent; k.Parent != nil && pdoc != nil { // guards may ask the parent's state
		view.parent = &engine.Related{ID: pdoc.ID, Kind: pdoc.Kind, State: pdoc.State, Number: pdoc.Number}
	}
	c.Roles = k.RolesOf(data, c.Org)
	return view, r.followUp(ctx, view, c)
}

// History is a document's audit trail as its parties read it.
type History struct {
	Doc  *models.Document // its Data without what the row keeps apart
	Kind *Kind
	Rows []models.AuditEvent
	// Break is the first broken link of the chain, nil when it holds.
	Break *audit.Break
}

// History returns the audit trail of a document the caller is a party to
// (the rule of Get: a non-party gets the answer of a missing document),
// oldest first, with its hash chain checked.
func (r *Runner) History(ctx context.Context, id string) (*History, error) {
	c, p, err := caller(ctx)
	if err != nil {
		return nil, err
	}
	k, loaded, err := r.read(r.Store.Reads(ctx), Target{ID: id}, p.ProviderID, c, models.DocumentQuery{Hot: true}) // the row, not its aggregate
	if err != nil {
		return nil, err
	}
	rows, head, err := r.Store.Audit(ctx, loaded.Doc.ID)
	if err != nil {
		return nil, err
	}
	brk, err := audit.VerifyDocument(ctx, *head, rows)
	if err != nil {
		return nil, err
	}
	return &History{Doc: &loaded.Doc, Kind: k, Rows: rows, Break: brk}, nil
}

func views(ds []models.Deadline) []engine.DeadlineView {
	out := make([]engine.DeadlineView, 0, len(ds))
	for _, d := range ds {
		out = append(out, engine.DeadlineView{Rule: d.Rule, PartyOrg: d.PartyOrg, PartyRole: d.PartyRole, State: d.State, DueAt: d.DueAt, Open: running(&d)})
	}
	return out
}

func (r *Runner) followUp(ctx context.Context, v *View, c engine.Caller) error {
	now, err := r.now(ctx, v.Doc.ProviderID)
	if err != nil {
		return err
	}
	var intents []*engine.Intent
	if v.offered != nil {
		m := v.Kind.Machine()
		for _, name := range v.offered {
			if in, ok := m.Intent(name); ok {
				intents = append(intents, in)
			}
		}
	} else {
		ev := &engine.Eval{DocID: v.Doc.ID, State: v.Doc.State, Data: v.Data, Caller: c, Now: now, Deadlines: views(v.Deadlines), CreatedAt: v.Doc.CreatedAt,
			Parent: v.parent, Children: relatedOf(v.Children), Tally: v.Tally}
		if intents, err = v.Kind.Machine().FollowUp(ctx, ev); err != nil {
			return err
		}
	}
	var orgs []string
	for _, d := range v.Deadlines {
		orgs = append(orgs, d.PartyOrg)
	}
	reads := r.Store.Reads(ctx)
	dir := r.newDirectory(reads, v.Doc.ProviderID, orgs...)
	if dir.err != nil {
		return dir.err
	}
	if err := viewParties(dir, v); err != nil {
		return err
	}
	v.now, v.places = now, map[string]calendar.Place{}
	for _, o := range orgs {
		v.places[o] = placeOf(dir.lookup, o)
	}
	v.FollowUp = nil
	for _, in := range intents {
		v.FollowUp = append(v.FollowUp, followUpOf(in, v.Deadlines, c.Org))
	}
	return nil
}

// followUpOf is intent in as offered to org, with dueAt the open deadline
// of org's that the intent stops.
func followUpOf(in *engine.Intent, deadlines []models.Deadline, org string) FollowUp {
	f := FollowUp{Intent: in.Name, Operation: in.Operation, Block: in.Block}
	for _, e := range in.Effects {
		if e.Op != engine.Stop {
			continue
		}
		for _, d := range deadlines {
			if d.Rule == e.Rule && d.PartyOrg == org && pending(&d) {
				due := d.DueAt
				f.DueAt = &due
			}
		}
	}
	return f
}

// Fire executes on the target the first of intents the document's state
// permits (so SetSubmission picks SUBMISSION or CORRECTION), with input as
// its block (a pointer to the intent's input type).
func (r *Runner) Fire(ctx context.Context, t Target, intents []string, input any) (*View, []engine.BusinessError, error) {
	if len(intents) == 0 {
		return nil, nil, status.Invalid("intent", "required")
	}
	c, p, err := caller(ctx)
	if err != nil {
		return nil, nil, err
	}
	return r.fireAs(ctx, c, p.ProviderID, t, intents, input)
}

// FireSystem executes an automatic trigger with actor system (the
// scheduler's and the tests' entry point); input is the party the trigger
// concerns, if any.
func (r *Runner) FireSystem(ctx context.Context, id, intent string, input any) (*View, error) {
	ctx = reqctx.With(ctx, &reqctx.Info{RequestID: reqctx.From(ctx).RequestID, Logger: reqctx.Logger(ctx), Metadata: map[string][]string{}})
	v, _, err := r.fireAs(ctx, engine.Caller{Actor: engine.System, System: true}, "", Target{ID: id}, []string{intent}, input)
	return v, err
}

func (r *Runner) fireAs(ctx context.Context, c engine.Caller, provider string, t Target, intents []string, input any) (*View, []engine.BusinessError, error) {
	var view *View
	var berrs []engine.BusinessError
	err := r.Store.Update(ctx, func(ctx context.Context, tx Tx) error {
		var err error
		view, berrs, err = r.fireIn(ctx, tx, order{caller: c, provider: provider, target: t, intents: intents, input: input})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	if !c.System {
		c.Roles = view.Kind.RolesOf(view.Data, c.Org)
		if err := r.followUp(ctx, view, c); err != nil {
			return nil, nil, err
		}
	}
	return view, berrs, nil
}

// historyFull is engine.HistoryFull for a person's act (the system's acts
// record what the law bounds: a decision per authority, an expiry).
func historyFull(ev *engine.Eval, before map[string]int) []engine.BusinessError {
	if ev.Caller.System {
		return nil
	}
	return engine.HistoryFull(ev.Data, ev.KeptApart, before)
}

// order is what fireIn is asked to do: the first of intents the
// document's state permits, by caller, on the target, with input, at now
// (zero: the provider's time). after names the act whose chain it is
// ("" for the act asked for).
type order struct {
	caller   engine.Caller
	provider string
	target   Target
	intents  []string
	input    any
	now      time.Time
	after    string
}

// act is one intent on one document inside a transaction, as its steps
// pass it on: what check read and decided, what apply did.
type act struct {
	k             *Kind
	loaded        *models.LoadedDocument
	doc           *models.Document
	m             *engine.Machine
	ev            *engine.Eval
	intent        string
	children      []Child // a parent's intents do not change its children: read once
	fx            *facts
	dir           *directory
	partiesBefore []models.DocumentParty
	res           *stepResult
}

// fireIn runs the order inside tx (which the sweep shares), in the three
// steps docs/ARCHITECTURE.md's hops 3 to 5 describe: check (load the
// document with its family, locked, parent first, and let the machine
// say whether the intent may fire), apply (the rules, on the engine alone:
// business errors come back with a nil error and nothing is written) and
// record (everything the intent changed, in one Commit). The chains the
// act starts (Intent.Then) are orders too, run after it in the same
// transaction, depth first; a chain the machine refuses fires nothing.
func (r *Runner) fireIn(ctx context.Context, tx Tx, o order) (*View, []engine.BusinessError, error) {
	var first *View
	var firstErrs []engine.BusinessError
	todo := []order{o}
	for len(todo) > 0 {
		o := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		view, berrs, chains, err := r.fireOne(ctx, tx, o)
		if o.after != "" {
			if err != nil && !isRefusal(err) {
				return nil, nil, fmt.Errorf("%s on %s after %s: %w", o.intents[0], o.target.ID, o.after, err)
			}
		} else {
			if err != nil {
				return nil, nil, err
			}
			first, firstErrs = view, berrs
		}
		for i := len(chains) - 1; i >= 0; i-- { // depth first, in the declared order
			todo = append(todo, chains[i])
		}
	}
	return first, firstErrs, nil
}

// fireOne is one order's three steps; chains are the orders its act starts.
func (r *Runner) fireOne(ctx context.Context, tx Tx, o order) (*View, []engine.BusinessError, []order, error) {
	a, err := r.check(ctx, tx, o)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := r.apply(ctx, tx, a); err != nil {
		return nil, nil, nil, err
	}
	if len(a.res.berrs) > 0 {
		unchanged, kept, err := a.k.decodeAct(a.doc) // Apply may have changed data: the answer shows the document as stored
		if err != nil {
			return nil, nil, nil, err
		}
		view := &View{Kind: a.k, Doc: *a.doc, Data: unchanged, Deadlines: a.loaded.Deadlines, parent: a.ev.Parent, keptApart: kept}
		withChildren(view, a.children)
		return view, a.res.berrs, nil, nil
	}
	return r.record(ctx, tx, a, o)
}

// check is hop 3: the document and its family, loaded and locked; the
// version the caller read; the Eval; the intent the state permits; the
// machine's check (state, guards, roles).
func (r *Runner) check(ctx context.Context, tx Tx, o order) (*act, error) {
	c, t := o.caller, o.target
	k, loaded, err := r.read(tx, t, o.provider, c, models.DocumentQuery{Lock: true, ParentChildren: r.Kinds.mayBeChild(t.Kinds),
		ParentTallied: r.childrenTallied(t.Kinds)})
	if err != nil {
		return nil, err
	}
	data, kept, err := k.decodeAct(&loaded.Doc) // what the row keeps apart stays as it was stored
	if err != nil {
		return nil, fmt.Errorf("document %s: stored data: %w", t.ID, err)
	}
	doc, now := &loaded.Doc, o.now
	if now.IsZero() {
		if now, err = r.now(ctx, doc.ProviderID); err != nil {
			return nil, err
		}
	}
	now = micro(now) // the sweep's time too: the act's is its audit row's
	if t.Version != nil && *t.Version != doc.Version {
		return nil, status.New(status.Aborted, "document %s is at version %d, not %d: reload it and try again", t.ID, doc.Version, *t.Version).
			WithDetails(status.Info("VERSION_MISMATCH", map[string]string{"currentVersion": fmt.Sprint(doc.Version)}))
	}
	if !c.System {
		c.Roles = k.RolesOf(data, c.Org)
	}
	a := &act{k: k, loaded: loaded, doc: doc, m: k.Machine(),
		ev: &engine.Eval{DocID: doc.ID, Number: doc.Number, State: doc.State, Data: data, KeptApart: kept, Caller: c, Now: now, Input: o.input,
			Deadlines: views(loaded.Deadlines), CreatedAt: doc.CreatedAt}}
	if k.Parent != nil && loaded.Parent != nil { // before the guards, which may ask the parent's state
		if err := r.parentOf(k, loaded, a.ev); err != nil {
			return nil, err
		}
	}
	if doc.Children > 0 { // before the guards that count them
		if a.children, err = r.children(loaded.Children, loaded.Visible); err != nil {
			return nil, err
		}
		a.ev.Children = relatedOf(a.children)
	}
	if k.tally != nil {
		if a.ev.Tally, err = r.tallyOf(k, doc, loaded.Children); err != nil {
			return nil, err
		}
	}
	a.intent = o.intents[0]
	if len(o.intents) > 1 { // the first the state permits
		permitted, err := a.m.Permitted(ctx, a.ev)
		if err != nil {
			return nil, err
		}
		for _, name := range o.intents {
			if slices.Contains(permitted, name) {
				a.intent = name
				break
			}
		}
	}
	if in, ok := a.m.Intent(a.intent); ok && in.Creates != "" {
		return nil, status.New(status.FailedPrecondition, "intent %s creates a %s: call %s", a.intent, in.Creates, in.Operation)
	}
	if err := a.m.Check(ctx, a.ev, a.intent); err != nil {
		return nil, r.refusal(ctx, a.m, err, a.ev, a.intent)
	}
	return a, nil
}

// apply is hop 4: the facts the act will record (the directory, the
// settings, the documents its references name) and the act on the engine
// alone (step), which the replay runs too.
func (r *Runner) apply(ctx context.Context, tx Tx, a *act) error {
	fx, err := newFacts(a.ev.Input, r.warnDays())
	if err != nil {
		return err
	}
	fx.Siblings, fx.Children = len(a.ev.Siblings), len(a.ev.Children)
	if a.ev.Parent != nil {
		fx.ParentSeq = a.loaded.Parent.AuditSeq
	}
	if a.ev.SiblingsTally != nil { // read instead of the siblings: how many there are
		fx.Siblings = int(a.loaded.Parent.Children) - 1
		if fx.SiblingsTally, err = encodeTally(a.ev.SiblingsTally); err != nil {
			return err
		}
	}
	if a.doc.Children > 0 { // a parent without children reads the empty tally: nothing to record
		if fx.Tally, err = encodeTally(a.ev.Tally); err != nil {
			return err
		}
	}
	a.fx = fx
	a.dir = r.newDirectory(tx, a.doc.ProviderID, append(partyOrgs(a.k.Parties(a.ev.Data)), a.ev.Caller.Org)...)
	a.dir.rec = fx
	a.ev.Dir, a.ev.Setting = a.dir.lookup, a.dir.setting
	if err := r.related(tx, a.k, a.ev, a.doc.ProviderID); err != nil {
		return err
	}
	if err := fx.related(a.ev); err != nil {
		return err
	}
	a.partiesBefore = partyRows(a.doc.ID, a.k.Visible(a.doc.State, a.ev.Data))
	a.res, err = step(ctx, a.k, a.doc, a.ev, a.loaded.Deadlines, a.dir, a.intent, r.warnDays())
	return err
}

// record is hop 5: the audit row in the hash chain with the act's facts,
// the events for every party that sees the document, its list entries
// (and its children's or parent's, whose intents may have changed), all in
// one Commit; then the act's AfterAct and the chains it starts.
func (r *Runner) record(ctx context.Context, tx Tx, a *act, o order) (*View, []engine.BusinessError, []order, error) {
	k, doc, ev, c, now := a.k, a.doc, a.ev, a.ev.Caller, a.ev.Now
	in, from, f := a.res.in, a.res.from, a.res.f
	raw, err := json.Marshal(ev.Data)
	if err != nil {
		return nil, nil, nil, err
	}
	whole := raw // the aggregate whole, as its encoder writes it
	if ev.KeptApart != nil {
		j, err := models.JoinArchive(string(raw), doc.Archive)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("document %s: %w", doc.ID, err)
		}
		whole = []byte(j)
	}
	context, err := a.fx.seal(whole, f.deadlines)
	if err != nil {
		return nil, nil, nil, err
	}
	row := models.AuditEvent{DocumentID: doc.ID, FromState: from, ToState: ev.State, Intent: a.intent,
		Actor: c.Actor, ActorOrg: c.Org, At: now, RequestID: reqctx.From(ctx).RequestID, Detail: ev.Note, Context: context}
	audit.Link(&row, doc.AuditSeq, doc.AuditHash)
	parties := k.Visible(ev.State, ev.Data) // who sees it now: told of the change, listed
	if err := tell(f, doc, parties, from, ev, a.intent, row.Seq, now); err != nil {
		return nil, nil, nil, err
	}
	summary, err := k.summary(ev.Data)
	if err != nil {
		return nil, nil, nil, err
	}
	after := *doc
	after.State, after.Version, after.UpdatedAt = ev.State, doc.Version+1, now
	after.Data, after.Summary, after.AuditSeq, after.AuditHash, after.Apart = string(whole), summary, row.Seq, row.Hash, false
	hot, archiveChanged, err := keepApart(k, &after, whole, raw, ev.Data, ev.KeptApart)
	if err != nil {
		return nil, nil, nil, err
	}
	if k.tally != nil && after.Tally == "" && len(a.fx.Tally) > 0 { // counted afresh: kept from now on
		after.Tally = string(a.fx.Tally)
	}
	entries, err := r.entries(ctx, k, &after, ev.Data, f.deadlines, ev.Parent, ev.Children, ev.Tally, now)
	if err != nil {
		return nil, nil, nil, err
	}
	var related []models.EntryIntents
	if from != ev.State && len(a.children) > 0 { // the children's guards read their parent's state: they are read whole
		docs, err := tx.Children(doc.ID)
		if err != nil {
			return nil, nil, nil, err
		}
		whole, err := r.wholeChildren(docs)
		if err != nil {
			return nil, nil, nil, err
		}
		if related, err = r.childIntents(ctx, doc, ev.State, whole, now); err != nil {
			return nil, nil, nil, err
		}
	}
	var parentTally string
	if ev.Parent != nil { // and the parent's guards count its children
		self := &engine.Related{ID: doc.ID, Kind: doc.Kind, State: ev.State, Number: doc.Number, Data: k.family(ev.Data)}
		rows, t, err := r.parentAfter(ctx, k, ev, a.fx, self, now)
		if err != nil {
			return nil, nil, nil, err
		}
		related, parentTally = append(related, rows...), t
	}
	rows := partyRows(doc.ID, parties)
	if ok, err := tx.Commit(&models.Change{Doc: &after, Audit: &row, Parties: rows, PartiesChanged: !slices.Equal(rows, a.partiesBefore),
		Deadlines: f.changed, Events: f.out, Entries: entries, Related: related, ParentTally: parentTally, Hot: hot, ArchiveChanged: archiveChanged}); err != nil || !ok {
		if err != nil {
			return nil, nil, nil, err
		}
		// Only reachable without row locks (SQLite serialises writers instead).
		return nil, nil, nil, status.New(status.Aborted, "document %s changed meanwhile: reload it and try again", o.target.ID)
	}
	if err := r.afterAct(ctx, Act{Kind: k.Def.Kind, Intent: a.intent, Doc: &after, Data: ev.Data}); err != nil {
		return nil, nil, nil, err
	}
	var chains []order
	for _, chain := range in.Then {
		if !k.Def.Holds(chain.When, ev) {
			continue
		}
		if id := k.Def.Refs[chain.Ref](ev); id != "" {
			chains = append(chains, order{caller: engine.Caller{Actor: engine.System, System: true}, target: Target{ID: id}, intents: []string{chain.Intent},
				input: engine.Chained{DocID: doc.ID, Number: doc.Number}, now: now, after: a.intent})
		}
	}
	view := &View{Kind: k, Doc: after, Data: ev.Data, Deadlines: f.deadlines, parent: ev.Parent, Tally: ev.Tally, keptApart: ev.KeptApart}
	children := a.children
	if final, bounded := r.tallyFinal(k); bounded {
		children, view.ChildrenOmitted = listed(children, final)
	}
	withChildren(view, children)
	for _, e := range entries { // the caller's follow-up intents, as its list entry has them
		if e.OrganisationID == c.Org && !c.System {
			view.offered = offered(e.Intents)
		}
	}
	return view, nil, chains, nil
}

// keepApart is what the row of doc (the document after an act) stores:
// hot, what its data column keeps ("": doc.Data, nothing kept apart), and
// whether doc.Archive and doc.Archived, set here, are new (exchanges.go,
// models/archive.go). whole is the aggregate as JSON, data the act's
// aggregate and raw its JSON: whole, or (kept non-nil) whole without the
// items kept apart before the act, as many as kept counts by list.
func keepApart(k *Kind, doc *models.Document, whole, raw []byte, data any, kept map[string]int) (hot string, changed bool, err error) {
	if k.archive == nil && doc.Archive == "" {
		return "", false, nil
	}
	var cuts []models.ArchiveCut
	if k.archive != nil {
		before := kept // data's items are the whole lists' after them
		if before == nil {
			if before, err = models.ArchivedCounts(doc.Archived); err != nil {
				return "", false, fmt.Errorf("document %s: %w", doc.ID, err)
			}
		}
		cuts = k.archive(data, before, kept != nil)
	}
	if kept != nil && !slices.ContainsFunc(cuts, func(c models.ArchiveCut) bool { return c.N > kept[c.List] }) {
		return string(raw), false, nil // nothing more kept apart: the archive stays as it is
	}
	h, archive, archived, err := models.SplitArchive(whole, cuts)
	if err != nil {
		return "", false, fmt.Errorf("document %s: %w", doc.ID, err)
	}
	if archive != "" {
		hot = string(h)
	}
	if archive == doc.Archive {
		return hot, false, nil
	}
	doc.Archive, doc.Archived = archive, archived
	return hot, true, nil
}

// tell adds the act's events to f's outbox: a change of state, and what
// the act's Apply announced (ev.Events), for every party that sees the
// document now, once per organisation.
func tell(f *firing, doc *models.Document, parties []engine.Party, from string, ev *engine.Eval, intent string, seq int64, now time.Time) error {
	var orgs []string
	for _, p := range parties {
		if p.Org != "" && !slices.Contains(orgs, p.Org) {
			orgs = append(orgs, p.Org)
		}
	}
	if from != ev.State {
		for _, org := range orgs {
			if err := f.out.add(models.Event{ProviderID: doc.ProviderID, OrganisationID: org, Kind: EventStateChanged, DocumentID: doc.ID,
				DedupKey: fmt.Sprintf("%s:%d:%s", doc.ID, seq, org), CreatedAt: now}, eventkinds.DocumentStateChanged{
				DocumentNumber: doc.Number, DocumentKind: doc.Kind, From: from, To: ev.State, Intent: intent, Actor: ev.Caller.Actor}); err != nil {
				return err
			}
		}
	}
	for i, e := range ev.Events {
		for _, org := range orgs {
			if err := f.out.add(models.Event{ProviderID: doc.ProviderID, OrganisationID: org, Kind: e.Kind, DocumentID: doc.ID,
				DedupKey: fmt.Sprintf("%s:%d:%s:%d", doc.ID, seq, org, i), CreatedAt: now}, e.Payload); err != nil {
				return err
			}
		}
	}
	return nil
}

// offered reads a list entry's intents ("A,B") back.
func offered(intents string) []string {
	if intents == "" {
		return []string{}
	}
	return strings.Split(intents, ",")
}

// withChildren shows children, marked for the caller, in v.
func withChildren(v *View, children []Child) {
	if len(children) > 0 {
		v.Children = children
	}
}

// refusal turns an engine refusal into the API's answer: 400/9 naming the
// state and what the caller may do, or 403/7 for a wrong role.
func (r *Runner) refusal(ctx context.Context, m *engine.Machine, err error, ev *engine.Eval, intent string) error {
	var np *engine.NotPermittedError
	switch {
	case errors.Is(err, engine.ErrRole):
		in, _ := m.Intent(intent)
		return status.New(status.PermissionDenied, "%s may be fired only by %s; your roles on this document: %s",
			intent, strings.Join(in.Roles, " or "), strings.Join(ev.Caller.Roles, ", "))
	case errors.As(err, &np):
		var permitted []string
		if ins, ferr := m.FollowUp(ctx, ev); ferr == nil {
			for _, in := range ins {
				permitted = append(permitted, in.Name)
			}
		}
		list := "none"
		if len(permitted) > 0 {
			list = strings.Join(permitted, ", ")
		}
		meta := map[string]string{"state": ev.State, "intent": intent, "permitted": strings.Join(permitted, ",")}
		why := ""
		if np.Reason != "" { // a guard blocked it and says why
			why, meta["guard"], meta["reason"] = ": "+np.Reason, np.Guard, np.Reason
		}
		return status.New(status.FailedPrecondition, "intent %s is not permitted in state %s%s; permitted for you now: %s", intent, ev.State, why, list).
			WithDetails(status.Info("INTENT_NOT_PERMITTED", meta))
	}
	return err
}

// isRefusal: the engine or the input check declined the trigger.
func isRefusal(err error) bool {
	var se *status.Error
	return errors.As(err, &se) && (se.Code == status.FailedPrecondition || se.Code == status.InvalidArgument)
}

// roots reports whether every one of kinds (at least one) has no parent:
// a document of them has no parent to lock or read.
func (r *Runner) roots(kinds []string) bool {
	for _, name := range kinds {
		if k, ok := r.Kinds.Kind(name); !ok || k.Parent != nil {
			return false
		}
	}
	return len(kinds) > 0
}
