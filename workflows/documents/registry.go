// Package documents is the one runner of every document kind: a registry
// of kinds (each a declared machine plus pure rules) and the transactions
// that create, read and fire them, apply their deadline effects and sweep
// their deadlines. A new kind registers here; nothing in the runner names
// a kind.
package documents

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Kind is a document kind as the runner needs it.
type Kind struct {
	Def *engine.Definition
	// archive, for a kind that keeps items apart (KindOf.Archive), is how
	// many of each list's first items an act leaves kept apart, before of
	// them kept apart when it began; hot: data's lists lack those.
	archive func(data any, before map[string]int, hot bool) []models.ArchiveCut
	// archived are the field indexes of those lists in the aggregate, by
	// JSON name.
	archived map[string][]int
	// decodeCheck, set by Registry.CheckDecoding, checks each decoding.
	decodeCheck func(kind string, raw []byte, data any) error
	// onUndeclared, set by Registry.OnUndeclared, is told of a business
	// error code an intent reported without declaring it; nil: a warning
	// in the log, once per intent and code (noted).
	onUndeclared func(kind, intent, code string)
	noted        sync.Map
	// IDPrefix starts every id of the kind ("ntf_").
	IDPrefix string
	// NumberPrefix names the sequence a new document's human number is
	// drawn from, by the creating organisation's country (XX when the
	// directory has none) and the time: the number is "<prefix>-000001",
	// "<prefix>-000002", ...
	NumberPrefix func(country string, at time.Time) string
	// NumberFormat describes the human number for the API description.
	NumberFormat string
	// ContainerKey is the kind's field in the generic Document container
	// of GetDocument ("notification").
	ContainerKey string
	// NewData makes an empty aggregate (a pointer, stored as JSON).
	NewData func() any
	// Parties reads the parties and their roles from the aggregate.
	Parties func(data any) []engine.Party
	// Document builds the retrieval document of a view; DocumentType is
	// its struct type. Every intent's Block is a field of it (or of a
	// struct inlined in it). DocumentName and DocumentPackage name
	// DocumentType for the interface as if declared `type <DocumentName>
	// struct{...}` in package DocumentPackage (KindOf's made type: R's
	// name and package); "" when DocumentType is a named type itself.
	Document        func(v *View) any
	DocumentType    reflect.Type
	DocumentName    string
	DocumentPackage string
	// Codes are the business error codes the kind's rules report.
	Codes []string
	// Parent makes the kind a child of another kind (nil: a document of
	// its own).
	Parent *Parent
	// NotByIntent: SetByIntent refuses the kind (the service interface
	// excludes movements); its own operations serve it.
	NotByIntent bool
	// Print lays out a document of the kind as its printed form (nil: the
	// kind does not print).
	Print func(p *PrintRequest, data any) Printout
	// Register is the kind's part of a document's register row (nil: the
	// kind is not in registers).
	Register func(p *RegisterRequest, data any) RegisterRow

	machine *engine.Machine
	// tally is what a parent kind keeps of its children (a child kind's
	// Parent.Tally; nil: none).
	tally *Tally

	// HTTP face
	// Face declares the REST operations of the kind (nil: none).
	Face *Face
}

// Parent ties a child kind to its parent kind. A child is created under a
// parent document the caller may see and whose machine permits Intent (an
// intent with Creates) to the caller; the create and every intent on a
// child lock the parent's row first, so rules over all children hold under
// concurrency. The parent's retrieval document sees its children.
type Parent struct {
	Kind   string
	Intent string
	// Ref reads the parent's id from the create input.
	Ref func(input any) string
	// SetRef, optional, writes the parent's id into a create input (a
	// client that creates children by other means than a create request,
	// such as the demo data).
	SetRef func(input any, parent string)
	// Number makes the child's human number from the parent's and the
	// child's data (the child's sequence under its parent).
	Number func(parentNumber string, data any) string
	// Summary, optional, is what the parent's and the siblings' rules read
	// of a child (see SummaryOf); without one they read its aggregate.
	Summary *Summary
	// Tally, optional (with a Summary), is what the parent keeps of its
	// children's summaries (see TallyOf): its rules and its children's
	// count the children by it, and the runner does not read them.
	Tally *Tally
}

// Tally is a child kind's fold of its summaries into a total T that its
// parent keeps (documents.tally, JSON): each act of a child changes the
// parent's T by the difference it made (its summary before out, after
// in), in the transaction that holds the parent's lock, so the cost of a
// child's act does not grow with its siblings. A parent whose row keeps
// no tally yet (written before tallies) is counted afresh from its
// children once, by its next act. The replay counts every tally afresh
// and checks it against what each act read.
type Tally struct {
	new func() any
	add func(t, summary any, sign int)
}

// TallyOf declares the tally T of a child kind with summary S: add adds
// s to t (sign 1) or takes it out (sign -1). Folding the children one by
// one and keeping t by differences must give the same T (as JSON).
func TallyOf[T, S any](add func(t *T, s *S, sign int)) *Tally {
	return &Tally{
		new: func() any { return new(T) },
		add: func(t, s any, sign int) {
			if s, ok := s.(*S); ok {
				add(t.(*T), s, sign)
			}
		},
	}
}

// Tallied gives p the tally t.
func (p *Parent) Tallied(t *Tally) *Parent {
	p.Tally = t
	return p
}

// decode reads a stored tally ("": none yet).
func (t *Tally) decode(raw string) (any, error) {
	v := t.new()
	if err := jsonv2.Unmarshal([]byte(raw), v, decodeOptions); err != nil {
		return nil, err
	}
	return v, nil
}

// count folds children (as relatives read them: their summaries) afresh.
func (t *Tally) count(children []*engine.Related) any {
	v := t.new()
	for _, c := range children {
		t.add(v, c.Data, 1)
	}
	return v
}

// Summary is a child kind's summary: what its parent and its siblings
// read of a child instead of its aggregate. The runner stores it beside
// the aggregate with every change, and reads only summaries when it reads
// a document's family, so a parent with many children costs little more
// than one with few.
type Summary struct {
	of  func(data any) any
	new func() any
}

// SummaryOf declares the summary S of a child kind with aggregate D: the
// rules of its parent and siblings see a *S where they would see the
// child's *D (engine.Related.Data).
func SummaryOf[D, S any](of func(d *D) S) *Summary {
	return &Summary{
		of:  func(data any) any { s := of(aggregate[D](data)); return &s },
		new: func() any { return new(S) },
	}
}

// Summarised gives p the summary s.
func (p *Parent) Summarised(s *Summary) *Parent {
	p.Summary = s
	return p
}

// summarised reports whether the kind keeps a summary.
func (k *Kind) summarised() bool { return k.Parent != nil && k.Parent.Summary != nil }

// family is what relatives read of a document of the kind with data: its
// summary, or data when the kind keeps none.
func (k *Kind) family(data any) any {
	if !k.summarised() {
		return data
	}
	return k.Parent.Summary.of(data)
}

// summary is the JSON of data's summary ("" when the kind keeps none).
func (k *Kind) summary(data any) (string, error) {
	if !k.summarised() {
		return "", nil
	}
	raw, err := json.Marshal(k.Parent.Summary.of(data))
	return string(raw), err
}

// familyOf reads a stored document as its relatives see it: its summary
// when it has one, else its aggregate (as family would make it).
func (k *Kind) familyOf(d *models.Document) (any, error) {
	if k.summarised() && d.Summary != "" {
		s := k.Parent.Summary.new()
		if err := jsonv2.Unmarshal([]byte(d.Summary), s, decodeOptions); err != nil {
			return nil, err
		}
		return s, nil
	}
	data, err := k.decode(d.Data)
	if err != nil {
		return nil, err
	}
	return k.family(data), nil
}

// Machine is the kind's built machine.
func (k *Kind) Machine() *engine.Machine { return k.machine }

// Name is the kind's name ("NOTIFICATION").
func (k *Kind) Name() string { return k.Def.Kind }

// decodeRow is the aggregate of doc as read: Data, or, read apart
// (models.DocumentQuery.Apart), Data and Archive each decoded once, the
// archive's items put in front of each list (the same values as decoding
// the JSON joined, without joining it: BenchmarkDecodeAggregate).
func (k *Kind) decodeRow(doc *models.Document) (any, error) {
	if !doc.Apart {
		return k.decode(doc.Data)
	}
	_, declared, err := k.keptApart(doc)
	if err != nil {
		return nil, err
	}
	if !declared {
		return k.decodeJoined(doc)
	}
	data, err := k.decode(doc.Data)
	if err != nil {
		return nil, err
	}
	kept, err := k.decode(doc.Archive)
	if err != nil {
		return nil, fmt.Errorf("its archive: %w", err)
	}
	d, a := reflect.ValueOf(data).Elem(), reflect.ValueOf(kept).Elem()
	for _, idx := range k.archived {
		if items := a.FieldByIndex(idx); items.Len() > 0 {
			d.FieldByIndex(idx).Set(reflect.AppendSlice(items, d.FieldByIndex(idx)))
		}
	}
	return data, nil
}

// decodeAct is the aggregate an act works on, read from doc's row taken
// apart (DocumentQuery.Apart): its data alone, and kept, the archive's
// counts by list (engine.Eval.KeptApart), when the kind declares every
// list the archive holds; otherwise (or with nothing kept apart) the
// aggregate whole and nil.
func (k *Kind) decodeAct(doc *models.Document) (data any, kept map[string]int, err error) {
	if !doc.Apart {
		data, err := k.decode(doc.Data)
		return data, nil, err
	}
	kept, declared, err := k.keptApart(doc)
	switch {
	case err != nil:
		return nil, nil, err
	case !declared:
		data, err := k.decodeJoined(doc)
		return data, nil, err
	}
	if data, err = k.decode(doc.Data); err != nil {
		return nil, nil, err
	}
	return data, kept, nil
}

// keptApart is what doc's row keeps apart, by list (Archived), and
// whether the kind declares each of those lists.
func (k *Kind) keptApart(doc *models.Document) (counts map[string]int, declared bool, err error) {
	if counts, err = models.ArchivedCounts(doc.Archived); err != nil {
		return nil, false, err
	}
	for list := range counts {
		if _, ok := k.archived[list]; !ok {
			return counts, false, nil
		}
	}
	return counts, true, nil
}

// decodeJoined decodes doc's data with its archive joined in the JSON:
// a row kept apart under a list the kind no longer declares.
func (k *Kind) decodeJoined(doc *models.Document) (any, error) {
	whole, err := models.JoinArchive(doc.Data, doc.Archive)
	if err != nil {
		return nil, err
	}
	return k.decode(whole)
}

func (k *Kind) decode(raw string) (any, error) {
	data := k.NewData()
	if err := jsonv2.Unmarshal([]byte(raw), data, decodeOptions); err != nil {
		// What encoding/json wrote, it reads: v2 is stricter (duplicate
		// names, invalid UTF-8), so an aggregate it refuses is read by v1.
		data = k.NewData()
		if err := json.Unmarshal([]byte(raw), data); err != nil {
			return nil, err
		}
		return data, nil
	}
	if k.decodeCheck != nil {
		name := ""
		if k.Def != nil {
			name = k.Def.Kind
		}
		if err := k.decodeCheck(name, []byte(raw), data); err != nil {
			return nil, err
		}
	}
	return data, nil
}

// decodeOptions: names match as encoding/json matches them (exact first,
// then ignoring case).
var decodeOptions = jsonv2.MatchCaseInsensitiveNames(true)

// OnUndeclared tells fn of every business error code an intent of the
// kinds reports without declaring it in its Errors (the reference would
// not list the operation under it): the tests fail on one.
func (r *Registry) OnUndeclared(fn func(kind, intent, code string)) {
	for _, k := range r.kinds {
		k.onUndeclared = fn
	}
}

// undeclared tells of the codes of berrs intent in does not declare.
func (k *Kind) undeclared(in *engine.Intent, berrs []engine.BusinessError) {
	for _, code := range engine.UndeclaredCodes(in, berrs) {
		if k.onUndeclared != nil {
			k.onUndeclared(k.Def.Kind, in.Name, code)
			continue
		}
		if _, seen := k.noted.LoadOrStore(in.Name+" "+code, struct{}{}); !seen {
			slog.Warn("business error code not declared by its intent", "kind", k.Def.Kind, "intent", in.Name, "code", code)
		}
	}
}

// CheckDecoding shows every stored aggregate the kinds decode (by
// go-json-experiment/json, the encoding/json/v2 to be, twice as fast as
// encoding/json on our aggregates) to check: an oracle a test injects
// (encoding/json, which wrote it, must read the same); its error fails
// the operation.
func (r *Registry) CheckDecoding(check func(kind string, raw []byte, data any) error) {
	for _, k := range r.kinds {
		k.decodeCheck = check
	}
}

// Visible lists the parties that see a document with data in state: all
// of them, or in a private state (a draft) only those in the author's
// roles (the create intent's). Visibility is the document's party rows:
// reads, lists, events and reports all follow them.
func (k *Kind) Visible(state string, data any) []engine.Party {
	parties := k.Parties(data)
	if !slices.Contains(k.Def.Private, state) {
		return parties
	}
	out := parties[:0:0]
	for _, p := range parties {
		if slices.Contains(k.Def.Create.Roles, p.Role) {
			out = append(out, p)
		}
	}
	return out
}

// RolesOf lists org's roles on a document with data.
func (k *Kind) RolesOf(data any, org string) []string {
	var out []string
	for _, p := range k.Parties(data) {
		if p.Org == org && !slices.Contains(out, p.Role) {
			out = append(out, p.Role)
		}
	}
	return out
}

// Registry holds the kinds the server runs.
type Registry struct {
	kinds  []*Kind
	byName map[string]*Kind
}

// NewRegistry validates and builds every kind: its machine, its deadline
// rules, selectors and dates (engine.Validate), each intent's block as a
// field of the retrieval document with the intent's input type, and each
// chained intent as a system intent of a registered kind. Any problem stops
// the server with a message.
func NewRegistry(kinds ...*Kind) (*Registry, error) {
	r := &Registry{byName: map[string]*Kind{}}
	var problems []string
	for _, k := range kinds {
		m, err := engine.Build(k.Def)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		k.machine = m
		if r.byName[k.Def.Kind] != nil {
			problems = append(problems, fmt.Sprintf("kind %s registered twice", k.Def.Kind))
		}
		if k.Parent != nil && (k.Parent.Ref == nil || k.Parent.Number == nil) {
			problems = append(problems, fmt.Sprintf("kind %s: a child kind needs Parent.Ref and Parent.Number", k.Def.Kind))
			continue
		}
		if k.Parent == nil && k.NumberPrefix == nil {
			problems = append(problems, fmt.Sprintf("kind %s: NumberPrefix is required", k.Def.Kind))
			continue
		}
		if k.IDPrefix == "" || k.NewData == nil || k.Parties == nil || k.Document == nil || k.DocumentType == nil || k.ContainerKey == "" {
			problems = append(problems, fmt.Sprintf("kind %s: IDPrefix, NewData, Parties, Document, DocumentType and ContainerKey are required", k.Def.Kind))
			continue
		}
		intents := []*engine.Intent{k.Def.Create}
		for i := range k.Def.Intents {
			intents = append(intents, &k.Def.Intents[i])
		}
		for _, in := range intents {
			if in.Block == "" || in.Input == nil || in.Creates != "" {
				continue
			}
			f, ok := blockField(k.DocumentType, in.Block)
			want := reflect.TypeOf(in.Input())
			switch {
			case !ok:
				problems = append(problems, fmt.Sprintf("kind %s: intent %s: the retrieval document %s has no block %q", k.Def.Kind, in.Name, k.DocumentType, in.Block))
			case want.Kind() != reflect.Pointer || f.Type != want.Elem():
				problems = append(problems, fmt.Sprintf("kind %s: intent %s: block %q is a %s, the intent takes a %s", k.Def.Kind, in.Name, in.Block, f.Type, want))
			}
		}
		problems = append(problems, k.checkFace()...)
		r.kinds = append(r.kinds, k)
		r.byName[k.Def.Kind] = k
	}
	for _, k := range r.kinds {
		if p := k.Parent; p != nil {
			pk := r.byName[p.Kind]
			in := &engine.Intent{}
			if pk != nil {
				if found, ok := pk.machine.Intent(p.Intent); ok {
					in = found
				}
			}
			switch {
			case pk == nil:
				problems = append(problems, fmt.Sprintf("kind %s: parent kind %s is not registered", k.Def.Kind, p.Kind))
			case in.Creates != k.Def.Kind:
				problems = append(problems, fmt.Sprintf("kind %s: parent %s has no intent %s that creates a %s", k.Def.Kind, p.Kind, p.Intent, k.Def.Kind))
			case in.Operation != k.Def.Create.Operation:
				problems = append(problems, fmt.Sprintf("kind %s: %s %s names operation %s, the kind is created by %s", k.Def.Kind, p.Kind, p.Intent, in.Operation, k.Def.Create.Operation))
			}
			if p.Tally != nil && pk != nil {
				switch {
				case p.Summary == nil:
					problems = append(problems, fmt.Sprintf("kind %s: a tally folds summaries: Parent.Summary is required", k.Def.Kind))
				case pk.tally != nil:
					problems = append(problems, fmt.Sprintf("kind %s: parent kind %s keeps the tally of another child kind", k.Def.Kind, p.Kind))
				default:
					pk.tally = p.Tally
				}
			}
			for _, rule := range k.Def.Rules {
				if rule.OnExpiry != "" { // the sweep locks the child alone; an automatic intent would lock the parent after it
					problems = append(problems, fmt.Sprintf("kind %s: rule %s: a child kind's rule cannot fire an intent on expiry", k.Def.Kind, rule.Name))
				}
			}
		}
		for _, in := range k.Def.Intents {
			if in.Creates != "" {
				if ck := r.byName[in.Creates]; ck == nil || ck.Parent == nil || ck.Parent.Kind != k.Def.Kind || ck.Parent.Intent != in.Name {
					problems = append(problems, fmt.Sprintf("kind %s: intent %s creates %s, which is no child kind created by it", k.Def.Kind, in.Name, in.Creates))
				}
			}
			for _, c := range in.Then {
				if !r.hasSystemIntent(c.Intent) {
					problems = append(problems, fmt.Sprintf("kind %s: intent %s chains to %s, which no kind declares as a system intent", k.Def.Kind, in.Name, c.Intent))
				}
			}
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("document kinds are invalid:\n  %s", strings.Join(problems, "\n  "))
	}
	return r, nil
}

func (r *Registry) hasSystemIntent(name string) bool {
	for _, k := range r.kinds {
		if in, ok := k.machine.Intent(name); ok && in.System {
			return true
		}
	}
	return false
}

// Kind returns the kind called name.
func (r *Registry) Kind(name string) (*Kind, bool) {
	k, ok := r.byName[name]
	return k, ok
}

// mayBeChild reports whether a document of one of kinds (any when empty)
// may be a child kind's.
func (r *Registry) mayBeChild(kinds []string) bool {
	for _, k := range r.kinds {
		if k.Parent != nil && (len(kinds) == 0 || slices.Contains(kinds, k.Def.Kind)) {
			return true
		}
	}
	return false
}

// Kinds lists the kinds in registration order.
func (r *Registry) Kinds() []*Kind { return r.kinds }

// ByContainerKey finds the kind whose GetDocument container field is key.
func (r *Registry) ByContainerKey(key string) (*Kind, bool) {
	for _, k := range r.kinds {
		if k.ContainerKey == key {
			return k, true
		}
	}
	return nil, false
}

// blockField finds the field of struct t whose JSON name is block, also
// among the fields of a struct field tagged `json:",inline"` (its Index
// is then the path to it).
func blockField(t reflect.Type, block string) (reflect.StructField, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" && slices.Contains(strings.Split(opts, ","), "inline") {
			if in, ok := blockField(f.Type, block); ok {
				in.Index = append([]int{i}, in.Index...)
				return in, true
			}
			continue
		}
		if name == block {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// Block returns a pointer to the block of retrieval document doc (a
// pointer to the kind's DocumentType) that intent takes.
func (k *Kind) Block(doc any, intent *engine.Intent) (any, bool) {
	v := reflect.ValueOf(doc)
	if v.Kind() != reflect.Pointer || v.Elem().Type() != k.DocumentType {
		return nil, false
	}
	f, ok := blockField(k.DocumentType, intent.Block)
	if !ok {
		return nil, false
	}
	return v.Elem().FieldByIndex(f.Index).Addr().Interface(), true
}
