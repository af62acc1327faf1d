package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/bufbuild/protocompile"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
)

// The .proto files are derived from the operation table and the request
// and response types, by the codec's analysis of them, like the OpenAPI
// description: so the REST routes, the OpenAPI description and the gRPC
// services come from one declaration. Field numbers cannot be derived
// from Go types, so the committed files (proto/) keep them: a field keeps
// its number, a new field takes the next free one, a field that is gone
// becomes reserved (number and name), so a regenerated file never breaks
// a client that was generated from the committed one.
//
// Layout (buf's conventions, packages as the interface's paths name them):
//
//	svc/core/v1/api/auth_api.proto     package svc.core.v1.api; service AuthApi;
//	                                   a <Method>Request and <Method>Response per rpc
//	wasteflow/types/v1/types.proto     package wasteflow.types.v1; every other
//	                                   message and enum (the OpenAPI components)
//
// The request and response messages of an rpc have the fields of its Go
// request and response types; the messages they contain are shared in
// wasteflow.types.v1. protojson renders every message exactly as the REST
// face does (json_name is set where protoc's rule would give another name).

// TypesPackage is the proto package of the shared messages and enums.
const TypesPackage = "wasteflow.types.v1"

const typesFile = "wasteflow/types/v1/types.proto"

// protoFile is one generated file.
type protoFile struct {
	path, pkg string
	imports   map[string]bool
	services  []*protoService
	messages  []*protoMessage
	enums     []*protoEnum
}

type protoService struct {
	name    string
	methods []*protoMethod
}

type protoMethod struct {
	name, comment  string
	input, output  string // fully qualified message names
	serverStreamed bool
}

type protoMessage struct {
	name, comment string
	fields        []*protoField
	nested        []*protoMessage
	reserved      []int
	reservedNames []string
}

type protoField struct {
	name, jsonName, typ, comment string
	number                       int
	label                        string // "", "repeated", "optional"
}

type protoEnum struct {
	name, comment string
	values        []string
}

// committedNumbers are the field numbers and reservations of the committed
// files, by message full name; and the message names of the committed rpcs.
type committedNumbers struct {
	fields   map[string]map[string]int // message -> field -> number
	reserved map[string][]int
	names    map[string][]string // message -> reserved names
	rpcIn    map[string]string   // "pkg.Service/Method" -> input message (short name)
	rpcOut   map[string]string
}

// CompileProto compiles .proto files (path -> content) with the standard
// imports, for the server and the tests.
func CompileProto(ctx context.Context, files map[string][]byte) ([]protoreflect.FileDescriptor, error) {
	srcs := make(map[string]string, len(files))
	names := make([]string, 0, len(files))
	for p, b := range files {
		srcs[p] = string(b)
		names = append(names, p)
	}
	sort.Strings(names)
	c := protocompile.Compiler{
		Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(srcs)}),
	}
	res, err := c.Compile(ctx, names...)
	if err != nil {
		return nil, err
	}
	out := make([]protoreflect.FileDescriptor, len(res))
	for i, f := range res {
		out[i] = f
	}
	return out, nil
}

// ReadProtoFiles reads the .proto files under dir of fsys, by their path
// relative to dir.
func ReadProtoFiles(fsys fs.FS, dir string) (map[string][]byte, error) {
	files := map[string][]byte{}
	err := fs.WalkDir(fsys, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".proto") {
			return err
		}
		b, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		rel := strings.TrimPrefix(strings.TrimPrefix(p, dir), "/")
		files[rel] = b
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return files, nil
	}
	return files, err
}

func readCommitted(ctx context.Context, files map[string][]byte) (*committedNumbers, error) {
	c := &committedNumbers{fields: map[string]map[string]int{}, reserved: map[string][]int{}, names: map[string][]string{},
		rpcIn: map[string]string{}, rpcOut: map[string]string{}}
	if len(files) == 0 {
		return c, nil
	}
	fds, err := CompileProto(ctx, files)
	if err != nil {
		return nil, fmt.Errorf("the committed .proto files: %w", err)
	}
	var walk func(msgs protoreflect.MessageDescriptors)
	walk = func(msgs protoreflect.MessageDescriptors) {
		for i := 0; i < msgs.Len(); i++ {
			m := msgs.Get(i)
			name := string(m.FullName())
			nums := map[string]int{}
			for j := 0; j < m.Fields().Len(); j++ {
				f := m.Fields().Get(j)
				nums[string(f.Name())] = int(f.Number())
			}
			c.fields[name] = nums
			for j := 0; j < m.ReservedRanges().Len(); j++ {
				r := m.ReservedRanges().Get(j)
				for n := r[0]; n < r[1]; n++ {
					c.reserved[name] = append(c.reserved[name], int(n))
				}
			}
			for j := 0; j < m.ReservedNames().Len(); j++ {
				c.names[name] = append(c.names[name], string(m.ReservedNames().Get(j)))
			}
			walk(m.Messages())
		}
	}
	for _, fd := range fds {
		walk(fd.Messages())
		for i := 0; i < fd.Services().Len(); i++ {
			s := fd.Services().Get(i)
			for j := 0; j < s.Methods().Len(); j++ {
				m := s.Methods().Get(j)
				key := string(s.FullName()) + "/" + string(m.Name())
				c.rpcIn[key] = string(m.Input().Name())
				c.rpcOut[key] = string(m.Output().Name())
			}
		}
	}
	return c, nil
}

// protoGen holds the state of one generation.
type protoGen struct {
	committed *committedNumbers
	names     *codec.ComponentNames
	types     *protoFile
	// byType is the proto name of each named Go type made so far.
	byType map[reflect.Type]string
	owner  map[string]reflect.Type // proto name -> Go type
	// enumValues guards the package scope of enum values (protobuf's
	// C++ scoping: the values of every enum share the package's scope).
	enumValues map[string]string
}

// BuildProto derives the .proto files (path -> content) of the operations,
// keeping the field numbers of committed (the files as committed under
// proto/, path -> content; empty for a first generation).
func BuildProto(ctx context.Context, ops []api.Operation, committed map[string][]byte) (map[string][]byte, error) {
	cn, err := readCommitted(ctx, committed)
	if err != nil {
		return nil, err
	}
	var roots []reflect.Type
	for _, op := range ops {
		roots = append(roots, op.Request)
		if op.Response != nil {
			roots = append(roots, op.Response)
		}
	}
	names, err := codec.NewComponentNames(roots...)
	if err != nil {
		return nil, err
	}
	g := &protoGen{committed: cn, names: names, byType: map[reflect.Type]string{}, owner: map[string]reflect.Type{}, enumValues: map[string]string{},
		types: &protoFile{path: typesFile, pkg: TypesPackage, imports: map[string]bool{}}}

	files := map[string]*protoFile{}
	var order []string
	services := map[string]*protoService{}
	// rpc message names must be unique in a package: <Method>Request unless
	// another service of the package has the method too.
	methodCount := map[string]int{}
	for _, op := range ops {
		methodCount[op.Package+"."+op.Method]++
	}
	taken := map[string]string{} // full message name -> rpc that made it
	for _, op := range ops {
		fp := strings.ReplaceAll(op.Package, ".", "/") + "/" + codec.SnakeCase(op.Service) + ".proto"
		f := files[fp]
		if f == nil {
			f = &protoFile{path: fp, pkg: op.Package, imports: map[string]bool{}}
			files[fp] = f
			order = append(order, fp)
		}
		svc := services[op.Package+"."+op.Service]
		if svc == nil {
			svc = &protoService{name: op.Service}
			services[op.Package+"."+op.Service] = svc
			f.services = append(f.services, svc)
		}
		key := op.Package + "." + op.Service + "/" + op.Method
		inName, outName := op.Method+"Request", op.Method+"Response"
		if methodCount[op.Package+"."+op.Method] > 1 {
			inName, outName = op.Service+inName, op.Service+outName
		}
		if n := cn.rpcIn[key]; n != "" {
			inName = n
		}
		if n := cn.rpcOut[key]; n != "" {
			outName = n
		}
		for _, n := range []string{inName, outName} {
			if other, dup := taken[op.Package+"."+n]; dup {
				return nil, fmt.Errorf("proto: message %s.%s is the message of both %s and %s", op.Package, n, other, key)
			}
			taken[op.Package+"."+n] = key
		}
		in, err := g.rpcMessage(f, inName, op.Request)
		if err != nil {
			return nil, fmt.Errorf("%s request: %w", key, err)
		}
		var out *protoMessage
		if op.Response == nil { // a file: its bytes, name and media type
			out = g.fileMessage(f, outName, op.ContentType)
		} else if out, err = g.rpcMessage(f, outName, op.Response); err != nil {
			return nil, fmt.Errorf("%s response: %w", key, err)
		}
		f.messages = append(f.messages, in, out)
		svc.methods = append(svc.methods, &protoMethod{name: op.Method, comment: rpcComment(op),
			input: op.Package + "." + inName, output: op.Package + "." + outName, serverStreamed: op.Streaming()})
	}
	out := map[string][]byte{}
	for _, fp := range order {
		out[fp] = files[fp].render()
	}
	out[typesFile] = g.types.render()
	return out, nil
}

func rpcComment(op api.Operation) string {
	var sb strings.Builder
	sb.WriteString(op.Summary)
	if op.Description != "" {
		sb.WriteString("\n\n" + op.Description)
	}
	switch {
	case op.Streaming():
		sb.WriteString("\n\nREST: none (a server stream: native gRPC and gRPC-Web only)")
	case op.GRPCOnly:
		sb.WriteString("\n\nREST: none (section 8 of the interface: native gRPC and gRPC-Web only)")
	default:
		sb.WriteString("\n\nREST: " + op.Verb + " " + op.Path())
		if op.Verb == http.MethodGet {
			sb.WriteString(" (the request's fields in the query string)")
		}
	}
	switch op.Security {
	case api.NoToken:
		sb.WriteString("\nAuthorization: none")
	case api.RefreshToken:
		sb.WriteString("\nAuthorization: Bearer <refresh token>")
	case api.GroupToken:
		sb.WriteString("\nAuthorization: Bearer <group token>")
	case api.OptionalAccessToken:
		sb.WriteString("\nAuthorization: Bearer <access token> when acting for another account, none otherwise")
	default:
		sb.WriteString("\nAuthorization: Bearer <access token>")
	}
	if op.Scope != "" {
		sb.WriteString("; scope " + op.Scope)
	}
	if op.Org != "" {
		sb.WriteString("; " + op.Org + " accounts only")
	}
	if op.Idempotent() && !op.Streaming() {
		sb.WriteString("\nIdempotency-Key: optional metadata that makes a retry safe")
	}
	if op.Deprecated {
		sb.WriteString("\nDeprecated.")
	}
	return sb.String()
}

// rpcMessage is the request or response message of an rpc: the fields of
// the Go type t, in the rpc's file.
func (g *protoGen) rpcMessage(f *protoFile, name string, t reflect.Type) (*protoMessage, error) {
	d, err := codec.Describe(t)
	if err != nil {
		return nil, err
	}
	if d.Shape != codec.ShapeMessage {
		return nil, fmt.Errorf("proto: %v is not a struct", t)
	}
	return g.message(f, f.pkg+"."+name, name, d)
}

// fileMessage answers a download over gRPC: the file's content, name and
// media type (REST streams it with Content-Type and Content-Disposition).
func (g *protoGen) fileMessage(f *protoFile, name, contentType string) *protoMessage {
	m := &protoMessage{name: name, comment: "The file (" + contentType + ")."}
	g.fields(f.pkg+"."+name, m, []*protoField{
		{name: "data", jsonName: "data", typ: "bytes", comment: "The file's content."},
		{name: "file_name", jsonName: "fileName", typ: "string", comment: "The file's name, when it has one."},
		{name: "content_type", jsonName: "contentType", typ: "string", comment: "The file's media type."},
	})
	return m
}

// message builds the message full (short name name) with d's fields; f is
// the file that will hold it (for imports).
func (g *protoGen) message(f *protoFile, full, name string, d *codec.Desc) (*protoMessage, error) {
	m := &protoMessage{name: name}
	var fields []*protoField
	for _, fd := range d.Fields {
		pf := &protoField{name: codec.SnakeCase(fd.Name), jsonName: fd.Name, comment: fd.Doc}
		if !validIdent(pf.name) {
			return nil, fmt.Errorf("proto: field %q of %v is no proto identifier", fd.Name, d.Type)
		}
		t := fd.Type
		switch t.Shape {
		case codec.ShapeList:
			pf.label = "repeated"
			t = t.Elem
			if t.Shape == codec.ShapePointer {
				t = t.Elem
			}
			if t.Shape == codec.ShapeList || t.Shape == codec.ShapeMap {
				return nil, fmt.Errorf("proto: field %q of %v: a list of lists or maps has no proto form", fd.Name, d.Type)
			}
		case codec.ShapePointer:
			t = t.Elem
			switch t.Shape {
			case codec.ShapeList, codec.ShapeMap, codec.ShapePointer:
				return nil, fmt.Errorf("proto: field %q of %v: a pointer to a list or map has no proto form", fd.Name, d.Type)
			case codec.ShapeMessage, codec.ShapeTime, codec.ShapeRaw, codec.ShapeAny, codec.ShapeObject:
				// messages have presence of their own
			default:
				pf.label = "optional"
			}
		case codec.ShapeMap:
			v := t.Elem
			if v.Shape == codec.ShapePointer {
				v = v.Elem
			}
			if v.Shape == codec.ShapeList || v.Shape == codec.ShapeMap {
				return nil, fmt.Errorf("proto: field %q of %v: a map of lists or maps has no proto form", fd.Name, d.Type)
			}
			vt, err := g.typeName(f, m, full, fd.Name, v)
			if err != nil {
				return nil, err
			}
			pf.typ = "map<string, " + vt + ">"
			fields = append(fields, pf)
			continue
		}
		typ, err := g.typeName(f, m, full, fd.Name, t)
		if err != nil {
			return nil, err
		}
		pf.typ = typ
		fields = append(fields, pf)
	}
	g.fields(full, m, fields)
	return m, nil
}

// fields numbers fields as the committed message full did and adds them
// to m, with the committed fields that are gone reserved.
func (g *protoGen) fields(full string, m *protoMessage, fields []*protoField) {
	old := g.committed.fields[full]
	used := map[int]bool{}
	next := 1
	for _, n := range old {
		used[n] = true
		next = max(next, n+1)
	}
	for _, n := range g.committed.reserved[full] {
		used[n] = true
		next = max(next, n+1)
	}
	present := map[string]bool{}
	for _, pf := range fields {
		present[pf.name] = true
		if n, ok := old[pf.name]; ok {
			pf.number = n
			continue
		}
		pf.number = next
		next++
	}
	m.reserved = append(m.reserved, g.committed.reserved[full]...)
	m.reservedNames = append(m.reservedNames, g.committed.names[full]...)
	for name, n := range old {
		if !present[name] {
			m.reserved = append(m.reserved, n)
			m.reservedNames = append(m.reservedNames, name)
		}
	}
	sort.Ints(m.reserved)
	sort.Strings(m.reservedNames)
	m.fields = fields
}

// typeName is the proto type of a field of message full (m) of Go shape d,
// making the named messages and enums it needs.
func (g *protoGen) typeName(f *protoFile, m *protoMessage, full, field string, d *codec.Desc) (string, error) {
	switch d.Shape {
	case codec.ShapeBool:
		return "bool", nil
	case codec.ShapeInt32:
		return "int32", nil
	case codec.ShapeUint32:
		return "uint32", nil
	case codec.ShapeInt64:
		return "int64", nil
	case codec.ShapeUint64:
		return "uint64", nil
	case codec.ShapeFloat:
		return "float", nil
	case codec.ShapeDouble:
		return "double", nil
	case codec.ShapeString:
		return "string", nil
	case codec.ShapeBytes:
		return "bytes", nil
	case codec.ShapeTime:
		f.imports["google/protobuf/timestamp.proto"] = true
		return "google.protobuf.Timestamp", nil
	case codec.ShapeRaw, codec.ShapeAny:
		f.imports["google/protobuf/struct.proto"] = true
		return "google.protobuf.Value", nil
	case codec.ShapeObject:
		f.imports["google/protobuf/struct.proto"] = true
		return "google.protobuf.Struct", nil
	case codec.ShapeEnum:
		name, err := g.named(d)
		if err != nil {
			return "", err
		}
		if f != g.types {
			f.imports[typesFile] = true
		}
		return TypesPackage + "." + name, nil
	case codec.ShapeMessage:
		if d.Name == "" { // an anonymous struct: a message nested in its field's message
			name := pascal(field)
			nm, err := g.message(f, full+"."+name, name, d)
			if err != nil {
				return "", err
			}
			m.nested = append(m.nested, nm)
			return name, nil
		}
		name, err := g.named(d)
		if err != nil {
			return "", err
		}
		if f != g.types {
			f.imports[typesFile] = true
		}
		return TypesPackage + "." + name, nil
	}
	return "", fmt.Errorf("proto: no proto type for %v in %s", d.Type, full)
}

// named makes the shared message or enum of a named Go type, once, and
// returns its name.
func (g *protoGen) named(d *codec.Desc) (string, error) {
	if n, ok := g.byType[d.Type]; ok {
		return n, nil
	}
	name := ProtoName(g.names.ComponentName(d.Type), d.Type)
	if other, dup := g.owner[name]; dup {
		return "", fmt.Errorf("proto: %v and %v would both be message %s", other, d.Type, name)
	}
	g.owner[name] = d.Type
	g.byType[d.Type] = name
	if d.Shape == codec.ShapeEnum {
		e := &protoEnum{name: name}
		for i, v := range d.EnumNames {
			if !validIdent(v) {
				return "", fmt.Errorf("proto: enum %v value %d %q is no proto identifier", d.Type, i, v)
			}
			if other, dup := g.enumValues[v]; dup {
				return "", fmt.Errorf("proto: enum value %s of %s is a value of %s too (enum values share their package's scope)", v, name, other)
			}
			g.enumValues[v] = name
			e.values = append(e.values, v)
		}
		g.types.enums = append(g.types.enums, e)
		return name, nil
	}
	m, err := g.message(g.types, TypesPackage+"."+name, name, d)
	if err != nil {
		return "", err
	}
	g.types.messages = append(g.types.messages, m)
	return name, nil
}

// ProtoName makes a component name a proto message name: "pkg.Name"
// becomes PkgName; a generic instantiation ("Page[path/pkg.Entry]") is
// named by its base name and its type arguments' names (PageEntry).
func ProtoName(component string, t reflect.Type) string {
	parts := []string{component}
	if strings.Contains(t.Name(), "[") {
		base := codec.BaseName(t)
		parts = []string{base}
		for _, a := range strings.FieldsFunc(t.Name()[len(base):], func(r rune) bool { return r == '[' || r == ']' || r == ',' }) {
			parts = append(parts, a[strings.LastIndexAny(a, "./")+1:])
		}
	}
	var sb strings.Builder
	for _, p := range parts {
		for _, w := range strings.FieldsFunc(p, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			sb.WriteString(pascal(w))
		}
	}
	return sb.String()
}

func pascal(s string) string {
	if s == "" {
		return s
	}
	var sb strings.Builder
	up := true
	for _, r := range s {
		if r == '_' || r == '-' || r == '.' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

func validIdent(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// protocJSONName is the JSON name protoc gives a field name.
func protocJSONName(s string) string {
	var sb strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		sb.WriteRune(r)
	}
	return sb.String()
}

const protoHeader = "// Code generated by `wasteflow proto` from the operation table and the request and\n" +
	"// response types (the declaration the REST routes and the OpenAPI description come\n" +
	"// from too). DO NOT EDIT: run `make proto`. Field numbers are kept from the committed\n" +
	"// copy; a removed field's number and name are reserved.\n\n"

func (f *protoFile) render() []byte {
	var b bytes.Buffer
	b.WriteString(protoHeader)
	b.WriteString("syntax = \"proto3\";\n\npackage " + f.pkg + ";\n")
	if len(f.imports) > 0 {
		b.WriteString("\n")
		imps := make([]string, 0, len(f.imports))
		for i := range f.imports {
			imps = append(imps, i)
		}
		sort.Strings(imps)
		for _, i := range imps {
			b.WriteString("import \"" + i + "\";\n")
		}
	}
	for _, s := range f.services {
		b.WriteString("\n")
		comment(&b, "", "The "+s.name+" operations of "+f.pkg+".")
		b.WriteString("service " + s.name + " {\n")
		for i, m := range s.methods {
			if i > 0 {
				b.WriteString("\n")
			}
			comment(&b, "  ", m.comment)
			in, out := strings.TrimPrefix(m.input, f.pkg+"."), strings.TrimPrefix(m.output, f.pkg+".")
			if m.serverStreamed {
				out = "stream " + out
			}
			b.WriteString("  rpc " + m.name + "(" + in + ") returns (" + out + ");\n")
		}
		b.WriteString("}\n")
	}
	msgs := append([]*protoMessage(nil), f.messages...)
	if f.path == typesFile {
		sort.Slice(msgs, func(i, j int) bool { return msgs[i].name < msgs[j].name })
	}
	enums := append([]*protoEnum(nil), f.enums...)
	sort.Slice(enums, func(i, j int) bool { return enums[i].name < enums[j].name })
	for _, e := range enums {
		b.WriteString("\n")
		comment(&b, "", e.comment)
		b.WriteString("enum " + e.name + " {\n")
		for i, v := range e.values {
			fmt.Fprintf(&b, "  %s = %d;\n", v, i)
		}
		b.WriteString("}\n")
	}
	for _, m := range msgs {
		b.WriteString("\n")
		m.render(&b, "")
	}
	return b.Bytes()
}

func (m *protoMessage) render(b *bytes.Buffer, indent string) {
	comment(b, indent, m.comment)
	b.WriteString(indent + "message " + m.name + " {")
	if len(m.fields) == 0 && len(m.nested) == 0 && len(m.reserved) == 0 {
		b.WriteString("}\n")
		return
	}
	b.WriteString("\n")
	in := indent + "  "
	for _, n := range m.nested {
		n.render(b, in)
	}
	if len(m.reserved) > 0 {
		nums := make([]string, len(m.reserved))
		for i, n := range m.reserved {
			nums[i] = fmt.Sprint(n)
		}
		b.WriteString(in + "reserved " + strings.Join(nums, ", ") + ";\n")
	}
	if len(m.reservedNames) > 0 {
		b.WriteString(in + "reserved \"" + strings.Join(m.reservedNames, "\", \"") + "\";\n")
	}
	for _, f := range m.fields {
		comment(b, in, f.comment)
		label := ""
		if f.label != "" {
			label = f.label + " "
		}
		opt := ""
		if protocJSONName(f.name) != f.jsonName {
			opt = fmt.Sprintf(" [json_name = %q]", f.jsonName)
		}
		fmt.Fprintf(b, "%s%s%s %s = %d%s;\n", in, label, f.typ, f.name, f.number, opt)
	}
	b.WriteString(indent + "}\n")
}

func comment(b *bytes.Buffer, indent, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " ")
		if line == "" {
			b.WriteString(indent + "//\n")
			continue
		}
		b.WriteString(indent + "// " + line + "\n")
	}
}
