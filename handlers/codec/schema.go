package codec

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
)

// SchemaRef derives the OpenAPI 3.0.3 schema of t by the rules Marshal and
// Unmarshal apply, so documents and wire never disagree. Named struct and
// enum types become component schemas in comps, keyed by Go type name (type
// arguments of generic types are sanitised to [A-Za-z0-9._-]), and are
// referenced as "#/components/schemas/<Name>". Returned refs also carry the
// resolved Value, so they can validate values without a loader.
//
// No property is required (proto3 has no required fields) and
// additionalProperties is left at its default. A field's `doc` struct tag
// becomes its description. Schemas describe the normal output; the few
// values outside them are NaN/±Infinity floats (strings on the wire) and
// enum numbers without a name (numbers on the wire).
//
// It returns an error for unsupported Go types, or if a component name is
// already used by a different Go type (or a schema SchemaRef did not make).
// On error comps is left unchanged.
func SchemaRef(t reflect.Type, comps openapi3.Schemas) (*openapi3.SchemaRef, error) {
	if comps == nil {
		return nil, errors.New("codec: SchemaRef needs a non-nil comps map")
	}
	ti, err := infoOf(t)
	if err != nil {
		return nil, err
	}
	sb := schemaBuilder{comps: comps, pending: openapi3.Schemas{}}
	ref, err := sb.schema(ti)
	if err != nil {
		return nil, err
	}
	for name, s := range sb.pending {
		comps[name] = s
	}
	return ref, nil
}

// schemaOwner records which Go type each component schema was generated
// from (*openapi3.Schema -> reflect.Type), to detect two types sharing a name
// across calls without leaking an extension into the documents.
var schemaOwner sync.Map

type schemaBuilder struct {
	comps   openapi3.Schemas // caller's components, only written on success
	pending openapi3.Schemas // components created by this call
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
	case kInt64:
		s = schemaOf(openapi3.TypeString)
		s.Format = "int64"
	case kUint64:
		s = schemaOf(openapi3.TypeString)
		s.Format = "uint64"
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
		s = &openapi3.Schema{Nullable: true}
	case kEnum:
		return sb.component(ti, func(s *openapi3.Schema) error {
			s.Type = &openapi3.Types{openapi3.TypeString}
			s.Description = "Enum value name; the numeric value is also accepted on input."
			for _, n := range ti.enumNames {
				s.Enum = append(s.Enum, n)
			}
			return nil
		})
	case kStruct:
		if ti.t.Name() == "" { // anonymous struct: inline
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
		if elem.Ref != "" { // siblings of $ref are ignored in 3.0: wrap it
			s = &openapi3.Schema{Nullable: true, AllOf: openapi3.SchemaRefs{elem}}
		} else {
			c := *elem.Value // freshly built for this use, so a shallow copy suffices
			c.Nullable = true
			s = &c
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

func (sb *schemaBuilder) object(ti *typeInfo, s *openapi3.Schema) error {
	s.Type = &openapi3.Types{openapi3.TypeObject}
	s.Properties = make(openapi3.Schemas, len(ti.fields))
	for i := range ti.fields {
		f := &ti.fields[i]
		prop, err := sb.schema(f.info)
		if err != nil {
			return err
		}
		if f.doc != "" {
			if prop.Ref != "" {
				prop = openapi3.NewSchemaRef("", &openapi3.Schema{AllOf: openapi3.SchemaRefs{prop}, Description: f.doc})
			} else {
				prop.Value.Description = f.doc
			}
		}
		s.Properties[f.name] = prop
	}
	return nil
}

// component returns a $ref to the component schema of a named type, creating
// it with fill on first use. The entry is registered before fill runs, so
// recursive types refer to themselves instead of recursing forever.
func (sb *schemaBuilder) component(ti *typeInfo, fill func(*openapi3.Schema) error) (*openapi3.SchemaRef, error) {
	name := componentName(ti.t)
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
		if owner != ti.t {
			return nil, fmt.Errorf("codec: component schema %q is used by both %v and %v", name, owner, ti.t)
		}
		return openapi3.NewSchemaRef(ref, existing.Value), nil
	}
	s := &openapi3.Schema{}
	schemaOwner.Store(s, ti.t)
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
	}, t.Name())
}
