package codec

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/rules/labels"
)

// SchemaRef derives the OpenAPI 3.0.3 schema of t, in its request form, by
// the rules Marshal and Unmarshal apply, so documents and wire never
// disagree. Named struct and enum types become component schemas in comps,
// keyed by Go type name (type arguments of generic types are sanitised to
// [A-Za-z0-9._-]), and are referenced as "#/components/schemas/<Name>".
// Returned refs also carry the resolved Value, so they can validate values
// without a loader.
//
// In the request form only fields tagged `required:"true"` are required
// (proto3 has no required fields: a client may leave any other out); see
// ResponseSchemaRef for the form answers have. additionalProperties is left
// at its default. A field's `doc` struct tag becomes its description.
// Schemas describe the normal output; the few values outside them are
// NaN/±Infinity floats (strings on the wire) and enum numbers without a
// name (numbers on the wire).
//
// A value that renders null (a nil pointer, the zero time, an empty
// json.RawMessage) has a schema that admits null in a form JSON Schema
// validators read the same way as OpenAPI 3.0.3 does: nullable beside a
// type of the same schema object, or, for a pointer to a message, anyOf
// the message's $ref and a schema admitting null alone (see nullRef).
//
// It returns an error for unsupported Go types, or if a component name is
// already used by a different Go type (or a schema SchemaRef did not make).
// On error comps is left unchanged. To let types of different packages share
// a name, derive the names first with NewComponentNames and use its
// SchemaRef method instead.
func SchemaRef(t reflect.Type, comps openapi3.Schemas) (*openapi3.SchemaRef, error) {
	return schemaRef(t, comps, bareName, false)
}

// ResponseSchemaRef is SchemaRef for the response form of t: every property
// of every message is required, because the server emits every field (unset
// ones as 0, "", false, [], {} or null). Requests stay lenient, so a message
// type that both requests and responses use has two component schemas:
// the request form under its name, the response form under its name with
// the suffix "-Output" (the convention of pydantic and FastAPI). Enums are
// the same both ways and keep one component. With the package-level
// functions every message of a response form gets the suffix; a
// ComponentNames built by NewComponentNamesFor gives it only to the
// messages requests use too.
func ResponseSchemaRef(t reflect.Type, comps openapi3.Schemas) (*openapi3.SchemaRef, error) {
	return schemaRef(t, comps, bareName, true)
}

// OutputSuffix marks the response form of a message whose request form
// has the bare name.
const OutputSuffix = "-Output"

func bareName(t reflect.Type, response bool) (string, error) {
	if response {
		return componentName(t) + OutputSuffix, nil
	}
	return componentName(t), nil
}

func schemaRef(t reflect.Type, comps openapi3.Schemas, name func(reflect.Type, bool) (string, error), response bool) (*openapi3.SchemaRef, error) {
	if comps == nil {
		return nil, errors.New("codec: SchemaRef needs a non-nil comps map")
	}
	ti, err := infoOf(t)
	if err != nil {
		return nil, err
	}
	sb := schemaBuilder{comps: comps, pending: openapi3.Schemas{}, name: name, response: response}
	ref, err := sb.schema(ti)
	if err != nil {
		return nil, err
	}
	for name, s := range sb.pending {
		comps[name] = s
	}
	return ref, nil
}

// ComponentNames fixes the component schema names of every named struct and
// enum type of one OpenAPI description before any schema is built, so that
// a name does not depend on the order in which types are met.
//
// A name used by exactly one Go type stays bare ("Decision"); when two or
// more distinct types share it, every one of them is qualified with its
// package name ("notification.Decision", "annex7.Decision"). Names are
// sanitised like SchemaRef's. Generic instantiations carry the import paths
// of their type arguments in their name, so they are told apart by the
// generic type's package like any other type.
//
// A message type that requests and responses both use has two forms (see
// ResponseSchemaRef); its response form's name is the request form's with
// OutputSuffix. A message only responses use has only the response form,
// under the bare name.
//
// A ComponentNames is immutable and safe for concurrent use.
type ComponentNames struct {
	names     map[reflect.Type]string
	requests  map[reflect.Type]bool // reached from a request root
	responses map[reflect.Type]bool // reached from a response root
}

// NewComponentNames collects the named struct and enum types reachable from
// roots (the types themselves and, recursively, struct fields, pointer,
// slice and map elements, and so generic type arguments wherever a field
// uses them) and assigns their component names. The result depends only on
// the set of types, not on the order or repetition of roots; nil roots are
// skipped. The roots are request types: see NewComponentNamesFor for a
// description with responses.
//
// It returns an error for unsupported Go types, and if two distinct types
// would still share a name after qualification: equal package name and type
// name from different import paths (the error names both), or two local
// types of the same name in one package.
func NewComponentNames(roots ...reflect.Type) (*ComponentNames, error) {
	return NewComponentNamesFor(roots, nil)
}

// NewComponentNamesFor is NewComponentNames for a description whose
// requests have the types requests and whose responses have the types
// responses: the names of both forms of every message are fixed (see
// ResponseSchemaRef), those of the request form as NewComponentNames
// gives them.
func NewComponentNamesFor(requests, responses []reflect.Type) (*ComponentNames, error) {
	collect := func(roots []reflect.Type) (map[reflect.Type]bool, error) {
		named := map[reflect.Type]bool{}
		seen := map[*typeInfo]bool{}
		for _, t := range roots {
			if t == nil {
				continue
			}
			ti, err := infoOf(t)
			if err != nil {
				return nil, err
			}
			collectNamed(ti, seen, named)
		}
		return named, nil
	}
	inReq, err := collect(requests)
	if err != nil {
		return nil, err
	}
	inResp, err := collect(responses)
	if err != nil {
		return nil, err
	}
	named := map[reflect.Type]bool{}
	for t := range inReq {
		named[t] = true
	}
	for t := range inResp {
		named[t] = true
	}

	groups := map[string][]reflect.Type{} // bare component name -> types
	for t := range named {
		bare := componentName(t)
		groups[bare] = append(groups[bare], t)
	}
	bares := make([]string, 0, len(groups))
	for bare := range groups {
		bares = append(bares, bare)
	}
	sort.Strings(bares)

	n := &ComponentNames{names: make(map[reflect.Type]string, len(named)), requests: inReq, responses: inResp}
	owner := map[string]reflect.Type{} // assigned name -> type
	for _, bare := range bares {
		ts := groups[bare]
		sort.Slice(ts, func(i, j int) bool { // for deterministic errors
			if pi, pj := ts[i].PkgPath(), ts[j].PkgPath(); pi != pj {
				return pi < pj
			}
			return ts[i].String() < ts[j].String()
		})
		for _, t := range ts {
			name := bare
			if len(ts) > 1 {
				name = packageName(t) + "." + bare
			}
			if other, dup := owner[name]; dup {
				return nil, duplicateError(name, other, t)
			}
			owner[name] = t
			n.names[t] = name
		}
	}
	for t, name := range n.names { // the response forms' names must be free too
		if out, ok := n.responseName(t); ok && out != name {
			if other, dup := owner[out]; dup {
				return nil, duplicateError(out, other, t)
			}
		}
	}
	return n, nil
}

func duplicateError(name string, a, b reflect.Type) error {
	if a.PkgPath() == b.PkgPath() {
		return fmt.Errorf("codec: component schema %q: two different types %v in package %q (local types?)", name, a, a.PkgPath())
	}
	return fmt.Errorf("codec: component schema %q: types %v from %q and %v from %q have the same package name and type name",
		name, a, a.PkgPath(), b, b.PkgPath())
}

// collectNamed adds to named the types among ti and its descendants that
// become component schemas, following exactly the edges schemaBuilder does.
func collectNamed(ti *typeInfo, seen map[*typeInfo]bool, named map[reflect.Type]bool) {
	if seen[ti] {
		return
	}
	seen[ti] = true
	switch ti.kind {
	case kEnum:
		named[ti.t] = true
	case kStruct:
		if nameOf(ti.t) != "" {
			named[ti.t] = true
		}
		for i := range ti.fields {
			collectNamed(ti.fields[i].info, seen, named)
		}
	case kPtr, kSlice, kMap:
		collectNamed(ti.elem, seen, named)
	}
}

// Name returns the component name assigned to t (of its request form, for
// a message that has two), and whether t is one of the named types
// NewComponentNames collected.
func (n *ComponentNames) Name(t reflect.Type) (string, bool) {
	name, ok := n.names[t]
	return name, ok
}

// ResponseName returns the component name of t's response form, and
// whether t was collected from a response type.
func (n *ComponentNames) ResponseName(t reflect.Type) (string, bool) {
	return n.responseName(t)
}

func (n *ComponentNames) responseName(t reflect.Type) (string, bool) {
	name, ok := n.names[t]
	if !ok || !n.responses[t] {
		return "", false
	}
	if n.requests[t] && t.Kind() == reflect.Struct {
		name += OutputSuffix
	}
	return name, true
}

// SchemaRef is the package-level SchemaRef with the component names fixed
// by n. Every named struct or enum type reached from t must have been
// collected from a request type; another one is an error. Components
// already in comps are reused if the same Go type made them, and are an
// error otherwise (as for SchemaRef).
func (n *ComponentNames) SchemaRef(t reflect.Type, comps openapi3.Schemas) (*openapi3.SchemaRef, error) {
	return schemaRef(t, comps, n.lookup, false)
}

// ResponseSchemaRef is the package-level ResponseSchemaRef with the
// component names fixed by n; every named type reached from t must have
// been collected from a response type.
func (n *ComponentNames) ResponseSchemaRef(t reflect.Type, comps openapi3.Schemas) (*openapi3.SchemaRef, error) {
	return schemaRef(t, comps, n.lookup, true)
}

// lookup names the component of a message's request or response form, or
// of an enum (one form).
func (n *ComponentNames) lookup(t reflect.Type, response bool) (string, error) {
	if response {
		if name, ok := n.responseName(t); ok {
			return name, nil
		}
		return "", fmt.Errorf("codec: %v (%s) was not collected from a response type by NewComponentNamesFor", t, t.PkgPath())
	}
	if name, ok := n.names[t]; ok && (n.requests[t] || t.Kind() != reflect.Struct) {
		return name, nil
	}
	return "", fmt.Errorf("codec: %v (%s) was not collected from a request type by NewComponentNames", t, t.PkgPath())
}

// packageName is the name in t's package clause, which reflect shows as the
// qualifier of String ("notification.Decision"); the last import path
// element is the fallback.
func packageName(t reflect.Type) string {
	if pkg, ok := namedPackage(t); ok {
		return pkg
	}
	if q, ok := strings.CutSuffix(t.String(), "."+t.Name()); ok && q != "" && !strings.ContainsAny(q, "./[]*") {
		return q
	}
	p := t.PkgPath()
	return p[strings.LastIndex(p, "/")+1:]
}

// schemaOwner records which Go type, in which form, each component schema
// was generated from (*openapi3.Schema -> schemaForm), to detect two types
// or forms sharing a name across calls without leaking an extension into
// the documents.
var schemaOwner sync.Map

type schemaForm struct {
	t        reflect.Type
	response bool // the response form of a message
}

func (f schemaForm) String() string {
	if f.response {
		return f.t.String() + " (response form)"
	}
	return f.t.String()
}

type schemaBuilder struct {
	comps    openapi3.Schemas // caller's components, only written on success
	pending  openapi3.Schemas // components created by this call
	name     func(t reflect.Type, response bool) (string, error)
	response bool // build the response form of messages
}

func schemaOf(typ string) *openapi3.Schema {
	return &openapi3.Schema{Type: &openapi3.Types{typ}}
}

func (sb *schemaBuilder) schema(ti *typeInfo) (*openapi3.SchemaRef, error) {
	var s *openapi3.Schema
	switch ti.kind {
	case kBool:
		s = schemaOf(openapi3.TypeBoolean)
	case kInt:
		s = schemaOf(openapi3.TypeInteger)
		s.Format = "int32"
	case kUint: // uint32 exceeds int32, as in protoc-gen-openapiv2
		s = schemaOf(openapi3.TypeInteger)
		s.Format = "int64"
		s.Min = new(float64)
	case kInt64: // a string on output; a number is accepted on input too
		s = &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
			openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Format: "int64", Pattern: `^-?[0-9]+$`}),
			openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}, Format: "int64"}),
		}}
	case kUint64:
		s = &openapi3.Schema{AnyOf: openapi3.SchemaRefs{
			openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}, Format: "uint64", Pattern: `^[0-9]+$`}),
			openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}, Format: "int64", Min: new(float64)}),
		}}
	case kFloat32:
		s = schemaOf(openapi3.TypeNumber)
		s.Format = "float"
	case kFloat64:
		s = schemaOf(openapi3.TypeNumber)
		s.Format = "double"
	case kString:
		s = schemaOf(openapi3.TypeString)
	case kBytes:
		s = schemaOf(openapi3.TypeString)
		s.Format = "byte"
	case kTime: // the zero time renders null
		s = schemaOf(openapi3.TypeString)
		s.Format = "date-time"
		s.Nullable = true
	case kRaw, kAny: // any JSON value, including null
		s = anyValue()
	case kEnum:
		return sb.component(ti, func(s *openapi3.Schema) error {
			// The name on output; the name or the number on input.
			names := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeString}}
			for _, n := range ti.enumNames {
				names.Enum = append(names.Enum, n)
			}
			number := &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeInteger}, Format: "int32"}
			s.AnyOf = openapi3.SchemaRefs{openapi3.NewSchemaRef("", names), openapi3.NewSchemaRef("", number)}
			s.Description = "Enum value name; the numeric value is also accepted on input."
			if ti.enumLabels != nil {
				m := make(map[string]labels.Text, len(ti.enumNames))
				for i, n := range ti.enumNames {
					m[n] = ti.enumLabels[i]
				}
				s.Extensions = map[string]any{"x-enum-labels": m}
			}
			return nil
		})
	case kStruct:
		if nameOf(ti.t) == "" { // anonymous struct: inline
			s = &openapi3.Schema{}
			if err := sb.object(ti, s); err != nil {
				return nil, err
			}
			break
		}
		return sb.component(ti, func(s *openapi3.Schema) error { return sb.object(ti, s) })
	case kPtr: // a nil pointer renders null, so the schema must admit it
		elem, err := sb.schema(ti.elem)
		if err != nil {
			return nil, err
		}
		if elem.Ref != "" && ti.elem.kind == kStruct {
			s = &openapi3.Schema{AnyOf: openapi3.SchemaRefs{elem, nullRef()}}
		} else { // an enum is inlined: a name or a number, each alternative nullable
			s = nullable(elem.Value)
		}
	case kSlice: // never null: a nil slice renders []
		items, err := sb.schema(ti.elem)
		if err != nil {
			return nil, err
		}
		s = schemaOf(openapi3.TypeArray)
		s.Items = items
	case kMap: // never null: a nil map renders {}
		vals, err := sb.schema(ti.elem)
		if err != nil {
			return nil, err
		}
		s = schemaOf(openapi3.TypeObject)
		s.AdditionalProperties = openapi3.AdditionalProperties{Schema: vals}
	default:
		return nil, fmt.Errorf("codec: no schema for %v", ti.t)
	}
	return openapi3.NewSchemaRef("", s), nil
}

// nullRef is a schema that admits null and nothing else, for a nil pointer
// to a message: anyOf its $ref and this. nullable only adds null to the type
// of its own schema object (OpenAPI 3.0.3), so the obvious
// {nullable: true, allOf: [$ref]} admits no null where validators apply
// JSON Schema rules (Prism's ajv, after it turns nullable into a type
// list); and siblings of $ref are ignored. Here nullable widens type object
// to object or null, and not excludes the object; kin-openapi and ajv read
// it alike. (Not enum: [null]: Prism appends null to the enum of a
// nullable schema, ajv refuses the duplicate, and Prism then silently
// validates nothing against the whole body.)
func nullRef() *openapi3.SchemaRef {
	return openapi3.NewSchemaRef("", &openapi3.Schema{
		Type: &openapi3.Types{openapi3.TypeObject}, Nullable: true,
		Not: openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{openapi3.TypeObject}}),
	})
}

// IsNullRef tells whether s is the null alternative of a nil pointer to a
// message (see nullRef).
func IsNullRef(s *openapi3.Schema) bool {
	return s != nil && s.Nullable && s.Type.Is(openapi3.TypeObject) && s.Not != nil && s.Not.Value != nil &&
		s.Not.Value.Type.Is(openapi3.TypeObject) && len(s.Properties) == 0
}

// Unwrap returns the message $ref of the schema of a pointer to a message
// (anyOf the $ref and null), or of a field with a description (allOf the
// $ref); ref itself otherwise.
func Unwrap(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	if ref == nil || ref.Ref != "" || ref.Value == nil {
		return ref
	}
	s := ref.Value
	switch {
	case len(s.AnyOf) == 2 && s.AnyOf[0].Ref != "" && IsNullRef(s.AnyOf[1].Value):
		return s.AnyOf[0]
	case len(s.AllOf) == 1 && s.AllOf[0].Ref != "":
		return s.AllOf[0]
	}
	return ref
}

// nonNull is the schema of a pointer without its null alternative: the
// message's $ref, or the scalar's schema without nullable (in each of its
// alternatives, a 64-bit integer's string or number).
func nonNull(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
	if inner := Unwrap(ref); inner != ref {
		return inner
	}
	if ref.Ref != "" || ref.Value == nil {
		return ref
	}
	if ref.Value.Nullable {
		c := *ref.Value
		c.Nullable = false
		return openapi3.NewSchemaRef("", &c)
	}
	if ref.Value.Type == nil && len(ref.Value.AnyOf) > 0 && !slices.ContainsFunc(ref.Value.AnyOf, func(a *openapi3.SchemaRef) bool { return a.Ref != "" || a.Value == nil }) {
		c := *ref.Value
		c.AnyOf = make(openapi3.SchemaRefs, len(ref.Value.AnyOf))
		for i, alt := range ref.Value.AnyOf {
			a := *alt.Value
			a.Nullable = false
			c.AnyOf[i] = openapi3.NewSchemaRef("", &a)
		}
		return openapi3.NewSchemaRef("", &c)
	}
	return ref
}

// anyValue admits every JSON value. OpenAPI 3.0 has no type for null and
// wants a type beside nullable, so null is admitted by the object
// alternative.
func anyValue() *openapi3.Schema {
	alt := func(typ string) *openapi3.SchemaRef {
		return openapi3.NewSchemaRef("", &openapi3.Schema{Type: &openapi3.Types{typ}})
	}
	obj := alt(openapi3.TypeObject)
	obj.Value.Nullable = true
	arr := alt(openapi3.TypeArray)
	arr.Value.Items = openapi3.NewSchemaRef("", &openapi3.Schema{})
	return &openapi3.Schema{AnyOf: openapi3.SchemaRefs{obj, arr, alt(openapi3.TypeString), alt(openapi3.TypeNumber), alt(openapi3.TypeBoolean)}}
}

// nullable is a copy of s (freshly built for one use, so a shallow copy
// suffices) that also admits null: nullable beside its type, or on each
// alternative of a schema without one.
func nullable(s *openapi3.Schema) *openapi3.Schema {
	c := *s
	if c.Type != nil || len(c.AnyOf) == 0 {
		c.Nullable = true
		return &c
	}
	c.AnyOf = make(openapi3.SchemaRefs, len(s.AnyOf))
	for i, alt := range s.AnyOf {
		c.AnyOf[i] = openapi3.NewSchemaRef("", nullable(alt.Value))
	}
	return &c
}

// object fills the schema of a message. In the response form every property
// is required (every field is emitted) and the tags' input rules (a
// required string not empty, a required list not empty) do not apply: they
// are what the server checks, not what it promises.
func (sb *schemaBuilder) object(ti *typeInfo, s *openapi3.Schema) error {
	s.Type = &openapi3.Types{openapi3.TypeObject}
	s.Properties = make(openapi3.Schemas, len(ti.fields))
	order := make([]string, 0, len(ti.fields)) // x-order: the declaration's (the form's) order
	// x-input-required, on a response's object: the fields a request must
	// carry (required there), as a form built from the response (an
	// intent's block SetByIntent takes in the document) marks them; every
	// field of a response is required, for it is always present.
	input := []string{}
	for i := range ti.fields {
		f := &ti.fields[i]
		prop, err := sb.schema(f.info)
		if err != nil {
			return err
		}
		if !sb.response && f.required && f.info.kind == kPtr {
			prop = nonNull(prop) // null is absent, which required refuses
		}
		if !sb.response && f.lim.maxLength > 0 && prop.Ref != "" && (f.info.kind == kStruct || f.info.kind == kPtr && f.info.elem.kind == kStruct) {
			prop = openapi3.NewSchemaRef("", &openapi3.Schema{AllOf: openapi3.SchemaRefs{prop}}) // room for boundSchema's bound
		}
		if f.doc != "" || !f.label.Empty() || f.codeList != "" {
			if prop.Ref != "" { // siblings of $ref are ignored (OpenAPI 3.0)
				prop = openapi3.NewSchemaRef("", &openapi3.Schema{AllOf: openapi3.SchemaRefs{prop}})
			}
			prop.Value.Description = f.doc
			words(prop.Value, f)
		}
		if !sb.response {
			boundSchema(prop, f.info, &f.lim, false)
		}
		if sb.response {
			s.Required = append(s.Required, f.name)
			if f.required {
				input = append(input, f.name)
			}
		} else if f.required {
			s.Required = append(s.Required, f.name)
			if prop.Ref == "" && prop.Value != nil {
				switch f.info.kind {
				case kString:
					prop.Value.MinLength = 1
				case kSlice:
					prop.Value.MinItems = 1
				}
			}
		}
		s.Properties[f.name] = prop
		order = append(order, f.name)
	}
	if len(order) > 0 {
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		s.Extensions["x-order"] = order
		if sb.response {
			s.Extensions["x-input-required"] = input
		}
	}
	return nil
}

// words adds a field's words for people to its property schema: title
// (the English label) and x-labels, x-help, x-code-list.
func words(s *openapi3.Schema, f *field) {
	set := func(k string, v any) {
		if s.Extensions == nil {
			s.Extensions = map[string]any{}
		}
		s.Extensions[k] = v
	}
	if !f.label.Empty() {
		s.Title = f.label.EN
		set("x-labels", f.label)
	}
	if !f.help.Empty() {
		set("x-help", f.help)
	}
	if f.codeList != "" {
		set("x-code-list", f.codeList)
	}
}

// component returns a $ref to the component schema of a named type, creating
// it with fill on first use. The entry is registered before fill runs, so
// recursive types refer to themselves instead of recursing forever.
func (sb *schemaBuilder) component(ti *typeInfo, fill func(*openapi3.Schema) error) (*openapi3.SchemaRef, error) {
	form := schemaForm{t: ti.t, response: sb.response && ti.kind == kStruct} // an enum has one form
	name, err := sb.name(form.t, form.response)
	if err != nil {
		return nil, err
	}
	ref := "#/components/schemas/" + name
	existing := sb.pending[name]
	if existing == nil {
		existing = sb.comps[name]
	}
	if existing != nil {
		owner, ok := schemaOwner.Load(existing.Value)
		if !ok {
			return nil, fmt.Errorf("codec: component schema %q for %v is already defined elsewhere", name, ti.t)
		}
		if owner != form {
			return nil, fmt.Errorf("codec: component schema %q is used by both %v and %v", name, owner, form)
		}
		return openapi3.NewSchemaRef(ref, existing.Value), nil
	}
	s := &openapi3.Schema{}
	schemaOwner.Store(s, form)
	sb.pending[name] = openapi3.NewSchemaRef("", s)
	if err := fill(s); err != nil {
		return nil, err
	}
	return openapi3.NewSchemaRef(ref, s), nil
}

// componentName is the Go type name, made safe for a component key (generic
// instantiations contain brackets, slashes and commas).
func componentName(t reflect.Type) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-' {
			return r
		}
		return '_'
	}, nameOf(t))
}
