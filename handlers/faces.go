package handlers

import (
	"context"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The operations of every document kind, derived from the kind registry:
// each kind's create, Get and intent operations from its face
// (documents.Face: paths, summaries, descriptions, which intents an
// operation fires, irregular schema names) and its machine (the blocks the
// intents take and their types, the create input).
// Their requests and responses are struct types made here at run time and
// named as the interface names them (codec.NameType), so that the wire and
// the description treat them exactly like declared Go types.

// DocumentRef names the document an intent operation acts on.
type DocumentRef struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
	// Version is required: without it a copy read earlier would overwrite
	// a change made meanwhile unseen (issue 44.12).
	Version *int64 `json:"version" required:"true" minimum:"1" label:"Version you read|Gelesene Version" doc:"required; the version you read (the document's version): a stale one answers 409, code 10, and a request without it (or 0) 400, code 3"`
}

// kindOperations are the operations of every kind with a face, kind by
// kind: create, Get, then the intent operations.
func (s *Server) kindOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	var ops []api.Operation
	for _, k := range s.docs.Kinds.Kinds() {
		if k.Face == nil {
			continue
		}
		ops = append(ops, s.createOperation(k), s.getOperation(k))
		for _, o := range k.Face.Operations {
			ops = append(ops, s.intentOperation(k, o))
		}
	}
	return ops
}

// faceMismatches lists the operations of k's face that fire an intent
// naming another operation (the create's is Def.Create).
func faceMismatches(k *documents.Kind) []string {
	if k.Face == nil {
		return nil
	}
	var out []string
	mismatch := func(o documents.OperationDecl, in *engine.Intent) {
		if in.Operation != o.Operation {
			out = append(out, fmt.Sprintf("%s: operation %s fires intent %s, which names operation %s", k.Name(), o.Operation, in.Name, in.Operation))
		}
	}
	mismatch(k.Face.Create, k.Def.Create)
	for _, o := range k.Face.Operations {
		for _, name := range o.Fires {
			if in, ok := k.Machine().Intent(name); ok {
				mismatch(o, in)
			}
		}
	}
	return out
}

// declared is the operation a declaration names by its path
// (/<package>.<Service>/<Method>).
func declared(o documents.OperationDecl) api.Operation {
	svc, method, _ := strings.Cut(strings.TrimPrefix(o.Operation, "/"), "/")
	dot := strings.LastIndex(svc, ".")
	return api.Operation{Package: svc[:dot], Service: svc[dot+1:], Method: method, Summary: o.Summary, Description: o.Description}
}

// createOperation creates a document of k: the request's fields are the
// face's, each filling its field of the create input.
func (s *Server) createOperation(k *documents.Kind) api.Operation {
	o := k.Face.Create
	input := reflect.TypeOf(k.Def.Create.Input()).Elem()
	var fields []reflect.StructField
	for _, f := range o.Fields {
		sf, _ := input.FieldByName(f.Input) // the registry checked it
		typ := sf.Type
		if f.Required && typ.Kind() == reflect.Struct {
			typ = reflect.PointerTo(typ) // {} is a value, absence is not
		}
		tag := `json:"` + f.JSON + `"` + wordsOf(k, f.JSON)
		if f.Required {
			tag += ` required:"true"`
		}
		if f.Doc != "" {
			tag += ` doc:` + strconv.Quote(f.Doc)
		}
		fields = append(fields, reflect.StructField{Name: exported(f.JSON), Type: typ, Tag: reflect.StructTag(tag)})
	}
	req := madeStruct(o.RequestName(), fields...)
	resp := answerType(o.ResponseName(), documentField(k))
	op := declared(o)
	op.Description += intentsDescription
	return api.Made(op, req, resp, func(ctx context.Context, r reflect.Value) (any, error) {
		in := reflect.ValueOf(k.Def.Create.Input())
		for i, f := range o.Fields {
			v, dst := r.Field(i), in.Elem().FieldByName(f.Input)
			if v.Type() != dst.Type() { // a required struct, set: required fields are checked on decoding
				if v.IsNil() {
					return nil, status.Invalid(f.JSON, "required")
				}
				v = v.Elem()
			}
			dst.Set(v)
		}
		return answer(resp)(s.docs.Create(ctx, k.Name(), in.Interface()))
	})
}

// getOperation reads one document of k.
func (s *Server) getOperation(k *documents.Kind) api.Operation {
	o := k.Face.Get
	req := madeStruct(o.RequestName(), reflect.StructField{Name: "DocumentID", Type: reflect.TypeFor[string](), Tag: `json:"documentId" required:"true" label:"Document|Dokument"`})
	resp := answerType(o.ResponseName(), documentField(k))
	return api.Made(declared(o), req, resp, func(ctx context.Context, r reflect.Value) (any, error) {
		return answer(resp)(s.get(ctx, k.Name(), r.Field(0).String()))
	})
}

// intentOperation fires the first of o's intents the document's state
// permits, with the block the intents take.
func (s *Server) intentOperation(k *documents.Kind, o documents.OperationDecl) api.Operation {
	in, _ := k.Machine().Intent(o.Fires[0]) // the registry checked the intents
	req := madeStruct(o.RequestName(),
		reflect.StructField{Name: "DocumentRef", Type: reflect.TypeFor[DocumentRef](), Tag: `json:",inline"`},
		reflect.StructField{Name: exported(in.Block), Type: reflect.TypeOf(in.Input()).Elem(), Tag: reflect.StructTag(`json:"` + in.Block + `"` + intentWords(k, in.Name))})
	resp := answerType(o.ResponseName(), documentField(k))
	op := declared(o)
	op.Description += intentsDescription + versionDescription
	return api.Made(op, req, resp, func(ctx context.Context, r reflect.Value) (any, error) {
		ref := r.Field(0).Interface().(DocumentRef)
		return answer(resp)(s.fireBlock(ctx, k.Name(), ref.DocumentID, ref.Version, r.Field(1).Addr().Interface(), o.Fires...))
	})
}

// madeStruct makes the struct type of fields, named name as if declared in
// this package. The name goes into a tag of the first field too: equal
// field lists under different names stay different types.
func madeStruct(name string, fields ...reflect.StructField) reflect.Type {
	fields[0].Tag = reflect.StructTag(strings.TrimSpace(string(fields[0].Tag) + ` made:"` + name + `"`))
	t := reflect.StructOf(fields)
	if err := codec.NameType(t, "handlers", name); err != nil {
		panic(err) // one name, one field list: only a programming mistake gets here
	}
	return t
}

func exported(jsonName string) string {
	r, n := utf8.DecodeRuneInString(jsonName)
	return string(unicode.ToUpper(r)) + jsonName[n:]
}

// documentType is k's retrieval document type, named as the kind names it
// (DocumentName in DocumentPackage: a KindOf's made type is its R's name),
// so that its schema is the component it would be as a declared Go type.
// Every use of a DocumentType here goes through it, so the name is given
// before any schema is built.
func documentType(k *documents.Kind) reflect.Type {
	if k.DocumentName != "" {
		if err := codec.NameType(k.DocumentType, k.DocumentPackage, k.DocumentName); err != nil {
			panic(err) // a kind's type has one name: only a programming mistake gets here
		}
	}
	// The retrieval document (R, the made type's first, inline field)
	// repeats fields of the kind's data: they carry the data's words.
	if t := k.DocumentType; t.Kind() == reflect.Struct && t.NumField() > 0 && t.Field(0).Anonymous {
		data := reflect.TypeOf(k.NewData())
		for data.Kind() == reflect.Pointer {
			data = data.Elem()
		}
		if data.Kind() == reflect.Struct {
			codec.LabelsFrom(t.Field(0).Type, data)
		}
	}
	return k.DocumentType
}

// documentField is the document of a kind's answers: its retrieval
// document, null when there is none.
func documentField(k *documents.Kind) reflect.StructField {
	return reflect.StructField{Name: "Document", Type: reflect.PointerTo(documentType(k)),
		Tag: `json:"document" doc:"null when a create is refused (businessErrors say why)" label:"Document|Dokument"`}
}

// answerType is an answer's shape: the document, the caller's follow-up
// intents and the business errors.
func answerType(name string, document reflect.StructField) reflect.Type {
	return madeStruct(name, document,
		reflect.StructField{Name: "FollowUpIntents", Type: reflect.TypeFor[[]FollowUpIntent](), Tag: followUpTag},
		reflect.StructField{Name: "BusinessErrors", Type: reflect.TypeFor[[]BusinessError](), Tag: businessErrorsTag})
}

// The tags of every answer's follow-up intents and business errors.
const (
	followUpTag       = `json:"followUpIntents" label:"What you can do next|Was Sie als Nächstes tun können"`
	businessErrorsTag = `json:"businessErrors" label:"Problems to fix|Zu behebende Probleme"`
)

// answer turns a runner answer into an answer of type t (answerType with
// a kind's documentField): its document null when there is none (a create
// refused by business errors).
func answer(t reflect.Type) func(v *documents.View, berrs []engine.BusinessError, err error) (any, error) {
	return func(v *documents.View, berrs []engine.BusinessError, err error) (any, error) {
		return answerWith(t, v, berrs, err)
	}
}

func answerWith(t reflect.Type, v *documents.View, berrs []engine.BusinessError, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	out := reflect.New(t)
	if v == nil {
		out.Elem().Field(1).Set(reflect.ValueOf([]FollowUpIntent{}))
		out.Elem().Field(2).Set(reflect.ValueOf(businessErrors(berrs)))
		return out.Interface(), nil
	}
	d := reflect.ValueOf(v.Kind.Document(v))
	if d.Type() != t.Field(0).Type {
		// An operation of one kind answered with another's document: the
		// target's kinds keep this from happening.
		return nil, status.New(status.Internal, "document %s is a %s", v.Doc.ID, v.Kind.Name())
	}
	return fill(out, d, v, berrs), nil
}

func fill(out, document reflect.Value, v *documents.View, berrs []engine.BusinessError) any {
	out.Elem().Field(0).Set(document)
	out.Elem().Field(1).Set(reflect.ValueOf(followUps(v)))
	out.Elem().Field(2).Set(reflect.ValueOf(businessErrors(berrs)))
	return out.Interface()
}

// containers are GetDocument's container and answers of each registry.
var containers sync.Map // *documents.Registry -> *containerTypes

type containerTypes struct {
	// document is the container: a field per kind, named by its
	// ContainerKey; the field of the document's kind is set.
	document reflect.Type
	// get and byIntent are the answers of GetDocument and SetByIntent.
	get, byIntent reflect.Type
}

func (s *Server) containers() *containerTypes {
	if c, ok := containers.Load(s.docs.Kinds); ok {
		return c.(*containerTypes)
	}
	var fields []reflect.StructField
	for _, k := range s.docs.Kinds.Kinds() {
		tag := `json:"` + k.ContainerKey + `"`
		if l, ok := labels.Code(labels.ListDocumentKind, k.Name()); ok && !l.Empty() {
			tag += ` label:` + strconv.Quote(l.EN+"|"+l.DE)
		}
		if k.Face != nil && k.Face.ContainerDoc != "" {
			tag += ` doc:` + strconv.Quote(k.Face.ContainerDoc)
		}
		fields = append(fields, reflect.StructField{Name: exported(k.ContainerKey), Type: reflect.PointerTo(documentType(k)), Tag: reflect.StructTag(tag)})
	}
	c := &containerTypes{document: madeStruct("Document", fields...)}
	field := reflect.StructField{Name: "Document", Type: c.document, Tag: `json:"document" label:"Document|Dokument"`}
	c.get, c.byIntent = answerType("GetDocumentResponse", field), answerType("SetByIntentResponse", field)
	got, _ := containers.LoadOrStore(s.docs.Kinds, c)
	return got.(*containerTypes)
}

// contain answers with a view's retrieval document in the container, as
// an answer of type t (containerTypes' get or byIntent).
func (s *Server) contain(t reflect.Type, v *documents.View, berrs []engine.BusinessError, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	c := reflect.New(s.containers().document).Elem()
	f := c.FieldByName(exported(v.Kind.ContainerKey))
	if !f.IsValid() {
		return nil, status.New(status.Internal, "no container field for %s", v.Kind.Name())
	}
	f.Set(reflect.ValueOf(v.Kind.Document(v)))
	return fill(reflect.New(t), c, v, berrs), nil
}

// getMethods names the Get operations of the kinds with a face: of those
// SetByIntent takes, and of the others by their nouns ("GetMovement for
// movements").
func getMethods(kinds []*documents.Kind) (all, byIntent, others []string) {
	for _, k := range kinds {
		if k.Face == nil {
			continue
		}
		m := k.Face.Get.Method()
		all = append(all, m)
		if k.NotByIntent {
			others = append(others, m+" for "+k.Face.Noun)
		} else {
			byIntent = append(byIntent, m)
		}
	}
	return all, byIntent, others
}

// nouns names the documents of the kinds with a face.
func nouns(kinds []*documents.Kind) []string {
	var out []string
	for _, k := range kinds {
		if k.Face != nil {
			out = append(out, k.Face.Noun)
		}
	}
	return out
}

// describeFaces names the kinds' Get operations where a field's
// description speaks of all of them.
func describeFaces(doc *openapi3.T, kinds []*documents.Kind) {
	all, byIntent, _ := getMethods(kinds)
	prop := func(component, field string) *openapi3.Schema {
		if c := doc.Components.Schemas[component]; c != nil && c.Value != nil && c.Value.Properties[field] != nil {
			return c.Value.Properties[field].Value
		}
		return &openapi3.Schema{}
	}
	prop("DocumentListEntry", "documentId").Description = "what " + strings.Join(all, ", ") + " and GetDocument take"
	prop("SetByIntentRequest", "document").Description = "the document as a retrieval operation returned it, with the intent's block filled in: " +
		"the container of GetDocument (the server picks the sub-document that is set), or a kind's document as " + strings.Join(byIntent, " or ") + " return it"
}

// wordsOf is the label and help tags of a create request's field: those of
// the kind's data field of the same JSON name (notification, annex7,
// movementTemplate, metadata, notificationId), declared beside the data
// type in rules/; "" when it has none.
func wordsOf(k *documents.Kind, jsonName string) string {
	t := reflect.TypeOf(k.NewData())
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return ""
	}
	for i := 0; i < t.NumField(); i++ {
		sf := t.Field(i)
		if name, _, _ := strings.Cut(sf.Tag.Get("json"), ","); name == jsonName {
			var out string
			for _, w := range []string{"label", "help"} {
				if v, ok := sf.Tag.Lookup(w); ok {
					out += " " + w + ":" + strconv.Quote(v)
				}
			}
			return out
		}
	}
	return ""
}

// intentWords is the label tag of an intent's input block: the intent's
// label (the block is what the intent asks for).
func intentWords(k *documents.Kind, intent string) string {
	if l := k.Def.Labels.Intents[intent]; !l.Empty() {
		return " label:" + strconv.Quote(l.EN+"|"+l.DE)
	}
	return ""
}
