package codec

import (
	"fmt"
	"reflect"
	"sync"
)

// typeNames holds the names given to struct types made at run time
// (reflect.StructOf): reflect.Type -> typeName.
var typeNames sync.Map

type typeName struct{ pkg, name string }

// NameType names t, a struct type made at run time (reflect.StructOf: a
// request or response derived from declarations rather than written as Go
// types), as if it were declared `type <name> struct{...}` in the package
// whose name is pkg: its schema is the component <name> (qualified with pkg
// when another type shares the name), exactly like a named type's. Marshal
// and Unmarshal need no name: they treat every struct type alike.
//
// reflect.StructOf returns one type for equal field lists, so types meant
// to have different names must differ in a field (a tag will do). Naming a
// type twice with the same name is harmless; with another name, an error.
func NameType(t reflect.Type, pkg, name string) error {
	if t.Kind() != reflect.Struct || t.Name() != "" {
		return fmt.Errorf("codec: NameType(%v): only an unnamed struct type can be named", t)
	}
	if name == "" || pkg == "" {
		return fmt.Errorf("codec: NameType(%v): a package and a name are required", t)
	}
	want := typeName{pkg: pkg, name: name}
	if got, loaded := typeNames.LoadOrStore(t, want); loaded && got.(typeName) != want {
		g := got.(typeName)
		return fmt.Errorf("codec: NameType: %v is named %s.%s already, not %s.%s", t, g.pkg, g.name, pkg, name)
	}
	return nil
}

// nameOf is t's type name: its Go name, or the one NameType gave it.
func nameOf(t reflect.Type) string {
	if n := t.Name(); n != "" {
		return n
	}
	if n, ok := typeNames.Load(t); ok {
		return n.(typeName).name
	}
	return ""
}

// namedPackage is the package NameType named t in, if it did.
func namedPackage(t reflect.Type) (string, bool) {
	if t.Name() != "" {
		return "", false
	}
	n, ok := typeNames.Load(t)
	if !ok {
		return "", false
	}
	return n.(typeName).pkg, true
}
