package shipment

import (
	"reflect"
	"strings"
)

// ErrChangeEmpty: a correction or change proposes nothing different from
// what it would replace (every kind: a notification's correction or change
// request, an Annex VII document's correction, a movement's template).
const ErrChangeEmpty = "CHANGE_PROPOSES_NOTHING"

// ChangedFields lists the top-level fields (JSON names) of the struct in
// which b differs from a; an empty list and a missing one are alike.
func ChangedFields[T any](a, b *T) []string {
	va, vb := reflect.ValueOf(a).Elem(), reflect.ValueOf(b).Elem()
	var out []string
	for i := range va.NumField() {
		if !sameValue(va.Field(i), vb.Field(i)) {
			name, _, _ := strings.Cut(va.Type().Field(i).Tag.Get("json"), ",")
			out = append(out, name)
		}
	}
	return out
}

// NothingChanged is the refusal of an act that would replace b by an
// equal value (what names it: "the correction", "the template"), at
// field; none when something changes.
func NothingChanged[T any](field, what string, before, after *T) []BusinessError {
	if len(ChangedFields(before, after)) > 0 {
		return nil
	}
	return []BusinessError{{Code: ErrChangeEmpty, Field: field, Message: what + " changes nothing: it equals what it would replace"}}
}

func sameValue(a, b reflect.Value) bool {
	switch a.Kind() {
	case reflect.Slice:
		if a.Len() != b.Len() {
			return false
		}
		for i := range a.Len() {
			if !sameValue(a.Index(i), b.Index(i)) {
				return false
			}
		}
		return true
	case reflect.Pointer:
		if a.IsNil() || b.IsNil() {
			return a.IsNil() == b.IsNil()
		}
		return sameValue(a.Elem(), b.Elem())
	case reflect.Struct:
		for i := range a.NumField() {
			if !sameValue(a.Field(i), b.Field(i)) {
				return false
			}
		}
		return true
	default:
		return a.Equal(b)
	}
}

// ErrHistoryFull: an act would record more entries in one of a document's
// history lists (corrections, requests, replies, signals, ...) than a
// document keeps (their maxItems; workflows/engine checks it for every
// kind).
const ErrHistoryFull = "HISTORY_FULL"
