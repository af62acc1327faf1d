package documents

import (
	"fmt"
	"reflect"
	"slices"
	"strings"

	"github.com/wasteflow/wasteflow/workflows/engine"
)

// Face is a kind's HTTP face as data: the REST operations serving its
// documents, by path, with what they say beyond the machine's declaration.
// The machine says the block each intent takes (Intent.Block) and its type
// (Intent.Input); the HTTP layer derives from both every operation's
// request, response and handler, and the kind's field of GetDocument's
// container. Where the interface's naming is irregular, the names are here.
type Face struct {
	// Noun names the kind's documents in descriptions ("notifications").
	Noun string
	// ContainerDoc describes the kind's field of GetDocument's container.
	ContainerDoc string
	// Create is the operation of Def.Create; Fields map its request to
	// the create input.
	Create OperationDecl
	// Get reads one document of the kind.
	Get OperationDecl
	// Operations are the operations that fire intents with their block, one
	// per intent Operation.
	Operations []OperationDecl
	// Elsewhere lists the intents whose operation the HTTP face serves
	// apart from this declaration: SetByIntent's, or an operation several
	// kinds share (SubmitAcknowledgement).
	Elsewhere []string
}

// OperationDecl is one REST operation of a kind.
type OperationDecl struct {
	// Operation is the REST path (/<package>.<Service>/<Method>), as the
	// interface names it. The intents it fires name it too
	// (Intent.Operation): the HTTP face serves this path and refuses to
	// start when an intent names another.
	Operation            string
	Summary, Description string
	// Fires are the intents the operation fires, in order of choice: the
	// first the document's state permits (SUBMISSION for a DRAFT, else
	// CORRECTION). They share Operation, Block and Input.
	Fires []string
	// Request and Response name the component schemas where the interface
	// does not call them <Method>Request and <Method>Response.
	Request, Response string
	// Fields are a create request's fields, in order.
	Fields []FieldDecl
}

// FieldDecl is one field of a create request and the field of the create
// input (Def.Create.Input) it fills.
type FieldDecl struct {
	JSON  string // the request's field ("notification")
	Input string // the create input's Go field ("Content")
	Doc   string
	// Required: the request must set it (a struct field is then a pointer
	// in the request, so that {} is a value and absence is not).
	Required bool
}

// Method is the last element of the operation's path ("SetDecision").
func (o *OperationDecl) Method() string { return o.Operation[strings.LastIndex(o.Operation, "/")+1:] }

// RequestName is the request's component schema name.
func (o *OperationDecl) RequestName() string { return cmp(o.Request, o.Method()+"Request") }

// ResponseName is the response's component schema name.
func (o *OperationDecl) ResponseName() string { return cmp(o.Response, o.Method()+"Response") }

func cmp(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (k *Kind) intentNamed(name string) *engine.Intent {
	for i := range k.Def.Intents {
		if k.Def.Intents[i].Name == name {
			return &k.Def.Intents[i]
		}
	}
	return nil
}

// checkFace lists what is wrong with a kind's face: an operation without
// intents, intents of one operation that differ in operation, block or
// input, an intent no operation serves, a create field the create input
// lacks.
func (k *Kind) checkFace() []string {
	f := k.Face
	if f == nil {
		return nil
	}
	var problems []string
	bad := func(format string, args ...any) {
		problems = append(problems, fmt.Sprintf("kind %s: face: ", k.Def.Kind)+fmt.Sprintf(format, args...))
	}
	if f.Noun == "" || f.ContainerDoc == "" {
		bad("Noun and ContainerDoc are required")
	}
	paths := map[string]bool{}
	for _, o := range append([]OperationDecl{f.Create, f.Get}, f.Operations...) {
		svc, _, _ := strings.Cut(strings.TrimPrefix(o.Operation, "/"), "/")
		if !strings.HasPrefix(o.Operation, "/") || strings.Count(o.Operation, "/") != 2 || !strings.Contains(svc, ".") || paths[o.Operation] {
			bad("operation %q is no REST path /<package>.<Service>/<Method> of its own", o.Operation)
		}
		paths[o.Operation] = true
	}
	served := map[string]string{} // intent -> operation
	for _, o := range f.Operations {
		if len(o.Fires) == 0 {
			bad("an intent operation (%q) fires no intent", o.Summary)
			continue
		}
		first := k.intentNamed(o.Fires[0])
		for _, name := range o.Fires {
			in := k.intentNamed(name)
			switch {
			case in == nil || in.System:
				bad("intent %s is no intent a caller fires", name)
			case served[name] != "":
				bad("intent %s is served twice", name)
			case first == nil || in.Operation != first.Operation || in.Block != first.Block || in.Input == nil || first.Input == nil ||
				reflect.TypeOf(in.Input()) != reflect.TypeOf(first.Input()):
				bad("intent %s differs from %s in operation, block or input: one operation fires both", name, o.Fires[0])
			case in.Block == "":
				bad("intent %s takes no block", name)
			default:
				served[name] = in.Operation
			}
		}
	}
	for _, in := range k.Def.Intents {
		if in.System || in.Creates != "" || served[in.Name] != "" || slices.Contains(f.Elsewhere, in.Name) {
			continue // a Creates intent is served by the child kind's create
		}
		bad("no operation serves intent %s (%s): declare it in Operations or Elsewhere", in.Name, in.Operation)
	}
	var input reflect.Type
	if k.Def.Create.Input != nil {
		input = reflect.TypeOf(k.Def.Create.Input())
	}
	if input == nil || input.Kind() != reflect.Pointer || input.Elem().Kind() != reflect.Struct {
		bad("the create input is no pointer to a struct")
		return problems
	}
	if len(f.Create.Fields) == 0 {
		bad("the create request has no fields")
	}
	for _, fd := range f.Create.Fields {
		if _, ok := input.Elem().FieldByName(fd.Input); !ok || fd.JSON == "" {
			bad("create field %q: the create input %s has no field %q", fd.JSON, input.Elem(), fd.Input)
		}
	}
	return problems
}
