// Package engine turns a document kind declared as data (states, intents,
// roles, guards by name, targets, deadline effects) into one shared
// qmuntal/stateless machine with external storage. Follow-up intents and
// firing use the same declaration and the same guard functions.
package engine

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/labels"

	"github.com/qmuntal/stateless"

	"github.com/wasteflow/wasteflow/rules/calendar"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

// System is the actor of automatic triggers.
const System = "system"

// Caller is who fires an intent: an account of an organisation holding some
// party roles on the document, or the system.
type Caller struct {
	Actor  string   // account id, or "system"
	Org    string   // organisation id ("" for the system)
	Roles  []string // party roles of Org on the document
	System bool
}

// HasRole reports whether the caller holds one of roles.
func (c Caller) HasRole(roles []string) bool {
	for _, r := range roles {
		if slices.Contains(c.Roles, r) {
			return true
		}
	}
	return false
}

// Eval is everything guards, targets and an intent's Validate and Apply may
// look at: the document (its kind-specific aggregate in Data), the caller,
// the clock, the intent's input, the document's deadlines, the directory of
// organisations and the documents it refers to. It travels in the context,
// which is how one shared machine serves every document.
type Eval struct {
	DocID     string
	Number    string // the document's human number (empty on create)
	State     string
	Data      any
	Caller    Caller
	Now       time.Time
	Input     any
	Deadlines []DeadlineView
	// CreatedAt is when the document was created (the zero time on create).
	CreatedAt time.Time
	// Dir tells an organisation's kind and place; the runner fills it
	// before Validate.
	Dir Directory
	// Setting is the provider's value of a rule setting by name (its legal
	// default when the provider set none, rules.ProviderSettings); the
	// runner fills it with Dir.
	Setting func(name string) int
	// Related holds the documents the kind's Refs name, loaded by the
	// runner before Validate (no entry for an id that does not exist or
	// that the caller may not see).
	Related map[string]*Related
	// Parent is the document a child kind's document belongs to (locked for
	// the transaction), and Siblings the parent's other children; the
	// runner fills both for child kinds before Validate.
	Parent   *Related
	Siblings []*Related
	// SiblingsTally is the tally of the parent's other children (a child
	// kind that declares one: documents.Parent.Tallied), filled with Parent:
	// what the child's rules count of its siblings, whose summaries the
	// runner then does not read (Siblings stays empty).
	SiblingsTally any
	// Children are the documents under this one (kinds with child kinds),
	// filled before Validate.
	Children []*Related
	// Tally is the tally of the children (kinds whose child kind declares
	// one), filled whenever the document is evaluated, Children or not:
	// guards count the children by it.
	Tally any
	// KeptApart counts, by list (its JSON name), the first items of Data's
	// lists that the act was read without: the oldest closed exchanges a
	// kind keeps apart from its stored aggregate (documents.Archived),
	// which no act changes. Data's lists hold the rest; an item's place in
	// the whole list, by which a person knows it ("change request 12"), is
	// KeptApart's count plus its place in Data (Numbered). nil: Data is
	// whole.
	KeptApart map[string]int
	// Note, set by Apply, says in words what the intent did beyond its
	// block (recorded with the audit row).
	Note string
	// Events, added by Apply, are told to every party that sees the
	// document after the act (beside the state change the runner tells
	// of itself), written with it.
	Events []Event
	// Apply records the intent's block in Data. Fire calls it once, after
	// the guards passed and before the target is computed, so guards see
	// the document before the intent and targets the document after it.
	Apply func() error
}

// Numbered is the number (from 1) of the item at index i of Data's list
// (its JSON name): its place in the whole list, the items kept apart
// before it (KeptApart) counted.
func (e *Eval) Numbered(list string, i int) int { return e.KeptApart[list] + i + 1 }

// Related is a document another one refers to.
type Related struct {
	ID, Kind, State, Number string
	Data                    any
	Parties                 []Party
}

// Org is what the directory knows of an organisation.
type Org struct {
	Kind            string // company or authority
	Country, Region string
}

// Directory finds an organisation of the document's provider.
type Directory func(id string) (Org, bool)

// Party is an organisation in a role on a document.
type Party struct{ Org, Role string }

// DeadlineView is what guards see of a deadline.
type DeadlineView struct {
	Rule, PartyOrg, PartyRole, State string
	DueAt                            time.Time
	Open                             bool // still waiting for its party
}

// Overdue reports whether the party's running deadline of rule is past due.
func (ev *Eval) Overdue(rule, org string) bool {
	return slices.ContainsFunc(ev.Deadlines, func(d DeadlineView) bool {
		return d.Rule == rule && d.PartyOrg == org && d.Open && ev.Now.After(d.DueAt)
	})
}

// BusinessError is a content rule the block breaks (HTTP 200, nothing changed).
type BusinessError = shipment.BusinessError

type evalKey struct{}

func withEval(ctx context.Context, ev *Eval) context.Context {
	return context.WithValue(ctx, evalKey{}, ev)
}

func evalOf(ctx context.Context) *Eval { return ctx.Value(evalKey{}).(*Eval) }

// Transition of an intent: from any of From, to To, or to the state the
// named Target computes (which must be one of Targets). Guard names a
// guard; "!name" is its negation.
type Transition struct {
	From    []string
	To      string
	Target  string
	Targets []string
	Guard   string
}

// Effect on deadlines when the intent fires. When, if set, names a guard
// evaluated after the transition (on the updated document and new state).
type Effect struct {
	Op    string // Start, Stop, Suspend, Resume, Restart, Cancel, Lapse
	Rule  string
	Party string // party selector (Definition.Selectors); the rule's when empty
	When  string
	// Since names a date (Definition.Dates) the period starts at instead of
	// the firing, e.g. the receipt date a certificate states.
	Since string
}

// Deadline effect operations.
const (
	Start   = "START"
	Stop    = "STOP"
	Suspend = "SUSPEND"
	Resume  = "RESUME"
	Restart = "RESTART"
	Cancel  = "CANCEL"
	// Lapse closes a deadline whose period ended as the law foresees (tacit
	// consent, end of a consent's validity): state LAPSED, not OVERDUE.
	Lapse = "LAPSE"
)

var effectOps = []string{Start, Stop, Suspend, Resume, Restart, Cancel, Lapse}

// Rule is a deadline rule, declared with the machine (each kind's are in
// docs/reference/workflows.md, their legal bases in docs/compliance.md).
type Rule struct {
	Name       string
	LegalBasis string
	// The period: Days working days (Working) or calendar days (moved to
	// the next working day when it ends on a non-working day), or, with
	// Until, the end of the day a named date function returns (the deadline
	// follows that date when the data changes it).
	Days    int
	Working bool
	Until   string
	// Party selects who must act (Definition.Selectors).
	Party string
	// OnExpiry names a system intent the sweep fires when the deadline runs
	// out, with the deadline's party as input (tacit consent, end of
	// validity); "" for none: the deadline is simply OVERDUE.
	OnExpiry string
}

// Chain fires a system intent on another document in the same transaction
// after this intent fired, e.g. a completed take-back document marking its
// original TAKEN_BACK.
type Chain struct {
	Ref    string // Definition.Refs: the other document
	Intent string // system intent of the other document's kind
	When   string // guard on this document after the transition
}

// Event is one an act tells its parties of: its kind (an event kind of
// workflows/eventkinds) and payload (that kind's type).
type Event struct {
	Kind    string
	Payload any
}

// Chained is the input of an intent a Chain fires: the document whose
// intent fired it.
type Chained struct{ DocID, Number string }

// Intent is one trigger of the machine.
type Intent struct {
	Name        string
	Operation   string // REST path of the operation that executes it
	Block       string // the block of the retrieval document it takes
	Roles       []string
	System      bool // fired by the scheduler only (actor system)
	Summary     string
	Transitions []Transition
	Effects     []Effect
	// Input makes a new, empty block (nil: the intent takes none).
	Input func() any
	// SystemInput makes a new, empty value of what the server gives a
	// system intent that takes more than a Party or a Chained (the
	// replay reads the act's input into it); nil otherwise.
	SystemInput func() any
	// Validate checks ev.Input against ev.Data before anything changes: an
	// error for a block the transport cannot take (status code 3), business
	// errors for content that breaks a rule (then nothing is written).
	Validate func(ev *Eval) ([]BusinessError, error)
	// Apply records ev.Input in ev.Data (after the guards, before the
	// target is computed).
	Apply func(ev *Eval) error
	Then  []Chain
	// Errors are the business error codes Validate may report: the
	// reference's catalogue lists, for each code, the operations that raise
	// it. A code reported but not declared is noted (Undeclared), and the
	// test suites fail on it.
	Errors []string
	// Creates names the child kind a document of which this intent creates
	// under this document (through its Operation, the child kind's
	// create). It is offered as a follow-up like any intent and never fired
	// on this document: it has no Input and no Apply, and its transitions
	// keep the state.
	Creates string
	// Keeps marks a record that never moves the document: each transition
	// keeps its state (a final one too, the only intents that may fire in
	// one). Diagrams note it instead of drawing a loop per state.
	Keeps bool
	// Refreshes marks a correction: a filed document records its parties'
	// details anew from the directory when it fires (otherwise a filed
	// document keeps them as they were when it was filed).
	Refreshes bool
}

// Definition declares a document kind.
type Definition struct {
	Kind    string
	States  []string
	Initial string
	// Final states end the document's life: no intent leaves one (an
	// intent that Keeps may record in one).
	Final []string
	// Private are the states (a DRAFT) in which the document is the
	// author's alone: only the organisations in a role of Create.Roles
	// see it; the other parties learn of it when it leaves them.
	Private []string
	// Create makes a new document in Initial: no transitions, its Validate
	// and Apply see an empty Data.
	Create  *Intent
	Intents []Intent
	Guards  map[string]func(*Eval) bool
	// Refusals say, for a guard (by the expression a transition names)
	// that does not hold, why not, in words the caller can act on ("you
	// decided on ... already"); Check's refusal of an intent that guard
	// blocks carries the sentence.
	Refusals map[string]func(*Eval) string
	Targets  map[string]func(*Eval) string
	// Rules are the deadline rules; Selectors name the parties effects and
	// rules address; Dates the dates a rule or effect reads from the data
	// (YYYY-MM-DD, "" when unknown); Refs the other documents a document
	// refers to (their ids, "" for none).
	Rules     []Rule
	Selectors map[string]func(*Eval) []Party
	Dates     map[string]func(*Eval) string
	Refs      map[string]func(*Eval) string
	// Labels are the words a person sees for the states, the intents and
	// the roles, declared with them.
	Labels Labels
}

// Labels are a kind's words for people, in English and German: each
// state, each intent (the create and the system ones too) and each role
// an intent names. Build registers them as the rules/labels lists
// state/<kind>, intent/<kind> and role (kind as in /workflows/<kind>.json:
// the lower-case Kind).
type Labels struct {
	// Kind is the kind's own name (the list documentKind).
	Kind                   labels.Text
	States, Intents, Roles map[string]labels.Text
	// Rules are the deadline rules' words (the list deadlineRule).
	Rules map[string]labels.Text
}

// ListKind is the name of a kind in its label lists and its
// /workflows/<kind>.json ("notification", "annex_vii", "movement").
func ListKind(kind string) string { return strings.ToLower(kind) }

// Unlabelled lists what def declares without a label in both languages:
// "kind K", "state X", "intent Y", "role Z". Empty for a fully labelled kind.
func Unlabelled(def *Definition) []string {
	var out []string
	check := func(what string, m map[string]labels.Text, name string) {
		if l, ok := m[name]; !ok || l.Empty() {
			out = append(out, what+" "+name)
		}
	}
	check("kind", map[string]labels.Text{def.Kind: def.Labels.Kind}, def.Kind)
	for _, st := range def.States {
		check("state", def.Labels.States, st)
	}
	intents := def.Intents
	if def.Create != nil {
		intents = append([]Intent{*def.Create}, intents...)
	}
	for _, r := range def.Rules {
		check("rule", def.Labels.Rules, r.Name)
	}
	seen := map[string]bool{}
	for _, in := range intents {
		check("intent", def.Labels.Intents, in.Name)
		for _, r := range in.Roles {
			if !seen[r] {
				seen[r] = true
				check("role", def.Labels.Roles, r)
			}
		}
	}
	return out
}

// registerLabels makes def's labels the rules/labels lists of its kind.
func registerLabels(def *Definition) {
	kind := ListKind(def.Kind)
	names := []string{kind}
	if kind == "annex_vii" {
		names = append(names, "annex7") // the shorter name the contracts use
	}
	for _, k := range names {
		labels.Register(labels.State(k), def.Labels.States)
		labels.Register(labels.Intent(k), def.Labels.Intents)
	}
	if !def.Labels.Kind.Empty() {
		labels.Register(labels.ListDocumentKind, map[string]labels.Text{def.Kind: def.Labels.Kind})
	}
	labels.Register(labels.ListRole, def.Labels.Roles)
	labels.Register(labels.ListDeadlineRule, def.Labels.Rules)
}

// Rule returns the declared rule name.
func (d *Definition) Rule(name string) (*Rule, bool) {
	for i := range d.Rules {
		if d.Rules[i].Name == name {
			return &d.Rules[i], true
		}
	}
	return nil, false
}

// Holds evaluates a guard expression ("name" or "!name"); "" holds.
func (d *Definition) Holds(expr string, ev *Eval) bool {
	if expr == "" {
		return true
	}
	name, negate := strings.CutPrefix(expr, "!")
	return d.Guards[name](ev) != negate
}

// Machine is a validated definition built into a stateless machine.
type Machine struct {
	Def     *Definition
	sm      *stateless.StateMachine
	intents map[string]*Intent
}

// Build validates def and builds its machine.
func Build(def *Definition) (*Machine, error) {
	if err := Validate(def); err != nil {
		return nil, err
	}
	registerLabels(def)
	m := &Machine{Def: def, intents: map[string]*Intent{}}
	m.sm = stateless.NewStateMachineWithExternalStorage(
		func(ctx context.Context) (stateless.State, error) { return evalOf(ctx).State, nil },
		func(ctx context.Context, s stateless.State) error { evalOf(ctx).State = s.(string); return nil },
		stateless.FiringImmediate)
	m.sm.OnUnhandledTrigger(func(_ context.Context, state stateless.State, trigger stateless.Trigger, _ []string) error {
		return &NotPermittedError{State: state.(string), Intent: trigger.(string)}
	})
	for i := range def.Intents {
		in := &def.Intents[i]
		m.intents[in.Name] = in
		for _, t := range in.Transitions {
			target := func(*Eval) string { return t.To }
			allowed := []string{t.To}
			if t.Target != "" {
				target, allowed = def.Targets[t.Target], t.Targets
			}
			selector := func(ctx context.Context, _ ...any) (stateless.State, error) {
				ev := evalOf(ctx)
				if ev.Apply != nil {
					if err := ev.Apply(); err != nil {
						return nil, err
					}
				}
				s := target(ev)
				if !slices.Contains(allowed, s) {
					return nil, fmt.Errorf("intent %s: target chose %q, not one of %v", in.Name, s, allowed)
				}
				return s, nil
			}
			var guards []stateless.GuardFunc
			if t.Guard != "" {
				name, negate := strings.CutPrefix(t.Guard, "!")
				g := def.Guards[name]
				guards = append(guards, func(ctx context.Context, _ ...any) bool { return g(evalOf(ctx)) != negate })
			}
			for _, from := range t.From {
				m.sm.Configure(from).PermitDynamic(in.Name, selector, guards...)
			}
		}
	}
	for _, s := range def.States { // every state known to the machine, even final ones
		m.sm.Configure(s)
	}
	return m, nil
}

// NotPermittedError is an intent the state (with its guards) does not
// permit. When the state has the intent and a guard blocked it, Guard names
// that guard and Reason says why it does not hold (Definition.Refusals).
type NotPermittedError struct{ State, Intent, Guard, Reason string }

func (e *NotPermittedError) Error() string {
	if e.Reason != "" {
		return fmt.Sprintf("intent %s is not permitted in state %s: %s", e.Intent, e.State, e.Reason)
	}
	return fmt.Sprintf("intent %s is not permitted in state %s", e.Intent, e.State)
}

// notPermitted is the refusal of intent in ev's state, with the guard
// that blocked it and, if declared, why.
func (m *Machine) notPermitted(ev *Eval, in *Intent) *NotPermittedError {
	np := &NotPermittedError{State: ev.State, Intent: in.Name}
	for _, t := range in.Transitions {
		if !slices.Contains(t.From, ev.State) || t.Guard == "" || m.Def.Holds(t.Guard, ev) {
			continue
		}
		np.Guard = t.Guard
		if why := m.Def.Refusals[t.Guard]; why != nil {
			np.Reason = why(ev)
		}
		break
	}
	return np
}

// Intent returns the declaration of name.
func (m *Machine) Intent(name string) (*Intent, bool) {
	in, ok := m.intents[name]
	return in, ok
}

// Permitted lists the intents the machine permits for ev's document now,
// guards included, in declaration order; roles are not considered.
func (m *Machine) Permitted(ctx context.Context, ev *Eval) ([]string, error) {
	triggers, err := m.sm.PermittedTriggersCtx(withEval(ctx, ev))
	if err != nil {
		return nil, err
	}
	set := map[string]bool{}
	for _, t := range triggers {
		set[t.(string)] = true
	}
	var out []string
	for _, in := range m.Def.Intents {
		if set[in.Name] {
			out = append(out, in.Name)
		}
	}
	return out, nil
}

// FollowUp lists the permitted intents the caller may fire: its roles match
// and the intent is not reserved to the system.
func (m *Machine) FollowUp(ctx context.Context, ev *Eval) ([]*Intent, error) {
	names, err := m.Permitted(ctx, ev)
	if err != nil {
		return nil, err
	}
	var out []*Intent
	for _, n := range names {
		in := m.intents[n]
		if in.System != ev.Caller.System {
			continue
		}
		if in.System || ev.Caller.HasRole(in.Roles) {
			out = append(out, in)
		}
	}
	return out, nil
}

// ErrRole means the caller holds none of the intent's roles.
var ErrRole = errors.New("the caller's roles may not fire this intent")

// Check tells whether the caller may fire intent now: a NotPermittedError
// when the state or a guard forbids it, ErrRole when the caller may not.
func (m *Machine) Check(ctx context.Context, ev *Eval, intent string) error {
	in, ok := m.intents[intent]
	if !ok {
		return &NotPermittedError{State: ev.State, Intent: intent}
	}
	ok, err := m.sm.CanFireCtx(withEval(ctx, ev), intent)
	if err != nil {
		return err
	}
	if !ok {
		return m.notPermitted(ev, in)
	}
	if in.System != ev.Caller.System || (!in.System && !ev.Caller.HasRole(in.Roles)) {
		return ErrRole
	}
	return nil
}

// Fire moves ev's document by intent: guards on the document as it is,
// then ev.Apply, then the target; ev.State holds the new state after.
func (m *Machine) Fire(ctx context.Context, ev *Eval, intent string) error {
	return m.sm.FireCtx(withEval(ctx, ev), intent)
}

// Validate checks a definition: known states and guards, reachable states,
// an operation for every non-system intent, and guards that cannot both
// hold on one (state, intent).
func Validate(def *Definition) error {
	var problems []string
	bad := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	states := map[string]bool{}
	for _, s := range def.States {
		states[s] = true
	}
	for _, st := range def.Private {
		if !states[st] {
			bad("private state %q is not declared", st)
		}
	}
	if len(def.Private) > 0 && (def.Create == nil || len(def.Create.Roles) == 0) {
		bad("private states need a create intent with roles (its roles are the author's)")
	}
	if !states[def.Initial] {
		bad("initial state %q is not declared", def.Initial)
	}
	for _, s := range def.Final {
		if !states[s] {
			bad("final state %q is not declared", s)
		}
	}
	edges := map[string][]string{}
	seenIntent := map[string]bool{}
	for _, in := range def.Intents {
		if seenIntent[in.Name] {
			bad("intent %s declared twice", in.Name)
		}
		seenIntent[in.Name] = true
		if !in.System && (in.Operation == "" || len(in.Roles) == 0) {
			bad("intent %s has no operation or no roles", in.Name)
		}
		guardsByFrom := map[string][]string{}
		for _, t := range in.Transitions {
			targets := t.Targets
			if t.Target == "" {
				targets = []string{t.To}
			} else if def.Targets[t.Target] == nil {
				bad("intent %s: unknown target function %q", in.Name, t.Target)
			}
			if t.Target != "" && t.To != "" {
				bad("intent %s: a transition has both To and Target", in.Name)
			}
			for _, to := range targets {
				if !states[to] {
					bad("intent %s: unknown target state %q", in.Name, to)
				}
			}
			if name := strings.TrimPrefix(t.Guard, "!"); t.Guard != "" && def.Guards[name] == nil {
				bad("intent %s: unknown guard %q", in.Name, name)
			}
			if in.Keeps && (len(t.From) != 1 || len(targets) != 1 || targets[0] != t.From[0]) {
				bad("intent %s keeps the state, but a transition moves it", in.Name)
			}
			for _, from := range t.From {
				if !states[from] {
					bad("intent %s: unknown source state %q", in.Name, from)
				}
				// A final state may keep a record (the exchange with
				// DIWASS goes on after the shipment ended); nothing
				// leaves it.
				if slices.Contains(def.Final, from) && !in.Keeps {
					bad("intent %s leaves final state %s", in.Name, from)
				}
				guardsByFrom[from] = append(guardsByFrom[from], t.Guard)
				edges[from] = append(edges[from], targets...)
			}
		}
		for from, guards := range guardsByFrom {
			if len(guards) == 1 {
				continue
			}
			// Two transitions on one (state, intent) need complementary guards.
			if len(guards) != 2 || guards[0] == "" || guards[1] == "" ||
				!(guards[0] == "!"+guards[1] || guards[1] == "!"+guards[0]) {
				bad("intent %s from %s: guards %v can both hold", in.Name, from, guards)
			}
		}
		for _, e := range in.Effects {
			if e.When != "" && def.Guards[strings.TrimPrefix(e.When, "!")] == nil {
				bad("intent %s: effect on %s: unknown guard %q", in.Name, e.Rule, e.When)
			}
			if !slices.Contains(effectOps, e.Op) {
				bad("intent %s: unknown effect %q on %s", in.Name, e.Op, e.Rule)
			}
			rule, ok := def.Rule(e.Rule)
			switch {
			case !ok:
				bad("intent %s: effect %s on unknown deadline rule %q", in.Name, e.Op, e.Rule)
			case e.Party == "" && rule.Party == "":
				bad("intent %s: effect %s on %s names no party", in.Name, e.Op, e.Rule)
			}
			if e.Party != "" && def.Selectors[e.Party] == nil {
				bad("intent %s: effect %s on %s: unknown party selector %q", in.Name, e.Op, e.Rule, e.Party)
			}
			if e.Since != "" && def.Dates[e.Since] == nil {
				bad("intent %s: effect %s on %s: unknown date %q", in.Name, e.Op, e.Rule, e.Since)
			}
		}
		if in.Creates != "" {
			for _, t := range in.Transitions {
				if t.To != "" && !slices.Contains(t.From, t.To) || len(t.From) != 1 {
					bad("intent %s creates a %s: its transitions must keep the state (one From, To the same)", in.Name, in.Creates)
				}
			}
			if in.Input != nil || in.Apply != nil || len(in.Effects) > 0 {
				bad("intent %s creates a %s: no Input, Apply or Effects of its own", in.Name, in.Creates)
			}
		} else if !in.System && (in.Input == nil || in.Apply == nil) {
			bad("intent %s has no Input or no Apply", in.Name)
		}
		for _, c := range in.Then {
			if def.Refs[c.Ref] == nil {
				bad("intent %s: chain to unknown reference %q", in.Name, c.Ref)
			}
			if c.When != "" && def.Guards[strings.TrimPrefix(c.When, "!")] == nil {
				bad("intent %s: chain: unknown guard %q", in.Name, c.When)
			}
		}
	}
	for expr := range def.Refusals {
		if def.Guards[strings.TrimPrefix(expr, "!")] == nil {
			bad("refusal for unknown guard %q", expr)
		}
	}
	if c := def.Create; c == nil || c.Input == nil || c.Apply == nil {
		bad("no Create intent with Input and Apply")
	}
	seenRule := map[string]bool{}
	for _, r := range def.Rules {
		if seenRule[r.Name] {
			bad("deadline rule %s declared twice", r.Name)
		}
		seenRule[r.Name] = true
		if r.LegalBasis == "" {
			bad("deadline rule %s has no legal basis", r.Name)
		}
		if def.Selectors[r.Party] == nil {
			bad("deadline rule %s: unknown party selector %q", r.Name, r.Party)
		}
		if (r.Days > 0) == (r.Until != "") {
			bad("deadline rule %s needs either Days or Until", r.Name)
		}
		if r.Until != "" && def.Dates[r.Until] == nil {
			bad("deadline rule %s: unknown date %q", r.Name, r.Until)
		}
		if r.OnExpiry != "" {
			if in := findIntent(def, r.OnExpiry); in == nil || !in.System {
				bad("deadline rule %s: on expiry %q is not a system intent", r.Name, r.OnExpiry)
			}
		}
	}
	reach := map[string]bool{def.Initial: true}
	queue := []string{def.Initial}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for _, t := range edges[s] {
			if !reach[t] {
				reach[t] = true
				queue = append(queue, t)
			}
		}
	}
	for _, s := range def.States {
		if !reach[s] {
			bad("state %s is unreachable from %s", s, def.Initial)
		}
	}
	if len(problems) > 0 {
		sort.Strings(problems)
		return fmt.Errorf("workflow %s is invalid:\n  %s", def.Kind, strings.Join(problems, "\n  "))
	}
	return nil
}

func findIntent(def *Definition, name string) *Intent {
	for i := range def.Intents {
		if def.Intents[i].Name == name {
			return &def.Intents[i]
		}
	}
	return nil
}

// OrgKind is the kind of organisation id ("company", "authority"), when
// the directory knows it.
func (ev *Eval) OrgKind(id string) (string, bool) {
	o, ok := ev.Dir(id)
	return o.Kind, ok
}

// Country is organisation id's country ("" when unknown).
func (ev *Eval) Country(id string) string {
	o, _ := ev.Dir(id)
	return o.Country
}

// Place is where organisation id is, for its working days and local date.
func (ev *Eval) Place(id string) calendar.Place {
	o, _ := ev.Dir(id)
	return calendar.Place{Country: o.Country, Region: o.Region}
}

// Today is the date (YYYY-MM-DD) at organisation id's place now.
func (ev *Eval) Today(id string) string {
	return ev.Now.In(calendar.Location(ev.Country(id))).Format(time.DateOnly)
}
