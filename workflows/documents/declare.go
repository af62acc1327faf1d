package documents

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/models"
	"github.com/wasteflow/wasteflow/rules"
	"github.com/wasteflow/wasteflow/workflows/engine"
)

// KindOf declares a document kind with its types: D is the aggregate the
// runner stores (as JSON) and the machine's functions see, R the content
// of the retrieval document every operation answers with. Kind() makes the
// runtime Kind the registry checks and the runner runs; the kind's own
// functions never see an untyped value.
//
// The retrieval document is R followed by the input blocks of the intents
// (what SetByIntent executes): its type is made at run time (see
// documentType) with a field per block that is not a content field of R
// already, pre-filled by the intents' Prefill.
type KindOf[D, R any] struct {
	Declaration *engine.Declaration[D]
	// IDPrefix, NumberPrefix, NumberFormat, ContainerKey, Parent,
	// NotByIntent and Face mean what Kind's fields mean.
	IDPrefix     string
	NumberPrefix func(country string, at time.Time) string
	NumberFormat string
	ContainerKey string
	Parent       *Parent
	NotByIntent  bool
	Face         *Face
	// Parties reads the parties and their roles from the aggregate.
	Parties func(d *D) []engine.Party
	// Document builds the content of the retrieval document of a view of
	// d; the input blocks follow it.
	Document func(v *View, d *D) *R
	// Print, optional, lays out d as the kind's printed form (the
	// official annex's blocks).
	Print func(p *PrintRequest, d *D) Printout
	// Register, optional, is the kind's part of a document's register row.
	Register func(p *RegisterRequest, d *D) RegisterRow
	// Archive, optional, are the lists of D whose oldest closed items are
	// kept apart from the aggregate an act rewrites (exchanges.go).
	Archive []ArchiveList[D]
	// BlockOrder, optional, orders the input blocks when their order in
	// the document (the JSON field order) is not the intents' declaration
	// order: it lists every input block the document is made with.
	BlockOrder []string
}

// Kind is the runtime form of k. Its DocumentType is made here (see
// documentType), named after R for the interface (DocumentName,
// DocumentPackage).
func (k KindOf[D, R]) Kind() *Kind {
	t, blocks := k.documentType()
	r := reflect.TypeFor[R]()
	var print func(p *PrintRequest, data any) Printout
	if k.Print != nil {
		print = func(p *PrintRequest, data any) Printout { return k.Print(p, aggregate[D](data)) }
	}
	var register func(p *RegisterRequest, data any) RegisterRow
	if k.Register != nil {
		register = func(p *RegisterRequest, data any) RegisterRow { return k.Register(p, aggregate[D](data)) }
	}
	def := k.Declaration.Build()
	var archive func(data any, before map[string]int, hot bool) []models.ArchiveCut
	archived := map[string][]int{}
	if len(k.Archive) > 0 {
		lists := k.Archive
		for _, l := range lists {
			f, ok := blockField(reflect.TypeFor[D](), l.name)
			if !ok || f.Type.Kind() != reflect.Slice {
				panic(fmt.Sprintf("documents: kind %s: Archive names %q, not a list of %v", k.Declaration.Kind, l.name, reflect.TypeFor[D]()))
			}
			archived[l.name] = f.Index
		}
		if k.Parent != nil {
			// relatives read a child's summary, or its data without the archive
			panic(fmt.Sprintf("documents: kind %s: a child kind keeps no archive", k.Declaration.Kind))
		}
		archive = func(data any, before map[string]int, hot bool) []models.ArchiveCut {
			d := aggregate[D](data)
			cuts := make([]models.ArchiveCut, len(lists))
			for i, l := range lists {
				ahead := 0
				if hot {
					ahead = before[l.name]
				}
				cuts[i] = models.ArchiveCut{List: l.name, N: l.cut(d, before[l.name], ahead)}
			}
			return cuts
		}
	}
	return &Kind{
		archive:      archive,
		archived:     archived,
		Print:        print,
		Register:     register,
		Def:          def,
		IDPrefix:     k.IDPrefix,
		NumberPrefix: k.NumberPrefix,
		NumberFormat: k.NumberFormat,
		ContainerKey: k.ContainerKey,
		Codes:        declaredCodes(def),
		Parent:       k.Parent,
		NotByIntent:  k.NotByIntent,
		Face:         k.Face,
		NewData:      func() any { return new(D) },
		Parties:      func(data any) []engine.Party { return k.Parties(aggregate[D](data)) },
		Document: func(v *View) any {
			d := aggregate[D](v.Data)
			doc := reflect.New(t).Elem()
			doc.Field(0).Set(reflect.ValueOf(k.Document(v, d)).Elem())
			for _, b := range blocks {
				for _, prefill := range b.prefill {
					prefill(d, doc.Field(b.field).Addr().Interface())
				}
			}
			return doc.Addr().Interface()
		},
		DocumentType:    t,
		DocumentName:    r.Name(),
		DocumentPackage: packageName(r),
	}
}

// madeBlock is an input block field of a made retrieval document.
type madeBlock[D any] struct {
	field   int // its index in the made struct
	prefill []func(d *D, block any)
}

// documentType makes the retrieval document's struct type: R inline (an
// embedded field tagged `json:",inline"`), then a field per input block
// that is not a content field of R, in the intents' declaration order (or
// BlockOrder's), tagged `json:"<block>" doc:"input block of <INTENT>"`
// (with " (SetByIntent)" for an intent only SetByIntent executes). Intents
// sharing a block share its field. A Prefill of a block R holds, or a
// BlockOrder that does not list the made blocks, is a declaration mistake:
// it panics at start-up.
func (k KindOf[D, R]) documentType() (reflect.Type, []madeBlock[D]) {
	r := reflect.TypeFor[R]()
	if c, _ := utf8.DecodeRuneInString(r.Name()); r.Kind() != reflect.Struct || !unicode.IsUpper(c) {
		// embedded, its fields stand in the made document: an unexported
		// one's would not
		panic(fmt.Sprintf("documents: the retrieval document of kind %s must be an exported named struct, not %v", k.Declaration.Kind, r))
	}
	var steps []engine.Step[D]
	if k.Declaration.Create != nil {
		steps = append(steps, k.Declaration.Create)
	}
	steps = append(steps, k.Declaration.Intents...)
	type block struct {
		name    string
		typ     reflect.Type
		intents []string
		first   string // the first intent taking it: its label is the block's
		prefill []func(d *D, block any)
	}
	var made []*block
	byName := map[string]*block{}
	for _, s := range steps {
		in := s.InputBlock()
		if in.Type == nil || in.Name == "" {
			if in.Prefill != nil {
				panic(fmt.Sprintf("documents: kind %s: intent %s takes no block to pre-fill", k.Declaration.Kind, in.Intent))
			}
			continue
		}
		if _, ok := blockField(r, in.Name); ok {
			if in.Prefill != nil {
				panic(fmt.Sprintf("documents: kind %s: intent %s pre-fills %q, a content field of %v", k.Declaration.Kind, in.Intent, in.Name, r))
			}
			continue // content; the registry checks its type
		}
		b := byName[in.Name]
		if b == nil {
			b = &block{name: in.Name, typ: in.Type, first: in.Intent}
			byName[in.Name] = b
			made = append(made, b)
		}
		intent := in.Intent
		if strings.HasSuffix(in.Operation, "/SetByIntent") {
			intent += " (SetByIntent)"
		}
		b.intents = append(b.intents, intent)
		if in.Prefill != nil {
			b.prefill = append(b.prefill, in.Prefill)
		}
	}
	if k.BlockOrder != nil {
		names := make([]string, len(made))
		for i, b := range made {
			names[i] = b.name
		}
		sorted, order := slices.Sorted(slices.Values(names)), slices.Sorted(slices.Values(k.BlockOrder))
		if !slices.Equal(sorted, order) {
			panic(fmt.Sprintf("documents: kind %s: BlockOrder %v does not list the input blocks %v", k.Declaration.Kind, k.BlockOrder, names))
		}
		made = made[:0]
		for _, name := range k.BlockOrder {
			made = append(made, byName[name])
		}
	}
	fields := []reflect.StructField{{Name: r.Name(), Type: r, Anonymous: true, Tag: `json:",inline"`}}
	out := make([]madeBlock[D], len(made))
	for i, b := range made {
		c, n := utf8.DecodeRuneInString(b.name)
		// The type (a block's field of the same type) is checked by
		// the registry: the first intent's type makes the field.
		tag := fmt.Sprintf(`json:%q doc:%q`, b.name, "input block of "+strings.Join(b.intents, " and "))
		if l := k.Declaration.Labels.Intents[b.first]; !l.Empty() { // the block is what its intent asks for
			tag += fmt.Sprintf(` label:%q`, l.EN+"|"+l.DE)
		}
		fields = append(fields, reflect.StructField{Name: string(unicode.ToUpper(c)) + b.name[n:], Type: b.typ, Tag: reflect.StructTag(tag)})
		out[i] = madeBlock[D]{field: i + 1, prefill: b.prefill}
	}
	return reflect.StructOf(fields), out
}

// packageName is the name of t's package as its package clause says
// ("notifications"), which reflect shows as the qualifier of t's name.
func packageName(t reflect.Type) string {
	if q, ok := strings.CutSuffix(t.String(), "."+t.Name()); ok && q != "" {
		return q
	}
	p := t.PkgPath()
	return p[strings.LastIndex(p, "/")+1:]
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
// parent kind: ref is the create input's field that holds the parent's id,
// number makes the child's human number from the parent's and the child's
// data.
func ParentOf[D, C any](kind, intent string, ref func(in *C) *string, number func(parentNumber string, d *D) string) *Parent {
	return &Parent{
		Kind:   kind,
		Intent: intent,
		Ref: func(input any) string {
			if in, ok := input.(*C); ok {
				return *ref(in)
			}
			return ""
		},
		SetRef: func(input any, parent string) {
			if in, ok := input.(*C); ok {
				*ref(in) = parent
			}
		},
		Number: func(parentNumber string, data any) string { return number(parentNumber, aggregate[D](data)) },
	}
}

// declaredCodes are the business error codes the intents of def declare,
// each once, in the catalogue's order (rules.BusinessErrors).
func declaredCodes(def *engine.Definition) []string {
	var codes []string
	for _, in := range append([]engine.Intent{*def.Create}, def.Intents...) {
		for _, c := range in.Errors {
			if !slices.Contains(codes, c) {
				codes = append(codes, c)
			}
		}
	}
	rank := func(c string) int {
		if i := slices.IndexFunc(rules.BusinessErrors, func(b rules.BusinessErrorCode) bool { return b.Code == c }); i >= 0 {
			return i
		}
		return len(rules.BusinessErrors)
	}
	slices.SortStableFunc(codes, func(a, b string) int { return rank(a) - rank(b) })
	return codes
}
