// Package contract derives wasteflow's published contract from the
// operation table (package api) and the codec's analysis of the request
// and response types: the OpenAPI description (BuildOpenAPI) and the
// .proto files of the RPC face (BuildProto, with the committed field
// numbers kept). The server serves what it builds; wasteflow proto and
// make proto write the files. What is derived from one declaration
// cannot disagree with it.
package contract

import (
	"context"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/getkin/kin-openapi/openapi3"
	"gopkg.in/yaml.v3"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/rules"
)

const apiDescription = `wasteflow: electronic handling of transboundary waste shipments (Regulation (EU) 2024/1157) and
German transport documents (BMU XML), as a declarative state-machine workflow server.

The REST face follows grpc-gateway v2 with its default marshaler:

* Paths are /<package>.<Service>/<Method>; POST with a JSON body unless stated. GET operations take their
  fields from the query string (dotted paths, lowerCamelCase or snake_case, repeated keys for lists).
* Every call except DiscoveryApi/ListProvider needs the provider_id header. A missing, unknown or
  other-environment provider_id answers HTTP 501 with code 12 and a message beginning "Bad gRPC response".
* JSON follows the proto3 mapping: lowerCamelCase out, lowerCamelCase or snake_case in, unknown fields
  ignored, every field emitted, int64 as decimal strings (numbers accepted on input), enums by name
  (names or numbers accepted on input), bytes as base64, timestamps RFC 3339 in UTC.
* Errors are {code, message, details} with the gRPC code; HTTP status by the gateway's mapping
  (3, 9, 11: 400; 5: 404; 6, 10: 409; 7: 403; 8: 429, or 413 for a body over the limit; 12: 501; 14: 503;
  16: 401; 2, 13, 15: 500). Business rejections are not errors: HTTP 200 with businessErrors.
* Request bodies are limited to %d bytes.
* Every response carries X-Request-Id (echoed when sent, generated otherwise).`

// BuildOpenAPI derives the OpenAPI 3.0.3 description from the operation
// table and the request and response types.
func BuildOpenAPI(ops []api.Operation, plains []api.PlainPath, cfg *configs.Config) (*openapi3.T, error) {
	doc := &openapi3.T{
		OpenAPI: "3.0.3",
		Info: &openapi3.Info{
			Title:       "wasteflow",
			Version:     "1.0.0",
			Description: fmt.Sprintf(apiDescription, cfg.BodyLimit),
		},
		Servers: openapi3.Servers{{URL: "/"}},
		Paths:   openapi3.NewPaths(),
		Components: &openapi3.Components{
			Schemas: openapi3.Schemas{},
			SecuritySchemes: openapi3.SecuritySchemes{
				"AccessToken": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type: "http", Scheme: "bearer", BearerFormat: "JWT",
					Description: accessTokenDescription(),
				}},
				"RefreshToken": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type: "http", Scheme: "bearer", BearerFormat: "JWT",
					Description: "Single-use refresh token from AuthApi/IssueRefreshToken or RequestAccess; only for RequestAccess.",
				}},
				"GroupToken": &openapi3.SecuritySchemeRef{Value: &openapi3.SecurityScheme{
					Type: "http", Scheme: "bearer", BearerFormat: "JWT",
					Description: "Group token from RegisteredGroupAuthApi/Login; only for notifier operations.",
				}},
			},
			Parameters: openapi3.ParametersMap{
				"IdempotencyKey": &openapi3.ParameterRef{Value: &openapi3.Parameter{
					Name: "Idempotency-Key", In: openapi3.ParameterInHeader,
					Description: "Makes a retry safe: the first request with a key runs and its answer is kept, in the transaction of its effect, for " +
						"WASTEFLOW_IDEMPOTENCY_RETENTION (24 h); the same key with the same request answers that again (header Idempotent-Replay: true) without " +
						"a second effect; the same key with another request is refused (409, code 6, IDEMPOTENCY_KEY_REUSED); concurrent requests with one " +
						"key run once. Keys are scoped to the caller: the provider, the organisation and the session (a login and the tokens refreshed from it; " +
						"a notifier group for group tokens), so another session's key of the same name is its own; at most 200 characters. A request that fails keeps " +
						"nothing (it had no effect), so its retry runs again.",
					Schema: openapi3.NewStringSchema().WithMaxLength(200).NewRef(),
				}},
				"ProviderId": &openapi3.ParameterRef{Value: &openapi3.Parameter{
					Name: "provider_id", In: openapi3.ParameterInHeader, Required: true,
					Description: "Provider of this host's environment (see DiscoveryApi/ListProvider).",
					Schema:      openapi3.NewStringSchema().NewRef(),
				}},
			},
		},
		Security: openapi3.SecurityRequirements{{"AccessToken": []string{}}},
	}
	comps := doc.Components.Schemas
	comps["Status"] = statusSchema()
	errResponse := &openapi3.ResponseRef{Value: openapi3.NewResponse().
		WithDescription("An error: gRPC code, message and details; the HTTP status follows the code.").
		WithJSONSchemaRef(&openapi3.SchemaRef{Ref: "#/components/schemas/Status"})}

	badRequest := &openapi3.ResponseRef{Value: openapi3.NewResponse().
		WithDescription("The request cannot be taken: malformed JSON, a field of the wrong type or a required field missing (code 3), or a state that does not permit the intent (code 9).").
		WithJSONSchemaRef(&openapi3.SchemaRef{Ref: "#/components/schemas/Status"})}

	// First pass: every Go type in the description, so component names are
	// fixed before any schema is built (a name shared by types of different
	// packages is qualified for all of them, whatever the operation order).
	//
	// Requests and responses get different schemas for one message type.
	// The server emits every field, so in a response every property is
	// required (a client may rely on its presence, null included); a
	// client may leave any field out of a request (proto3), and clients
	// send back what they read (SetByIntent takes the container GetDocument
	// answered), so a request schema requires only the fields tagged
	// required. A message both use has two components: the request form
	// under its name, the response form as <name>-Output; a message only
	// responses use has its response form under its name (codec.
	// ResponseSchemaRef). So requests stay lenient and responses strict,
	// without a second set of Go types.
	ops = slices.DeleteFunc(slices.Clone(ops), func(op api.Operation) bool { return op.NoREST() }) // streams and section 8: gRPC only
	var reqRoots, respRoots []reflect.Type
	for _, op := range ops {
		reqRoots = append(reqRoots, op.Request)
		if op.Response != nil {
			respRoots = append(respRoots, op.Response)
		}
	}
	compNames, err := codec.NewComponentNamesFor(reqRoots, respRoots)
	if err != nil {
		return nil, fmt.Errorf("component schema names: %w", err)
	}

	tags := map[string]bool{}
	for _, op := range ops {
		o := &openapi3.Operation{
			OperationID: op.Service + "_" + op.Method,
			Tags:        []string{op.Package + "." + op.Service},
			Summary:     op.Summary,
			Description: op.Description,
			Deprecated:  op.Deprecated,
			Responses:   openapi3.NewResponses(),
		}
		tags[op.Package+"."+op.Service] = true
		if op.Org != "" {
			o.Description = strings.TrimSpace(o.Description + "\n\nFor " + op.Org + " accounts only (403, code 7, WRONG_ORGANISATION_KIND, for others).")
			o.Extensions = map[string]any{"x-organisation-kind": op.Org}
		}
		if op.Scope != "" {
			o.Description = strings.TrimSpace(o.Description + "\n\nRequires the scope `" + op.Scope + "` in the access token (403, code 7, INSUFFICIENT_SCOPE, without it).")
			if o.Extensions == nil {
				o.Extensions = map[string]any{}
			}
			o.Extensions["x-scope"] = op.Scope
		}
		switch op.Security {
		case api.NoToken:
			o.Security = &openapi3.SecurityRequirements{}
		case api.RefreshToken:
			o.Security = &openapi3.SecurityRequirements{{"RefreshToken": []string{}}}
		case api.GroupToken:
			o.Security = &openapi3.SecurityRequirements{{"GroupToken": []string{}}}
		case api.OptionalAccessToken:
			o.Security = &openapi3.SecurityRequirements{{}, {"AccessToken": []string{}}}
		}
		if !op.NoProvider {
			o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Ref: "#/components/parameters/ProviderId"})
		}
		if op.Idempotent() {
			o.Parameters = append(o.Parameters, &openapi3.ParameterRef{Ref: "#/components/parameters/IdempotencyKey"})
		}
		reqRef, err := compNames.SchemaRef(op.Request, comps)
		if err != nil {
			return nil, fmt.Errorf("%s request: %w", op.FullName(), err)
		}
		if op.Verb == http.MethodGet {
			params, err := queryParameters(reqRef, comps, "")
			if err != nil {
				return nil, fmt.Errorf("%s query: %w", op.FullName(), err)
			}
			o.Parameters = append(o.Parameters, params...)
		} else {
			o.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().
				WithDescription("An empty body is an empty request.").
				WithJSONSchemaRef(reqRef)}
		}
		if op.IsDownload() && op.Response != nil { // a JSON answer written as a stream
			respRef, err := compNames.ResponseSchemaRef(op.Response, comps)
			if err != nil {
				return nil, fmt.Errorf("%s response: %w", op.FullName(), err)
			}
			o.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("OK (streamed)").WithJSONSchemaRef(respRef)})
		} else if op.IsDownload() {
			ct := op.ContentType
			if mt, _, err := mime.ParseMediaType(ct); err == nil {
				ct = mt
			}
			o.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("The file, streamed.").
				WithContent(openapi3.NewContentWithSchema(openapi3.NewStringSchema(), []string{ct}))})
		} else {
			respRef, err := compNames.ResponseSchemaRef(op.Response, comps)
			if err != nil {
				return nil, fmt.Errorf("%s response: %w", op.FullName(), err)
			}
			o.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("OK").WithJSONSchemaRef(respRef)})
		}
		o.Responses.Set("400", badRequest)
		o.Responses.Set("default", errResponse)
		doc.AddOperation(op.Path(), op.Verb, o)
	}
	for _, p := range plains {
		o := &openapi3.Operation{
			OperationID: "Ops_" + strings.TrimPrefix(strings.NewReplacer(".", "_", "/", "_").Replace(p.Path), "_"),
			Tags:        []string{"operations"},
			Summary:     p.Summary, Description: p.Description,
			Security:  &openapi3.SecurityRequirements{},
			Responses: openapi3.NewResponses(),
		}
		ct, schema := p.ContentType, openapi3.NewStringSchema()
		if mt, _, err := mime.ParseMediaType(ct); err == nil {
			ct = mt // the description names media types without parameters
		}
		if ct == "" {
			ct, schema = "application/json", openapi3.NewObjectSchema()
		}
		content := openapi3.NewContentWithSchema(schema, []string{ct})
		for _, also := range p.Also {
			content[also] = openapi3.NewMediaType().WithSchema(openapi3.NewStringSchema().WithFormat("binary"))
		}
		o.Responses.Set("200", &openapi3.ResponseRef{Value: openapi3.NewResponse().WithDescription("OK").WithContent(content)})
		o.Responses.Set("default", errResponse)
		if strings.Contains(p.Path, "/:") { // a token or page that is not there
			o.Responses.Set("404", errResponse)
		}
		path := OpenAPIPath(p.Path)
		for _, seg := range strings.Split(p.Path, "/") {
			if name, ok := strings.CutPrefix(seg, ":"); ok { // gin's parameter
				o.OperationID = strings.Replace(o.OperationID, seg, name, 1)
				o.AddParameter(openapi3.NewPathParameter(name).WithSchema(openapi3.NewStringSchema()))
			}
		}
		for _, q := range p.Query {
			o.AddParameter(openapi3.NewQueryParameter(q[0]).WithDescription(q[1]).WithSchema(openapi3.NewStringSchema()))
		}
		doc.AddOperation(path, http.MethodGet, o)
		if p.Post != nil {
			post := *o
			post.OperationID, post.Summary = o.OperationID+"_post", p.PostSummary
			post.RequestBody = &openapi3.RequestBodyRef{Value: openapi3.NewRequestBody().WithDescription("a form: the token t (or in the query), or List-Unsubscribe=One-Click").
				WithContent(openapi3.Content{"application/x-www-form-urlencoded": openapi3.NewMediaType().WithSchema(
					openapi3.NewObjectSchema().WithProperty("t", openapi3.NewStringSchema()).WithProperty("List-Unsubscribe", openapi3.NewStringSchema()))})}
			doc.AddOperation(path, http.MethodPost, &post)
		}
		tags["operations"] = true
	}
	names := make([]string, 0, len(tags))
	for t := range tags {
		names = append(names, t)
	}
	sort.Strings(names)
	for _, t := range names {
		doc.Tags = append(doc.Tags, &openapi3.Tag{Name: t})
	}
	if err := pruneSchemas(doc); err != nil {
		return nil, err
	}
	if err := openapi3.NewLoader().ResolveRefsIn(doc, nil); err != nil {
		return nil, err
	}
	if err := doc.Validate(context.Background()); err != nil {
		return nil, err
	}
	return doc, nil
}

// pruneSchemas drops component schemas nothing refers to: a GET
// operation's request type, whose fields became query parameters.
func pruneSchemas(doc *openapi3.T) error {
	// What the paths refer to, then what those schemas refer to, and so
	// on: one rendering of the paths and one of each schema (rendering the
	// whole description until nothing more drops took a tenth of a test
	// server's start).
	schemas := doc.Components.Schemas
	doc.Components.Schemas = nil
	raw, err := json.Marshal(doc)
	doc.Components.Schemas = schemas
	if err != nil {
		return err
	}
	reached := map[string]bool{}
	queue := schemaRefs(raw)
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if reached[name] {
			continue
		}
		reached[name] = true
		if s, ok := schemas[name]; ok {
			raw, err := json.Marshal(s)
			if err != nil {
				return err
			}
			queue = append(queue, schemaRefs(raw)...)
		}
	}
	for name := range schemas {
		if !reached[name] {
			delete(schemas, name)
		}
	}
	return nil
}

var schemaRef = regexp.MustCompile(`"#/components/schemas/([^"]+)"`)

// schemaRefs are the component schemas raw refers to.
func schemaRefs(raw []byte) []string {
	var out []string
	for _, m := range schemaRef.FindAllSubmatch(raw, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

func statusSchema() *openapi3.SchemaRef {
	detail := openapi3.NewObjectSchema().WithProperty("@type", openapi3.NewStringSchema())
	detail.AdditionalProperties = openapi3.AdditionalProperties{Has: openapi3.Ptr(true)}
	s := openapi3.NewObjectSchema().
		WithProperty("code", openapi3.NewInt32Schema()).
		WithProperty("message", openapi3.NewStringSchema()).
		WithProperty("details", openapi3.NewArraySchema().WithItems(detail))
	s.Required = []string{"code", "message", "details"}
	s.Description = "google.rpc.Status as grpc-gateway renders it. details holds google.rpc.BadRequest " +
		"(fieldViolations) and google.rpc.ErrorInfo (reason, domain, metadata) entries."
	return s.NewRef()
}

// queryParameters flattens a request schema into dotted query parameters,
// the way the gateway's query parser reads them.
func queryParameters(ref *openapi3.SchemaRef, comps openapi3.Schemas, prefix string) (openapi3.Parameters, error) {
	s := resolve(ref, comps)
	var out openapi3.Parameters
	names := make([]string, 0, len(s.Properties))
	for n := range s.Properties {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		prop := resolve(s.Properties[n], comps)
		path := prefix + n
		switch {
		case prop.Type.Is(openapi3.TypeObject) && len(prop.Properties) > 0:
			sub, err := queryParameters(s.Properties[n], comps, path+".")
			if err != nil {
				return nil, err
			}
			out = append(out, sub...)
		case prop.Type.Is(openapi3.TypeArray) && prop.Items != nil && resolve(prop.Items, comps).Type.Is(openapi3.TypeObject):
			continue // repeated messages cannot be set from a query string
		default:
			out = append(out, &openapi3.ParameterRef{Value: &openapi3.Parameter{
				Name: path, In: openapi3.ParameterInQuery, Schema: s.Properties[n],
				Explode: openapi3.Ptr(true), Description: prop.Description,
			}})
		}
	}
	return out, nil
}

func resolve(ref *openapi3.SchemaRef, comps openapi3.Schemas) *openapi3.Schema {
	for ref != nil && ref.Ref != "" {
		name := strings.TrimPrefix(ref.Ref, "#/components/schemas/")
		next, ok := comps[name]
		if !ok {
			break
		}
		ref = next
	}
	if ref == nil || ref.Value == nil {
		return &openapi3.Schema{}
	}
	if inner := codec.Unwrap(ref); inner != ref { // a nullable or described $ref
		return resolve(inner, comps)
	}
	return ref.Value
}

// MarshalYAML renders doc as YAML, keeping the JSON key order (with
// properties in form order: codec.OrderProperties).
func MarshalYAML(doc *openapi3.T) ([]byte, error) {
	js, err := doc.MarshalJSON()
	if err != nil {
		return nil, err
	}
	if js, err = codec.OrderProperties(js); err != nil {
		return nil, err
	}
	var node yaml.Node
	if err := yaml.Unmarshal(js, &node); err != nil {
		return nil, err
	}
	// JSON's flow style is unreadable as YAML; use block style throughout.
	var unflow func(n *yaml.Node)
	unflow = func(n *yaml.Node) {
		n.Style &^= yaml.FlowStyle
		if n.Kind == yaml.ScalarNode && n.Style&yaml.DoubleQuotedStyle != 0 {
			switch {
			case strings.Contains(n.Value, "\n"):
				n.Style = yaml.LiteralStyle
			case !needsQuotes(n.Value):
				n.Style &^= yaml.DoubleQuotedStyle
			}
		}
		for _, c := range n.Content {
			unflow(c)
		}
	}
	unflow(&node)
	return yaml.Marshal(&node)
}

// needsQuotes keeps quotes where a plain scalar would change type or meaning.
func needsQuotes(v string) bool {
	if plainText(v) {
		return false
	}
	var probe any
	if err := yaml.Unmarshal([]byte(v), &probe); err != nil {
		return true
	}
	s, ok := probe.(string)
	return !ok || s != v || strings.ContainsAny(v, ":#\n") || v == ""
}

// plainText is a quick answer for most of the description's strings
// (names, paths, prose): a letter first, then letters, digits, spaces and
// "_-./,()", no space last, and no word YAML reads as a boolean or null.
// Anything else is probed by the YAML decoder.
func plainText(v string) bool {
	if v == "" || !unicode.IsLetter(rune(v[0])) || v[len(v)-1] == ' ' {
		return false
	}
	for _, c := range v {
		if !(unicode.IsLetter(c) || unicode.IsDigit(c) || strings.ContainsRune(" _-./,()", c)) {
			return false
		}
	}
	switch strings.ToLower(v) {
	case "true", "false", "null", "yes", "no", "on", "off", "y", "n":
		return false
	}
	return true
}

// accessTokenDescription lists the scopes an access token can carry (an
// HTTP bearer scheme has no place for them in OpenAPI 3.0; each operation
// names its scope in x-scope and in its description).
func accessTokenDescription() string {
	var b strings.Builder
	b.WriteString("Short-lived access token from AuthApi/RequestAccess; the default for every operation. It carries scopes " +
		"(its session's application's scopes intersected with its account's); each operation needs the one it names (x-scope):\n")
	for _, sc := range rules.Scopes {
		b.WriteString("\n- `" + sc.Name + "`: " + sc.Description)
	}
	b.WriteString("\n\nThe document faces serve one kind of organisation each (x-organisation-kind): CompanyDocumentApi companies, " +
		"AuthorityDocumentApi authorities. A token without the scope, or of the other kind of organisation, gets 403, code 7.")
	return b.String()
}

// OpenAPIPath writes gin's path parameters (:token) as OpenAPI's ({token}).
func OpenAPIPath(p string) string {
	segs := strings.Split(p, "/")
	for i, seg := range segs {
		if name, ok := strings.CutPrefix(seg, ":"); ok {
			segs[i] = "{" + name + "}"
		}
	}
	return strings.Join(segs, "/")
}
