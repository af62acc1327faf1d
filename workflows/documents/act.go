package documents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// An act is one fired intent (or a create). What it does is a function of
// the document before it and of what it consulted beyond the document;
// the runner keeps the second part with the act's audit row (facts, the
// row's context) so that the trail replays to the document (replay.go).
// The act itself is step (and createStep): the engine and the kind's
// rules on values, no database. The runner builds their inputs from the
// database and writes what they leave; the replay builds them from the
// trail and compares.

// factsVersion is the form of the facts kept with each audit row.
const factsVersion = 1

// facts are what one act consulted beyond its document, and digests of
// what it left: the context of its audit row, as JSON (hashed with it).
//
// The document before the act (state, aggregate, deadlines) and, for a
// family (a notification and its movements), its relatives' are not
// here: the replay has them from the replay of the earlier acts, in the
// order the family's rows were written (models.AuditEvent.Pos).
type facts struct {
	V int `json:"v"`
	// Input is the intent's block (a person's act); Party the party of an
	// expiry (the sweep's act); Chained the act that chained this one.
	Input   json.RawMessage     `json:"input,omitempty"`
	Party   *engine.Party       `json:"party,omitempty"`
	Chained *engine.Chained     `json:"chained,omitempty"`
	Create  *createFacts        `json:"create,omitempty"`
	Orgs    map[string]*orgFact `json:"orgs,omitempty"` // the directory's answers (null: unknown)
	// Details are the party details the act recorded from the directory.
	Details  map[string]shipment.PartyDetails `json:"details,omitempty"`
	Settings map[string]int                   `json:"settings,omitempty"`
	// WarnDays is the server's DUE_SOON window (deadlines' warnAt).
	WarnDays int `json:"warnDays"`
	// Related are the documents the kind's references named, as read.
	Related map[string]*relatedFact `json:"related,omitempty"`
	// ParentSeq is the parent's audit sequence number when the act read
	// it; Siblings and Children how many of the family it read.
	ParentSeq int64 `json:"parentSeq,omitempty"`
	Siblings  int   `json:"siblings,omitempty"`
	Children  int   `json:"children,omitempty"`
	// SiblingsTally and Tally are the tallies the act read (a child: of
	// its siblings, kept by its parent; a parent: of its children), as
	// JSON: the replay counts them afresh and names the first act that
	// read one kept wrong.
	SiblingsTally json.RawMessage `json:"siblingsTally,omitempty"`
	Tally         json.RawMessage `json:"tally,omitempty"`
	// After are digests of the aggregate and the deadlines the act left.
	After digests `json:"after"`
}

// createFacts are what a create was given beyond its block.
type createFacts struct {
	Kind     string `json:"kind"`
	Provider string `json:"provider"`
	Number   string `json:"number"`
	Parent   string `json:"parent,omitempty"`
}

type orgFact struct {
	Kind    string `json:"kind"`
	Country string `json:"country"`
	Region  string `json:"region,omitempty"`
}

type relatedFact struct {
	ID    string          `json:"id"`
	Kind  string          `json:"kind"`
	State string          `json:"state"`
	Data  json.RawMessage `json:"data"`
}

type digests struct {
	Data      string `json:"data"`
	Deadlines string `json:"deadlines"`
}

// newFacts starts the facts of an act given input.
func newFacts(input any, warnDays int) (*facts, error) {
	fx := &facts{V: factsVersion, WarnDays: warnDays}
	switch in := input.(type) {
	case nil:
	case engine.Party:
		fx.Party = &in
	case engine.Chained:
		fx.Chained = &in
	default:
		raw, err := json.Marshal(input)
		if err != nil {
			return nil, fmt.Errorf("the act's input: %w", err)
		}
		fx.Input = raw
	}
	return fx, nil
}

// input is the act's input as the live act had it: a new block of the
// intent's (in's input type) read from the facts.
func (fx *facts) input(newInput func() any) (any, error) {
	switch {
	case fx.Party != nil:
		return *fx.Party, nil
	case fx.Chained != nil:
		return *fx.Chained, nil
	case fx.Input == nil:
		return nil, nil
	case newInput == nil:
		return nil, fmt.Errorf("the trail holds an input for an intent that takes none")
	}
	in := newInput()
	if err := json.Unmarshal(fx.Input, in); err != nil {
		return nil, fmt.Errorf("the act's input: %w", err)
	}
	return in, nil
}

// related keeps ev.Related in the facts.
func (fx *facts) related(ev *engine.Eval) error {
	for name, rel := range ev.Related {
		raw, err := json.Marshal(rel.Data)
		if err != nil {
			return err
		}
		if fx.Related == nil {
			fx.Related = map[string]*relatedFact{}
		}
		fx.Related[name] = &relatedFact{ID: rel.ID, Kind: rel.Kind, State: rel.State, Data: raw}
	}
	return nil
}

// seal writes the digests of what the act left and returns the facts as
// the audit row's context.
func (fx *facts) seal(data []byte, deadlines []models.Deadline) (string, error) {
	fx.After = digests{Data: digest(data), Deadlines: deadlineDigest(deadlines)}
	raw, err := json.Marshal(fx)
	return string(raw), err
}

func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:16])
}

// deadlineDigest is a digest of deadlines as an act leaves them: each
// field in the microseconds the store keeps, a running deadline's state
// as "running" and without its time of change (the sweep moves a running
// deadline to DUE_SOON and OVERDUE as time passes, between acts: not an
// act's doing), in (started, id) order.
func deadlineDigest(ds []models.Deadline) string {
	ds = slices.Clone(ds)
	sortDeadlines(ds)
	var b strings.Builder
	for _, d := range ds {
		state, updated := d.State, micro(d.UpdatedAt).Format(time.RFC3339Nano)
		if running(&d) {
			state, updated = "running", ""
		}
		fmt.Fprintf(&b, "%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%s|%d|%s|%s\n", d.ID, d.DocumentID, d.ProviderID, d.Rule, d.LegalBasis, d.PartyOrg, d.PartyRole,
			state, micro(d.StartedAt).Format(time.RFC3339Nano), micro(d.DueAt).Format(time.RFC3339Nano), microText(d.WarnAt), d.SuspendedDays,
			microText(d.SuspendedSince)+"/"+microText(d.ClosedAt), updated)
	}
	return digest([]byte(b.String()))
}

func sortDeadlines(ds []models.Deadline) {
	slices.SortStableFunc(ds, func(a, b models.Deadline) int {
		if c := micro(a.StartedAt).Compare(micro(b.StartedAt)); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
}

// micro is t as the store keeps it: microseconds, UTC.
func micro(t time.Time) time.Time { return t.UTC().Truncate(time.Microsecond) }

func microText(t *time.Time) string {
	if t == nil {
		return "-"
	}
	return micro(*t).Format(time.RFC3339Nano)
}

// deadlineID is the id of the n-th deadline (from 0) act seq of document
// doc starts: the same in the act and in its replay.
func deadlineID(doc string, seq int64, n int) string {
	sum := sha256.Sum256(fmt.Appendf(nil, "%s/%d/%d", doc, seq, n))
	return "dl_" + hex.EncodeToString(sum[:12])
}

// stepResult is what step left: the intent fired, the state before, the
// deadline work (f.deadlines all of the document's after the act,
// f.changed those it wrote, f.out their events), or the business errors
// that refused the act (then nothing changed but ev.Data, which must not
// be kept).
type stepResult struct {
	in    *engine.Intent
	from  string
	f     *firing
	berrs []engine.BusinessError
}

// step is one act on the engine alone: intent, which m.Check permitted,
// fired on ev (the document of kind k before the act, with its family,
// the references, the caller, the act's time and its input, its
// directory dir), the document's deadlines beside it. The runner's fireIn
// and the replay both run it.
func step(ctx context.Context, k *Kind, doc *models.Document, ev *engine.Eval, deadlines []models.Deadline, dir *directory, intent string, warnDays int) (*stepResult, error) {
	m := k.Machine()
	in, _ := m.Intent(intent)
	res := &stepResult{in: in, from: ev.State}
	if in.Validate != nil {
		berrs, err := in.Validate(ev)
		if err != nil {
			return nil, err
		}
		k.undeclared(in, berrs)
		if dir.err != nil {
			return nil, dir.err
		}
		if len(berrs) > 0 {
			res.berrs = berrs
			return res, nil
		}
	}
	if in.Apply != nil {
		ev.Apply = func() error { return in.Apply(ev) }
	}
	var lengths map[string]int
	if !ev.Caller.System { // a person's act may not grow a history list past its bound
		lengths = engine.HistoryLengths(ev.Data, ev.KeptApart)
	}
	if err := m.Fire(ctx, ev, intent); err != nil {
		return nil, err
	}
	if berrs := historyFull(ev, lengths); len(berrs) > 0 {
		k.undeclared(in, berrs)
		res.berrs = berrs
		return res, nil
	}
	f := &firing{def: k.Def, doc: doc, ev: ev, deadlines: deadlines, before: map[string]string{}, warnDays: warnDays}
	for _, d := range deadlines {
		f.before[d.ID] = d.State
	}
	if err := f.applyEffects(in); err != nil {
		return nil, err
	}
	if dir.err != nil { // a place the deadlines needed could not be read
		return nil, dir.err
	}
	if err := record(dir, k, ev.State, ev.Data, in.Refreshes); err != nil {
		return nil, err
	}
	res.f = f
	return res, nil
}

// createStep is a create on the engine alone: the Create intent's
// Validate and Apply on ev (a new aggregate, the caller, the time, the
// block, the parent and siblings of a child kind, the references), and
// the parties' details recorded. Business errors refuse it.
func createStep(k *Kind, ev *engine.Eval, dir *directory) ([]engine.BusinessError, error) {
	in := k.Def.Create
	if in.Validate != nil {
		berrs, err := in.Validate(ev)
		if err != nil {
			return nil, err
		}
		k.undeclared(in, berrs)
		if len(berrs) > 0 {
			return berrs, dir.err
		}
	}
	if err := in.Apply(ev); err != nil {
		return nil, err
	}
	if dir.err != nil {
		return nil, dir.err
	}
	return nil, record(dir, k, k.Def.Initial, ev.Data, false)
}
