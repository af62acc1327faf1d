// Package labels holds the words a person sees for the codes of the code
// lists (operations R1–R13/D1–D15, lists of waste, means of transport,
// packaging, countries, states, intents, roles, decision types), in English
// and German, declared once; the console, the pages, the print, the mails
// and the register all read them from here or from what is declared beside
// the types (field labels in struct tags, enum labels beside the enum).
//
// The lists of codes this package knows itself (operation, wasteCode/<LIST>,
// meansOfTransport, packagingType, country) are built on first use. The
// lists declared elsewhere are registered by their owners: a document
// kind's states, intents and roles by the workflow engine when it builds
// the kind (state/<kind>, intent/<kind>, role), the enums of the API by the
// server (one list per enum type, named by its proto enum name).
package labels

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// Text is a label in English and German.
type Text struct {
	EN string `json:"en"`
	DE string `json:"de"`
}

// In returns the label in lang ("de" for German, English otherwise).
func (t Text) In(lang string) string {
	if lang == "de" && t.DE != "" {
		return t.DE
	}
	return t.EN
}

// Parse reads a label declared as "English|Deutsch" (a struct tag's
// value); a text without "|" is the same in both languages.
func Parse(s string) Text {
	en, de, ok := strings.Cut(s, "|")
	if !ok {
		de = en
	}
	return Text{EN: strings.TrimSpace(en), DE: strings.TrimSpace(de)}
}

// Empty tells whether either language is missing.
func (t Text) Empty() bool { return t.EN == "" || t.DE == "" }

// Enum is implemented (with a value receiver) by the API's enum types
// beside EnumNames: EnumLabels()[n] is the label of number n.
type Enum interface {
	EnumNames() []string
	EnumLabels() []Text
}

// Of returns the label of an enum value (a type implementing Enum whose
// underlying type is an integer), and whether it has one.
func Of[E interface {
	Enum
	~int32
}](v E) (Text, bool) {
	ls := v.EnumLabels()
	if int(v) < 0 || int(v) >= len(ls) {
		return Text{}, false
	}
	return ls[v], true
}

// EnumList makes the list of an enum type: its names to their labels.
func EnumList(e Enum) map[string]Text {
	names, ls := e.EnumNames(), e.EnumLabels()
	out := make(map[string]Text, len(names))
	for i, n := range names {
		if i < len(ls) {
			out[n] = ls[i]
		}
	}
	return out
}

var (
	mu         sync.RWMutex
	registered = map[string]map[string]Text{}
	builtin    = sync.OnceValue(builtinLists)
)

// Register adds the codes of m to the list named list (a later label of a
// code replaces an earlier one). It is safe for concurrent use.
func Register(list string, m map[string]Text) {
	mu.Lock()
	defer mu.Unlock()
	l := registered[list]
	if l == nil {
		l = map[string]Text{}
		registered[list] = l
	}
	maps.Copy(l, m)
}

// Code returns the label of code in the code list named list, and whether
// the list knows it. A waste code is looked up as the list spells it
// ("16 02 13*"); see wastecodes.Canonical.
func Code(list, code string) (Text, bool) {
	if t, ok := builtin()[list][code]; ok {
		return t, true
	}
	mu.RLock()
	defer mu.RUnlock()
	t, ok := registered[list][code]
	return t, ok
}

// Label is Code's label in lang, or code itself when the list does not
// know it (a code is never hidden).
func Label(list, code, lang string) string {
	if t, ok := Code(list, code); ok {
		return t.In(lang)
	}
	return code
}

// Lists returns a copy of every list: the built-in ones and those
// registered so far.
func Lists() map[string]map[string]Text {
	out := map[string]map[string]Text{}
	for name, l := range builtin() {
		out[name] = maps.Clone(l)
	}
	mu.RLock()
	defer mu.RUnlock()
	for name, l := range registered {
		if out[name] == nil {
			out[name] = map[string]Text{}
		}
		maps.Copy(out[name], l)
	}
	return out
}

// Names returns the names of every list, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(Lists()))
}
