package codec

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"
)

// Input limits, declared once as struct tags beside `json`:
//
//	maxLength:"N"      every string the field holds (the string itself, a
//	                   list's strings, a map's values, a message's strings
//	                   at any depth) has at most N characters (runes, not
//	                   bytes); on a message it bounds the strings inside
//	                   more tightly than their own tags (a BMU note's
//	                   Text, whose value is any field's, is 200 characters
//	                   as a name and 2,000 as remarks)
//	maxItems:"N"       a list has at most N entries
//	maxProperties:"N"  a map has at most N entries
//	maxKeyLength:"N"   a map's keys have at most N characters
//	minimum:"N"        an integer is at least N; 0, proto3's unset value, is
//	                   not checked unless the field is a pointer (then set).
//	                   A 64-bit integer (a decimal string on the wire) takes
//	                   0 or 1 only, which its schema's pattern can state
//
// Unmarshal and UnmarshalQuery refuse a value beyond them while decoding,
// with an *Error naming the field's path, so an oversized list is not even
// built; the request form of the schema states them (maxLength, maxItems,
// maxProperties, minimum; a map's key length in its description, which is
// all OpenAPI 3.0 allows), so the description and the check cannot drift.
// A tag on a field whose type cannot hold what it bounds is a programmer
// mistake, reported when the type is first analysed.
type limits struct {
	maxLength     int
	maxItems      int
	maxProperties int
	maxKeyLength  int
	minimum       *int64
}

func parseLimits(tag reflect.StructTag, ti *typeInfo) (limits, error) {
	var lim limits
	positive := func(name string) (int, error) {
		v, ok := tag.Lookup(name)
		if !ok {
			return 0, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return 0, fmt.Errorf("tag %s:%q: a positive integer is required", name, v)
		}
		return n, nil
	}
	var err error
	if lim.maxLength, err = positive("maxLength"); err != nil {
		return lim, err
	}
	if lim.maxItems, err = positive("maxItems"); err != nil {
		return lim, err
	}
	if lim.maxProperties, err = positive("maxProperties"); err != nil {
		return lim, err
	}
	if lim.maxKeyLength, err = positive("maxKeyLength"); err != nil {
		return lim, err
	}
	if v, ok := tag.Lookup("minimum"); ok {
		n, err := strconv.ParseInt(v, 10, 32)
		if err != nil {
			return lim, fmt.Errorf("tag minimum:%q: an int32 is required", v)
		}
		lim.minimum = &n
	}
	switch {
	case lim.maxLength > 0 && !holdsStrings(ti):
		return lim, fmt.Errorf("maxLength on %v, which holds no strings", ti.t)
	case lim.maxItems > 0 && ti.kind != kSlice:
		return lim, fmt.Errorf("maxItems on %v, which is not a list", ti.t)
	case (lim.maxProperties > 0 || lim.maxKeyLength > 0) && ti.kind != kMap:
		return lim, fmt.Errorf("maxProperties or maxKeyLength on %v, which is not a map", ti.t)
	case lim.minimum != nil && !isInt(ti) && !(ti.kind == kPtr && isInt(ti.elem)):
		return lim, fmt.Errorf("minimum on %v: only signed integer fields (or pointers to them) take one", ti.t)
	case lim.minimum != nil && *lim.minimum != 0 && *lim.minimum != 1 && (ti.kind == kInt64 || ti.kind == kPtr && ti.elem.kind == kInt64):
		return lim, fmt.Errorf("minimum on %v: a 64-bit integer takes minimum 0 or 1 (its string's pattern states it)", ti.t)
	}
	return lim, nil
}

func isInt(ti *typeInfo) bool { return ti.kind == kInt || ti.kind == kInt64 }

// holdsStrings tells whether maxLength has something to bound in a value of
// ti: a string, or a list, map, pointer or message holding one.
func holdsStrings(ti *typeInfo) bool {
	return holdsStringsSeen(ti, map[*typeInfo]bool{})
}

func holdsStringsSeen(ti *typeInfo, seen map[*typeInfo]bool) bool {
	if ti == nil || seen[ti] {
		return false
	}
	seen[ti] = true
	switch ti.kind {
	case kString:
		return true
	case kPtr, kSlice, kMap:
		return holdsStringsSeen(ti.elem, seen)
	case kStruct:
		for i := range ti.fields {
			if holdsStringsSeen(ti.fields[i].info, seen) {
				return true
			}
		}
	}
	return false
}

// within is the limits of a field inside a message whose own field
// carries outer: the field's own, with maxLength the tighter of both
// (outer nil or without maxLength: the field's own, not copied).
func (lim *limits) within(outer *limits) *limits {
	if outer == nil || outer.maxLength == 0 || (lim.maxLength > 0 && lim.maxLength <= outer.maxLength) {
		return lim
	}
	c := *lim
	c.maxLength = outer.maxLength
	return &c
}

// checkString returns why s is too long for lim, or holds a NUL, or "".
func (lim *limits) checkString(s string) string {
	if strings.IndexByte(s, 0) >= 0 {
		return noNUL
	}
	if n := runesOver(s, lim.maxLength); n > 0 {
		return fmt.Sprintf("at most %d characters, not %d", lim.maxLength, n)
	}
	return ""
}

// checkKey returns why a map key is too long for lim, or "". The key is
// not repeated in the reason (nor is it in the path): it may be huge.
func (lim *limits) checkKey(key string) string {
	if strings.IndexByte(key, 0) >= 0 {
		return "keys without the NUL character (\\u0000)"
	}
	if runesOver(key, lim.maxKeyLength) > 0 {
		return fmt.Sprintf("keys of at most %d characters", lim.maxKeyLength)
	}
	return ""
}

// noNUL is the reason for a string holding U+0000. No text of a request
// needs it, PostgreSQL stores none (text and jsonb refuse it) and C
// programs reading an export would stop at it: it is refused in every
// string on every database, before anything is stored.
const noNUL = "the NUL character (\\u0000) is not allowed in a string"

// runesOver is the number of characters of s if more than max (and max
// set), else 0.
func runesOver(s string, max int) int {
	if max == 0 || len(s) <= max { // never more runes than bytes
		return 0
	}
	if n := utf8.RuneCountInString(s); n > max {
		return n
	}
	return 0
}

// tooMany returns why a list (k kSlice) or a map (kMap) that reached n
// entries is too long for lim, or "".
func (lim *limits) tooMany(k kind, n int) string {
	switch {
	case k == kSlice && lim.maxItems > 0 && n > lim.maxItems:
		return fmt.Sprintf("at most %d items", lim.maxItems)
	case k == kMap && lim.maxProperties > 0 && n > lim.maxProperties:
		return fmt.Sprintf("at most %d entries", lim.maxProperties)
	}
	return ""
}

// checkMinimum returns why the integer in v is below lim's minimum, or "".
// set says the value was given even if it is 0 (a pointer's).
func (lim *limits) checkMinimum(v reflect.Value, set bool) string {
	if lim.minimum == nil || v.Kind() < reflect.Int || v.Kind() > reflect.Int64 {
		return ""
	}
	if n := v.Int(); n < *lim.minimum && (n != 0 || set) {
		return fmt.Sprintf("must be at least %d, not %d", *lim.minimum, n)
	}
	return ""
}

// boundSchema writes lim into the request-form schema ref of a value of
// ti (a field's own schema, built for it alone, so it may be changed).
// set: as for checkMinimum.
func boundSchema(ref *openapi3.SchemaRef, ti *typeInfo, lim *limits, set bool) {
	if ref == nil || ref.Ref != "" || ref.Value == nil {
		return
	}
	s := ref.Value
	switch ti.kind {
	case kString:
		if lim.maxLength > 0 {
			s.MaxLength = openapi3.Ptr(uint64(lim.maxLength))
		}
	case kInt:
		if lim.minimum == nil {
			return
		}
		m := *lim.minimum
		if m <= 0 || set {
			s.Min = openapi3.Ptr(float64(m))
			return
		}
		// 0 stays allowed (not set): at least 0, and nothing from 1 to m-1.
		s.Min = openapi3.Ptr(0.0)
		if m > 1 {
			s.Not = openapi3.NewSchemaRef("", &openapi3.Schema{Min: openapi3.Ptr(1.0), Max: openapi3.Ptr(float64(m - 1))})
		}
		s.Description = joinSentences(s.Description, fmt.Sprintf("At least %d when set (0: not set).", m))
	case kInt64: // a decimal string or a number (schema's kInt64)
		if lim.minimum == nil {
			return
		}
		// parseLimits allows 0 and 1 only; unless set, 0 (not set) stays
		// allowed, which leaves at least 0.
		positive := set && *lim.minimum == 1
		for _, alt := range s.AnyOf {
			a := alt.Value
			switch {
			case a == nil || a.Type == nil:
			case a.Type.Is(openapi3.TypeString) && positive:
				a.Pattern = `^0*[1-9][0-9]*$`
			case a.Type.Is(openapi3.TypeString):
				a.Pattern = `^[0-9]+$`
			case a.Type.Is(openapi3.TypeInteger) && positive:
				a.Min = openapi3.Ptr(1.0)
			case a.Type.Is(openapi3.TypeInteger):
				a.Min = openapi3.Ptr(0.0)
			}
		}
	case kPtr:
		boundSchema(ref, ti.elem, lim, true) // a scalar's nullable schema is its own
	case kSlice:
		if lim.maxItems > 0 {
			s.MaxItems = openapi3.Ptr(uint64(lim.maxItems))
		}
		if s.Items != nil && s.Items.Ref != "" && lim.maxLength > 0 && ti.elem.kind == kStruct {
			s.Items = openapi3.NewSchemaRef("", &openapi3.Schema{AllOf: openapi3.SchemaRefs{s.Items}})
		}
		boundSchema(s.Items, ti.elem, lim, false)
	case kStruct:
		// A message's schema is a component shared by every field of its
		// type: this field's tighter bound goes beside it (allOf).
		if lim.maxLength > 0 {
			if b := stringBounds(ti, lim.maxLength, map[*typeInfo]bool{}); b != nil {
				s.AllOf = append(s.AllOf, openapi3.NewSchemaRef("", b))
			}
		}
	case kMap:
		if lim.maxProperties > 0 {
			s.MaxProps = openapi3.Ptr(uint64(lim.maxProperties))
		}
		if lim.maxKeyLength > 0 { // OpenAPI 3.0 has no propertyNames
			s.Description = joinSentences(s.Description, fmt.Sprintf("Keys of at most %d characters.", lim.maxKeyLength))
		}
		boundSchema(s.AdditionalProperties.Schema, ti.elem, lim, false)
	}
}

// stringBounds is a schema bounding every string a value of ti holds to
// max characters, or nil when it holds none.
func stringBounds(ti *typeInfo, max int, seen map[*typeInfo]bool) *openapi3.Schema {
	if seen[ti] {
		return nil
	}
	switch ti.kind {
	case kString:
		return &openapi3.Schema{MaxLength: openapi3.Ptr(uint64(max))}
	case kPtr:
		return stringBounds(ti.elem, max, seen)
	case kSlice:
		if b := stringBounds(ti.elem, max, seen); b != nil {
			return &openapi3.Schema{Items: openapi3.NewSchemaRef("", b)}
		}
	case kMap:
		if b := stringBounds(ti.elem, max, seen); b != nil {
			return &openapi3.Schema{AdditionalProperties: openapi3.AdditionalProperties{Schema: openapi3.NewSchemaRef("", b)}}
		}
	case kStruct:
		seen[ti] = true
		defer delete(seen, ti)
		props := openapi3.Schemas{}
		for i := range ti.fields {
			if b := stringBounds(ti.fields[i].info, max, seen); b != nil {
				props[ti.fields[i].name] = openapi3.NewSchemaRef("", b)
			}
		}
		if len(props) > 0 {
			return &openapi3.Schema{Properties: props}
		}
	}
	return nil
}

func joinSentences(a, b string) string {
	if a == "" {
		return b
	}
	if c := a[len(a)-1]; c != '.' && c != ')' {
		a += "."
	}
	return a + " " + b
}
