package engine

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"github.com/wasteflow/wasteflow/rules/shipment"
)

// Bounded history (issue 46.1). Each act is bounded by its block's limits;
// their number is bounded here: an aggregate's lists that record acts
// (corrections, information requests and their replies, change requests,
// signals, ...) carry a maxItems tag, and an act that would make one
// longer than that is refused with ErrHistoryFull (HTTP 200, nothing
// written). The lists are the aggregate's top-level fields with a maxItems
// tag and, inside their elements, the fields with one (a request's
// replies): two levels, read through reflection once per type.

// ErrHistoryFull: the act would record more entries in one of the
// document's history lists than a document keeps.
const ErrHistoryFull = shipment.ErrHistoryFull

type boundedList struct {
	index []int  // the field's index in its struct
	name  string // its JSON name
	max   int
	inner []boundedList // bounded lists inside each element
}

var boundedLists sync.Map // reflect.Type → []boundedList

func listsOf(t reflect.Type) []boundedList {
	if v, ok := boundedLists.Load(t); ok {
		return v.([]boundedList)
	}
	out := taggedLists(t)
	for i := range out {
		if elem := t.FieldByIndex(out[i].index).Type.Elem(); elem.Kind() == reflect.Struct {
			out[i].inner = taggedLists(elem) // one level only
		}
	}
	boundedLists.Store(t, out)
	return out
}

// taggedLists are the exported list fields of struct type t that carry a
// maxItems tag.
func taggedLists(t reflect.Type) []boundedList {
	var out []boundedList
	if t.Kind() != reflect.Struct {
		return nil
	}
	for _, f := range reflect.VisibleFields(t) {
		max, err := strconv.Atoi(f.Tag.Get("maxItems"))
		if err != nil || f.Type.Kind() != reflect.Slice || !f.IsExported() || len(f.Index) != 1 {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		out = append(out, boundedList{index: f.Index, name: name, max: max})
	}
	return out
}

// HistoryLengths are the lengths of data's bounded lists (data: a pointer
// to an aggregate), by path, to compare with after an act. keptApart
// counts, by list, the first items data was read without (Eval.KeptApart):
// lengths and paths are the whole lists'.
func HistoryLengths(data any, keptApart map[string]int) map[string]int {
	out := map[string]int{}
	walkLists(data, keptApart, func(path string, n, _ int) { out[path] = n })
	return out
}

// HistoryFull reports the bounded lists of data that an act made longer
// than their limit (before: HistoryLengths from before the act). A list
// already over its limit before (stored by an older release) and not
// grown is left alone.
func HistoryFull(data any, keptApart, before map[string]int) []BusinessError {
	var out []BusinessError
	walkLists(data, keptApart, func(path string, n, max int) {
		if n > max && n > before[path] {
			out = append(out, BusinessError{Code: ErrHistoryFull, Field: path, Message: fmt.Sprintf(
				"%s holds %d entries, the most one document keeps: this act would add one more", path, max)})
		}
	})
	return out
}

func walkLists(data any, keptApart map[string]int, fn func(path string, n, max int)) {
	v := reflect.ValueOf(data)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return
	}
	v = v.Elem()
	for _, b := range listsOf(v.Type()) {
		list, kept := v.FieldByIndex(b.index), keptApart[b.name]
		fn(b.name, kept+list.Len(), b.max)
		if len(b.inner) == 0 {
			continue
		}
		for i := range list.Len() { // the items kept apart are closed: their lists no longer grow
			for _, in := range b.inner {
				fn(b.name+"["+strconv.Itoa(kept+i)+"]."+in.name, list.Index(i).FieldByIndex(in.index).Len(), in.max)
			}
		}
	}
}
