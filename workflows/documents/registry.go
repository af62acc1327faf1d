// Package documents is the one runner of every document kind: a registry
// of kinds (each a declared machine plus pure rules) and the transactions
// that create, read and fire them, apply their deadline effects and sweep
// their deadlines. A new kind registers here; nothing in the runner names
// a kind.
package documents

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Kind is a document kind as the runner needs it.
type Kind struct {
	Def *engine.Definition
	// IDPrefix starts every id of the kind ("ntf_").
	IDPrefix string
	// NumberPrefix names the sequence a new document's human number is
	// drawn from, by the creating organisation's country and the time:
	// the number is "<prefix>-000001", "<prefix>-000002", ...
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
	// its struct type. Every intent's Block is a field of it.
	Document     func(v *View) any
	DocumentType reflect.Type
	// Codes are the business error codes the kind's rules report.
	Codes []string

	machine *engine.Machine
}

// Machine is the kind's built machine.
func (k *Kind) Machine() *engine.Machine { return k.machine }

// Name is the kind's name ("NOTIFICATION").
func (k *Kind) Name() string { return k.Def.Kind }

func (k *Kind) decode(raw string) (any, error) {
	data := k.NewData()
	if err := json.Unmarshal([]byte(raw), data); err != nil {
		return nil, err
	}
	return data, nil
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
		if k.IDPrefix == "" || k.NumberPrefix == nil || k.NewData == nil || k.Parties == nil || k.Document == nil || k.DocumentType == nil || k.ContainerKey == "" {
			problems = append(problems, fmt.Sprintf("kind %s: IDPrefix, NumberPrefix, NewData, Parties, Document, DocumentType and ContainerKey are required", k.Def.Kind))
			continue
		}
		intents := []*engine.Intent{k.Def.Create}
		for i := range k.Def.Intents {
			intents = append(intents, &k.Def.Intents[i])
		}
		for _, in := range intents {
			if in.Block == "" || in.Input == nil {
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
		r.kinds = append(r.kinds, k)
		r.byName[k.Def.Kind] = k
	}
	for _, k := range r.kinds {
		for _, in := range k.Def.Intents {
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

// blockField finds the field of struct t whose JSON name is block.
func blockField(t reflect.Type, block string) (reflect.StructField, bool) {
	if t == nil || t.Kind() != reflect.Struct {
		return reflect.StructField{}, false
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if name, _, _ := strings.Cut(f.Tag.Get("json"), ","); name == block {
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
