package codec

import (
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// UnmarshalQuery decodes GET query parameters into v (a non-nil pointer to a
// struct) the way grpc-gateway's query parser does: each key is a dotted
// path of lowerCamel or snake_case field names ("qpar.pageSize",
// "template_id.id"); values use the string forms of the scalar rules (bools
// also as "1"/"0"). A repeated scalar field takes repeated keys; any other
// field given more than once keeps the last value. Unknown paths are
// ignored (refused in a Strict message). Messages, maps and repeated messages cannot be set from a query.
//
// Keys are applied in sorted order, so the outcome and the reported error do
// not depend on map iteration. On error v may be partially written.
func UnmarshalQuery(q url.Values, v any) error {
	rv, ti, err := target(v)
	if err != nil {
		return err
	}
	strict := IsStrict(rv.Type())
	for _, key := range slices.Sorted(maps.Keys(q)) {
		if vals := q[key]; len(vals) > 0 {
			if err := setQueryPath(ti, rv, key, vals, strict); err != nil {
				return err
			}
		}
	}
	return nil
}

func setQueryPath(ti *typeInfo, root reflect.Value, key string, vals []string, strict bool) error {
	// Resolve the path on types first, so that an unknown path is ignored
	// without allocating the intermediate messages it names.
	var fields []*field
	var names []string
	cur := ti
	for seg := range strings.SplitSeq(key, ".") {
		if cur.kind == kPtr && cur.elem.kind == kStruct {
			cur = cur.elem
		}
		if cur.kind != kStruct {
			return &Error{Field: strings.Join(names, "."), Reason: echo.Sprintf("cannot set %q: %s", seg, notSettable(cur))}
		}
		f := cur.byName[seg]
		if f == nil {
			if strict {
				return &Error{Field: strings.Join(append(names, shortKey([]byte(seg))), "."), Reason: unknownField}
			}
			return nil // unknown field: ignored, like unknown body fields
		}
		fields = append(fields, f)
		names = append(names, f.name)
		cur = f.info
	}
	v := root
	for _, f := range fields[:len(fields)-1] {
		v = v.FieldByIndex(f.index)
		if v.Kind() == reflect.Pointer {
			if v.IsNil() {
				v.Set(reflect.New(v.Type().Elem()))
			}
			v = v.Elem()
		}
	}
	var lim *limits // a message's maxLength bounds the strings inside it
	for _, f := range fields {
		lim = f.lim.within(lim)
	}
	last := fields[len(fields)-1]
	return setQueryValue(last.info, v.FieldByIndex(last.index), vals, strings.Join(names, "."), lim)
}

func setQueryValue(ti *typeInfo, v reflect.Value, vals []string, path string, lim *limits) error {
	switch {
	case ti.kind == kSlice && ti.elem.kind.scalar():
		if reason := lim.tooMany(kSlice, len(vals)); reason != "" {
			return &Error{Field: path, Reason: reason}
		}
		s := reflect.MakeSlice(ti.t, len(vals), len(vals))
		for i, val := range vals {
			if err := setQueryScalar(ti.elem, s.Index(i), val, lim, false); err != nil {
				return &Error{Field: fmt.Sprintf("%s[%d]", path, i), Reason: err.Error()}
			}
		}
		v.Set(s)
	case ti.kind == kPtr && ti.elem.kind.scalar():
		p := reflect.New(ti.elem.t)
		if err := setQueryScalar(ti.elem, p.Elem(), vals[len(vals)-1], lim, true); err != nil {
			return &Error{Field: path, Reason: err.Error()}
		}
		v.Set(p)
	case ti.kind.scalar():
		if err := setQueryScalar(ti, v, vals[len(vals)-1], lim, false); err != nil {
			return &Error{Field: path, Reason: err.Error()}
		}
	default:
		return &Error{Field: path, Reason: notSettable(ti)}
	}
	return nil
}

// setQueryScalar sets a scalar from a query value within the field's
// limits (set: as for limits.checkMinimum).
func setQueryScalar(ti *typeInfo, v reflect.Value, val string, lim *limits, set bool) error {
	if ti.kind == kString {
		if reason := lim.checkString(val); reason != "" {
			return errors.New(reason)
		}
	}
	if err := setFromString(ti, v, val, true); err != nil {
		return err
	}
	if reason := lim.checkMinimum(v, set); reason != "" {
		return errors.New(reason)
	}
	return nil
}

// notSettable explains why a field cannot take a query value, or cannot be
// walked through by a longer path.
func notSettable(ti *typeInfo) string {
	switch ti.kind {
	case kSlice:
		if !ti.elem.kind.scalar() {
			return "repeated message fields cannot be set from query parameters"
		}
	case kMap:
		return "map fields cannot be set from query parameters"
	case kStruct:
		return "message fields cannot be set from a query parameter; set their subfields instead"
	case kPtr:
		if !ti.elem.kind.scalar() {
			return "message fields cannot be set from a query parameter; set their subfields instead"
		}
	case kAny, kRaw:
		return "free-form fields cannot be set from query parameters"
	}
	return "field is not a message"
}
