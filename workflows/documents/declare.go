package documents

import (
	"reflect"
	"time"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// KindOf declares a document kind with its types: D is the aggregate the
// runner stores (as JSON) and the machine's functions see, R the retrieval
// document every operation answers with, whose fields include each
// intent's block. Kind() makes the runtime Kind the registry checks and the
// runner runs; the kind's own functions never see an untyped value.
type KindOf[D, R any] struct {
	Declaration *engine.Declaration[D]
	// IDPrefix, NumberPrefix, NumberFormat, ContainerKey, Codes, Parent,
	// NotByIntent and Face mean what Kind's fields mean.
	IDPrefix     string
	NumberPrefix func(country string, at time.Time) string
	NumberFormat string
	ContainerKey string
	Codes        []string
	Parent       *Parent
	NotByIntent  bool
	Face         *Face
	// Parties reads the parties and their roles from the aggregate.
	Parties func(d *D) []engine.Party
	// Document builds the retrieval document of a view of d.
	Document func(v *View, d *D) *R
}

// Kind is the runtime form of k.
func (k KindOf[D, R]) Kind() *Kind {
	return &Kind{
		Def:          k.Declaration.Build(),
		IDPrefix:     k.IDPrefix,
		NumberPrefix: k.NumberPrefix,
		NumberFormat: k.NumberFormat,
		ContainerKey: k.ContainerKey,
		Codes:        k.Codes,
		Parent:       k.Parent,
		NotByIntent:  k.NotByIntent,
		Face:         k.Face,
		NewData:      func() any { return new(D) },
		Parties:      func(data any) []engine.Party { return k.Parties(aggregate[D](data)) },
		Document:     func(v *View) any { return k.Document(v, aggregate[D](v.Data)) },
		DocumentType: reflect.TypeFor[R](),
	}
}

// aggregate is data as the kind's *D: the runner only ever holds a kind's
// data as what its NewData made.
func aggregate[D any](data any) *D {
	d, ok := data.(*D)
	if !ok {
		panic("documents: a " + reflect.TypeOf(data).String() + " given as a " + reflect.TypeFor[*D]().String())
	}
	return d
}

// ParentOf ties a child kind with aggregate D, created with input C, to its
// parent kind: ref reads the parent's id from the create input, number
// makes the child's human number from the parent's and the child's data.
func ParentOf[D, C any](kind, intent string, ref func(in *C) string, number func(parentNumber string, d *D) string) *Parent {
	return &Parent{
		Kind:   kind,
		Intent: intent,
		Ref: func(input any) string {
			if in, ok := input.(*C); ok {
				return ref(in)
			}
			return ""
		},
		Number: func(parentNumber string, data any) string { return number(parentNumber, aggregate[D](data)) },
	}
}
