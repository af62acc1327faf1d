package engine

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

// A kind is declared with its types: Declaration[D] is a Definition whose
// guards, targets, selectors, dates and references receive the document's
// aggregate as a *D, and whose intents (IntentOf[D, I]) receive their block
// as a *I. The kind's functions are checked by the compiler; the one place
// that turns the runner's untyped values back into D and I is this file.
// Build turns a Declaration into the Definition the machine runs.

// On is what a kind's functions see: the evaluation, and the document's
// aggregate as its type.
type On[D any] struct {
	*Eval
	Doc *D
}

func on[D any](ev *Eval) *On[D] {
	d, _ := ev.Data.(*D)
	if d == nil {
		// The runner always gives a kind its own aggregate; anything else is
		// a programming error caught by the first test that reaches it.
		panic(fmt.Sprintf("engine: a %T evaluated as %T", ev.Data, d))
	}
	return &On[D]{Eval: ev, Doc: d}
}

// Step is one intent of a kind with aggregate D: an IntentOf[D, I].
type Step[D any] interface {
	intent() Intent
	// InputBlock is the block the intent takes, as the kind's retrieval
	// document shows it.
	InputBlock() InputBlock[D]
}

// InputBlock is the block an intent of a kind with aggregate D takes, for
// the kind's retrieval document: a field named Name of type Type,
// pre-filled by Prefill.
type InputBlock[D any] struct {
	Intent    string
	Operation string
	// Name is the block's JSON name (IntentOf's Block; "" for none).
	Name string
	// Type is the block's type I; nil when the intent takes no block
	// (I = None, a system intent, a Creates intent).
	Type reflect.Type
	// Prefill is IntentOf's Prefill with the block as a *I (nil when the
	// intent declares none).
	Prefill func(d *D, block any)
}

// IntentOf declares an intent of a kind with aggregate D that takes a block
// of type I: Validate and Apply receive it typed. The runner decodes the
// block into a new I. System intents receive what the engine gives them
// (the Party whose deadline ran out, or the Chained document): declare them
// with I = Party or I = Chained. Intents that take nothing (a Creates
// intent, a system intent without input) use I = None.
type IntentOf[D, I any] struct {
	Name        string
	Operation   string
	Block       string
	Roles       []string
	System      bool
	Summary     string
	Transitions []Transition
	Effects     []Effect
	Then        []Chain
	Creates     string
	Errors      []string
	Refreshes   bool // a correction: see Intent.Refreshes
	Keeps       bool // a record that never moves the document: see Intent.Keeps
	Validate    func(ev *On[D], in *I) ([]BusinessError, error)
	Apply       func(ev *On[D], in *I) error
	// Prefill, optional, pre-fills the intent's block in the kind's
	// retrieval document: what a UI would start from (what was recorded,
	// or a default from the aggregate d). It gets the block zero. Only an
	// input block the retrieval document is made with may have one (not
	// one that is a content field of the document, such as the content a
	// SUBMISSION takes); intents sharing a block pre-fill it in turn.
	Prefill func(d *D, block *I)
}

// None is the input of an intent that takes nothing.
type None struct{}

// isEngineInput: I is what the engine gives a system intent itself.
func isEngineInput[I any]() bool {
	switch any((*I)(nil)).(type) {
	case *Party, *Chained:
		return true
	}
	return false
}

func (x IntentOf[D, I]) intent() Intent {
	in := Intent{Name: x.Name, Operation: x.Operation, Block: x.Block, Roles: x.Roles, System: x.System,
		Summary: x.Summary, Transitions: x.Transitions, Effects: x.Effects, Then: x.Then, Creates: x.Creates, Errors: x.Errors, Refreshes: x.Refreshes, Keeps: x.Keeps}
	if _, none := any((*I)(nil)).(*None); !none && !x.System {
		in.Input = func() any { return new(I) }
	} else if !none && !isEngineInput[I]() { // a system intent the server fires with a value of its own
		in.SystemInput = func() any { return new(I) }
	}
	if v := x.Validate; v != nil {
		in.Validate = func(ev *Eval) ([]BusinessError, error) {
			i, err := inputOf[I](ev, x.Name)
			if err != nil {
				return nil, err
			}
			return v(on[D](ev), i)
		}
	}
	if a := x.Apply; a != nil {
		in.Apply = func(ev *Eval) error {
			i, err := inputOf[I](ev, x.Name)
			if err != nil {
				return err
			}
			return a(on[D](ev), i)
		}
	}
	return in
}

// InputBlock is the block x takes, as the kind's retrieval document shows
// it: none (a nil Type) when x takes nothing, is a system intent or
// creates a document of another kind.
func (x IntentOf[D, I]) InputBlock() InputBlock[D] {
	b := InputBlock[D]{Intent: x.Name, Operation: x.Operation, Name: x.Block}
	if _, none := any((*I)(nil)).(*None); !none && !x.System && x.Creates == "" && x.Block != "" {
		b.Type = reflect.TypeFor[I]()
	}
	if p := x.Prefill; p != nil {
		b.Prefill = func(d *D, block any) { p(d, block.(*I)) }
	}
	return b
}

// inputOf is ev's input as the intent's I: the block the runner decoded
// (a *I), or a value the engine gave a system intent (an I); nothing for
// None.
func inputOf[I any](ev *Eval, intent string) (*I, error) {
	if in, ok := InputOf[I](ev); ok {
		return in, nil
	}
	if _, none := any((*I)(nil)).(*None); none {
		return new(I), nil
	}
	return nil, fmt.Errorf("intent %s takes a %T, was given a %T", intent, (*I)(nil), ev.Input)
}

// InputOf is ev's input as an I when it is one: for the few functions
// beside an intent's own (a target, a reference) that depend on the block
// the intent fired with.
func InputOf[I any](ev *Eval) (*I, bool) {
	switch v := ev.Input.(type) {
	case *I:
		return v, v != nil
	case I:
		return &v, true
	}
	return nil, false
}

// DataOf is a related document's aggregate as a T (a *D, or an interface
// its aggregate implements), when it is one.
func DataOf[T any](r *Related) (T, bool) {
	var zero T
	if r == nil {
		return zero, false
	}
	t, ok := r.Data.(T)
	return t, ok
}

// TallyOf is tally (Eval.Tally, Eval.SiblingsTally: a *T) as a T; false
// when there is none (the runner fills it for every kind that keeps one,
// so a rule that finds none reports a fault, never counts nothing).
func TallyOf[T any](tally any) (T, bool) {
	if t, ok := tally.(*T); ok && t != nil {
		return *t, true
	}
	var zero T
	return zero, false
}

// Declaration declares a document kind with aggregate D; Build makes the
// Definition the machine runs. The fields mean what Definition's mean.
type Declaration[D any] struct {
	Kind      string
	States    []string
	Initial   string
	Final     []string
	Private   []string
	Create    Step[D]
	Intents   []Step[D]
	Guards    map[string]func(*On[D]) bool
	Refusals  map[string]func(*On[D]) string
	Targets   map[string]func(*On[D]) string
	Rules     []Rule
	Selectors map[string]func(*On[D]) []Party
	Dates     map[string]func(*On[D]) string
	Refs      map[string]func(*On[D]) string
	// Labels are the words for the states, intents and roles (see
	// Definition.Labels).
	Labels Labels

	built *Definition
}

// Build makes the untyped Definition of d once (engine.Build validates
// it); later calls return the same one.
func (d *Declaration[D]) Build() *Definition {
	if d.built != nil {
		return d.built
	}
	def := &Definition{
		Kind: d.Kind, States: d.States, Initial: d.Initial, Final: d.Final, Private: d.Private, Rules: d.Rules,
		Guards: adapt(d.Guards), Refusals: adapt(d.Refusals), Targets: adapt(d.Targets),
		Selectors: adapt(d.Selectors), Dates: adapt(d.Dates), Refs: adapt(d.Refs), Labels: d.Labels,
	}
	if d.Create != nil {
		c := d.Create.intent()
		def.Create = &c
	}
	bounded := len(listsOf(reflect.TypeFor[D]())) > 0
	for _, s := range d.Intents {
		in := s.intent()
		if bounded && in.Apply != nil && !in.System { // the runner's check of the history lists (HistoryFull)
			in.Errors = append(slices.Clip(in.Errors), ErrHistoryFull)
		}
		def.Intents = append(def.Intents, in)
	}
	d.built = def
	return def
}

// PartiesOf turns the parties the rules name into the engine's.
func PartiesOf(ps []shipment.Party) []Party {
	out := make([]Party, 0, len(ps))
	for _, p := range ps {
		out = append(out, Party{Org: p.OrganisationID, Role: p.Role})
	}
	return out
}

func adapt[D, T any](fs map[string]func(*On[D]) T) map[string]func(*Eval) T {
	if fs == nil {
		return nil
	}
	out := make(map[string]func(*Eval) T, len(fs))
	for name, f := range fs {
		out[name] = func(ev *Eval) T { return f(on[D](ev)) }
	}
	return out
}
