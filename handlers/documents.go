package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/movements"
	"github.com/wasteflow/wasteflow/workflows/notifications"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// The operations every document kind shares: the follow-up intents and
// business errors of every answer, SetByIntent and GetDocument. Nothing
// here names a kind: kinds come from the runner's registry.

const pkgDiwass = "svc.bxa.diwass.v1.api"

// FollowUpIntent is an intent the caller may fire now.
type FollowUpIntent struct {
	Intent    string     `json:"intent" label:"Action|Aktion"` // values and meanings derived from the machines: see describeDomain
	Operation string     `json:"operation" doc:"REST path of the operation that executes it" label:"Operation|Operation"`
	Block     string     `json:"block" doc:"the retrieval document's block it takes" label:"Form block|Formularblock"`
	DueAt     *time.Time `json:"dueAt" doc:"the open deadline this action meets, if any" label:"Due by|Fällig bis"`
}

// BusinessError is a business rejection: the request was understood, but it
// breaks a waste-shipment rule; nothing changed.
type BusinessError struct {
	Code    string `json:"code" label:"Problem|Problem"` // values derived from the rules: see describeDomain
	Message string `json:"message" label:"What is wrong|Was nicht stimmt"`
	Field   string `json:"field" label:"Field|Feld"`
}

func followUps(v *documents.View) []FollowUpIntent { return followUpIntents(v.FollowUp) }

func followUpIntents(fs []documents.FollowUp) []FollowUpIntent {
	out := []FollowUpIntent{}
	for _, f := range fs {
		out = append(out, FollowUpIntent{Intent: f.Intent, Operation: f.Operation, Block: f.Block, DueAt: f.DueAt})
	}
	return out
}

func businessErrors(berrs []engine.BusinessError) []BusinessError {
	out := []BusinessError{}
	for _, b := range berrs {
		out = append(out, BusinessError(b))
	}
	return out
}

func needDocument(id string) error {
	if id == "" {
		return status.Invalid("documentId", "required")
	}
	return nil
}

// fireBlock fires the first of intents the state permits on a document of
// kind with block as its input.
func (s *Server) fireBlock(ctx context.Context, kind, id string, version *int64, block any, intents ...string) (*documents.View, []engine.BusinessError, error) {
	if err := needDocument(id); err != nil {
		return nil, nil, err
	}
	return s.docs.Fire(ctx, documents.Target{ID: id, Kinds: []string{kind}, Version: version}, intents, block)
}

// get reads a document of kind for its Get operation.
func (s *Server) get(ctx context.Context, kind, id string) (*documents.View, []engine.BusinessError, error) {
	if err := needDocument(id); err != nil {
		return nil, nil, err
	}
	v, err := s.docs.Get(ctx, id, kind)
	return v, nil, err
}

// SubmitAcknowledgementRequest is the request of ACKNOWLEDGEMENT, which
// notifications and movements declare for one operation: the id says
// which kind the document is.
type SubmitAcknowledgementRequest struct {
	DocumentRef     `json:",inline"`
	Acknowledgement n.Acknowledgement `json:"acknowledgement" label:"Acknowledge receipt|Eingang bestätigen"`
}

// submitAcknowledgement answers an acknowledgement of either kind: its
// response, SubmitAcknowledgementResponse, carries the notification in
// document or the movement in movement (the kinds' retrieval documents).
func (s *Server) submitAcknowledgement(o api.Operation) api.Operation {
	kind := func(name string) *documents.Kind {
		k, ok := s.docs.Kinds.Kind(name)
		if !ok {
			panic("handlers: SubmitAcknowledgement needs the kind " + name)
		}
		return k
	}
	ntf, mvt := kind(notifications.Kind), kind(movements.Kind)
	resp := madeStruct("SubmitAcknowledgementResponse",
		reflect.StructField{Name: "Document", Type: reflect.PointerTo(documentType(ntf)), Tag: `json:"document" doc:"the notification acknowledged; null for a movement" label:"Notification|Notifizierung"`},
		reflect.StructField{Name: "Movement", Type: reflect.PointerTo(documentType(mvt)), Tag: `json:"movement" doc:"the movement acknowledged; null for a notification" label:"Movement|Verbringung"`},
		reflect.StructField{Name: "FollowUpIntents", Type: reflect.TypeFor[[]FollowUpIntent](), Tag: followUpTag},
		reflect.StructField{Name: "BusinessErrors", Type: reflect.TypeFor[[]BusinessError](), Tag: businessErrorsTag})
	return api.Made(o, reflect.TypeFor[SubmitAcknowledgementRequest](), resp, func(ctx context.Context, req reflect.Value) (any, error) {
		r := req.Addr().Interface().(*SubmitAcknowledgementRequest)
		if err := needDocument(r.DocumentID); err != nil {
			return nil, err
		}
		v, berrs, err := s.docs.Fire(ctx, documents.Target{ID: r.DocumentID, Kinds: []string{ntf.Name(), mvt.Name()}, Version: r.Version},
			[]string{notifications.IntentAcknowledgement}, &r.Acknowledgement)
		if err != nil {
			return nil, err
		}
		out := reflect.New(resp).Elem()
		switch v.Kind {
		case ntf:
			out.Field(0).Set(reflect.ValueOf(v.Kind.Document(v)))
		case mvt:
			out.Field(1).Set(reflect.ValueOf(v.Kind.Document(v)))
		}
		out.Field(2).Set(reflect.ValueOf(followUps(v)))
		out.Field(3).Set(reflect.ValueOf(businessErrors(berrs)))
		return out.Addr().Interface(), nil
	})
}

// versionDescription closes the description of an operation that takes a
// DocumentRef (issue 44.12).
const versionDescription = " The version is required: the one you read. A request without it (left out, misspelt, 0) is refused (400, code 3, naming version), never taken without the check."

const intentsDescription = " Answers the retrieval document with the caller's followUpIntents; business rejections come as businessErrors in an HTTP 200 answer with nothing changed. " +
	"An intent the state does not permit: 400, code 9 (the message names the state and what is permitted; when a guard blocks it, e.g. a second decision " +
	"of one authority, the message says why and the ErrorInfo INTENT_NOT_PERMITTED carries guard and reason); a wrong party role: 403, code 7; " +
	"a document the caller is not a party to: 404, code 5; a stale version: 409, code 10."

type GetDocumentRequest struct {
	DocumentID string `json:"documentId" required:"true" label:"Document|Dokument"`
	// FullHistory: see documents.Latest.
	FullHistory bool `json:"fullHistory" doc:"every past exchange in the document's lists (a notification's corrections, acknowledgements, requests for information and for change, signals), not only the open ones and the 10 latest closed of each (exchangesOmitted counts those left out), and every time limit, not only those running or suspended and the 20 that ended latest (deadlinesOmitted). Our design (issue 49)." label:"Every past exchange|Alle früheren Vorgänge"`
}
type SetByIntentRequest struct {
	Document json.RawMessage `json:"document" required:"true" doc:"the document as a retrieval operation returned it, with the intent's block filled in (describeFaces names the operations)" label:"Document|Dokument"`
	Intent   string          `json:"intent" required:"true" doc:"one of the caller's current followUpIntents" label:"Action|Aktion"`
}

func (s *Server) getDocument(ctx context.Context, r *GetDocumentRequest) (any, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	get := s.docs.Get
	if r.FullHistory {
		get = func(ctx context.Context, id string, _ ...string) (*documents.View, error) {
			return s.docs.GetFullHistory(ctx, id)
		}
	}
	v, err := get(ctx, r.DocumentID)
	return s.contain(s.containers().get, v, nil, err)
}

// setByIntent executes intent with its block from the document, as the
// intent's own operation would: the kind comes from the document, the
// block from the intent's declaration.
func (s *Server) setByIntent(ctx context.Context, r *SetByIntentRequest) (any, error) {
	if r.Intent == "" {
		return nil, status.Invalid("intent", "required")
	}
	kind, doc, field, err := s.pickDocument(r.Document)
	if err != nil {
		var ce *codec.Error
		if errors.As(err, &ce) {
			return nil, status.Invalid(strings.TrimSuffix("document."+ce.Field, "."), ce.Reason)
		}
		return nil, err
	}
	in, ok := kind.Machine().Intent(r.Intent)
	if !ok || in.System || in.Block == "" {
		return nil, status.New(status.FailedPrecondition, "intent %q is not one of your follow-up intents", r.Intent).
			WithDetails(status.Info("INTENT_NOT_PERMITTED", map[string]string{"intent": r.Intent}))
	}
	id, version := docIdentity(doc)
	if id == "" {
		return nil, status.Invalid(field+".id", "required")
	}
	if version == nil {
		// The document is a copy as read: its version is what makes a
		// change made meanwhile refuse it (409). Without it (left out,
		// misspelt, 0) the copy would overwrite that change unseen.
		return nil, status.Invalid(field+".version", "required: the version of the document as read (versions start at 1); a change made meanwhile then refuses the copy with 409, code 10")
	}
	block, _ := kind.Block(doc, in) // the registry checked every block
	v, berrs, err := s.docs.Fire(ctx, documents.Target{ID: id, Kinds: []string{kind.Name()}, Version: version}, []string{r.Intent}, block)
	var se *status.Error
	if errors.As(err, &se) && se.Code == status.PermissionDenied {
		// Through SetByIntent a wrong role is just an intent not offered.
		return nil, status.New(status.FailedPrecondition, "intent %s is not one of your follow-up intents: %s", r.Intent, se.Message)
	}
	return s.contain(s.containers().byIntent, v, berrs, err)
}

// pickDocument finds the kind of a SetByIntent document and decodes it
// into the kind's document type, reading it once: a container (one field
// set, named by a kind's container key) or a kind's bare document (its id
// at the top, its kind in "kind"). field is the document's path in the
// request; a *codec.Error names its field below "document".
func (s *Server) pickDocument(raw json.RawMessage) (*documents.Kind, any, string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil, "", status.Invalid("document", "required")
	}
	var found *documents.Kind
	var doc any
	errBare := errors.New("bare")
	err := codec.UnmarshalMember(raw, func(key string) (any, error) {
		if key == "id" {
			return nil, errBare
		}
		k, ok := s.docs.Kinds.ByContainerKey(key)
		if !ok {
			return nil, nil // unknown fields are ignored
		}
		if k.NotByIntent {
			return nil, s.notByIntent("document."+key, k.Name())
		}
		if found != nil {
			return nil, status.Invalid("document", "exactly one sub-document must be set, not "+found.ContainerKey+" and "+key)
		}
		found, doc = k, reflect.New(k.DocumentType).Interface()
		return doc, nil
	})
	switch {
	case errors.Is(err, errBare): // a bare document (the retrieval document leads with its id): its kind says which
		var kind string
		_ = json.Unmarshal(codec.Member(raw, "kind"), &kind)
		k, ok := s.docs.Kinds.Kind(kind)
		if !ok || k.NotByIntent {
			return nil, nil, "", s.notByIntent("document.kind", kind)
		}
		doc = reflect.New(k.DocumentType).Interface()
		if err := codec.Unmarshal(raw, doc); err != nil {
			return nil, nil, "", err
		}
		return k, doc, "document", nil
	case err != nil:
		var ce *codec.Error
		if errors.As(err, &ce) && ce.Field == "" {
			return nil, nil, "", status.Invalid("document", "an object is required")
		}
		return nil, nil, "", err
	case found == nil:
		return nil, nil, "", status.Invalid("document", "no sub-document is set: send the document GetDocument returned")
	}
	return found, doc, "document." + found.ContainerKey, nil
}

func (s *Server) notByIntent(field, kind string) error {
	if k, ok := s.docs.Kinds.Kind(kind); (ok && k.NotByIntent) || kind == "MOVEMENT_DOCUMENT" {
		return status.New(status.FailedPrecondition, "%s documents are excluded from SetByIntent: use their own operations", strings.ToLower(strings.TrimSuffix(kind, "_DOCUMENT")))
	}
	var kinds []string
	for _, k := range s.docs.Kinds.Kinds() {
		if !k.NotByIntent {
			kinds = append(kinds, k.Name())
		}
	}
	return status.Invalidf(field, "%q is not a document kind SetByIntent takes (%s)", kind, strings.Join(kinds, ", "))
}

// docIdentity reads the id and version (nil when 0) of a retrieval document.
func docIdentity(doc any) (string, *int64) {
	v := reflect.ValueOf(doc).Elem()
	id, _ := v.FieldByName("ID").Interface().(string)
	version, _ := v.FieldByName("Version").Interface().(int64)
	if version == 0 {
		return id, nil
	}
	return id, &version
}

func (s *Server) sharedDocumentOperations() []api.Operation {
	if s.docs == nil {
		return nil
	}
	var kinds []string
	for _, k := range s.docs.Kinds.Kinds() {
		kinds = append(kinds, k.ContainerKey)
	}
	op := func(service, method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc}
	}
	const co, au = "CompanyDocumentApi", "AuthorityDocumentApi"
	byIntent := "Runs the intent's operation with the block the intent names (followUpIntents[].block) taken from the document, exactly as if that operation " +
		"had been called, with the document's version as the expected version (required: a document without its version is 400, code 3, naming it). The document is what GetDocument returned (the container: the server " +
		"picks the sub-document that is set, one of " + strings.Join(kinds, ", ") + ") or what the kind's Get operation returned, with the block filled in " +
		"and nothing else touched. The intent must be one of the caller's current followUpIntents (400, code 9 otherwise). " +
		"Movement documents are excluded (400, code 9). Answers in GetDocument's container." + intentsDescription
	_, gets, others := getMethods(s.docs.Kinds.Kinds())
	deprecatedGet := "Deprecated: use " + strings.Join(gets, " or ")
	if len(others) > 0 {
		deprecatedGet += " (" + strings.Join(others, ", ") + ")"
	}
	deprecatedGet += "."
	c := s.containers()
	byIntentOp := func(o api.Operation) api.Operation {
		return api.Made(o, reflect.TypeFor[SetByIntentRequest](), c.byIntent, func(ctx context.Context, r reflect.Value) (any, error) {
			return s.setByIntent(ctx, r.Addr().Interface().(*SetByIntentRequest))
		})
	}
	getOp := func(o api.Operation) api.Operation {
		return api.Made(o, reflect.TypeFor[GetDocumentRequest](), c.get, func(ctx context.Context, r reflect.Value) (any, error) {
			return s.getDocument(ctx, r.Addr().Interface().(*GetDocumentRequest))
		})
	}
	return []api.Operation{
		s.submitAcknowledgement(op(au, "SubmitAcknowledgement", "Acknowledge receipt of a notification or a movement document (ACKNOWLEDGEMENT)",
			"A notification: authority of destination only. Not consent. Stops ACKNOWLEDGEMENT_DUE and starts DECISION_DUE (30 days, Art. 9(1)) for every concerned authority. "+
				"In ACKNOWLEDGED it accepts a pending correction and restarts the decision periods. A movement (its id says so): any concerned authority, "+
				"SUBMITTED to ACKNOWLEDGED. The answer (our design) carries the notification in document, or the movement in movement; the other is null."+intentsDescription+versionDescription)),
		byIntentOp(op(co, "SetByIntent", "Execute a follow-up intent with its block from the retrieval document", byIntent)),
		byIntentOp(op(au, "SetByIntent", "Execute a follow-up intent with its block from the retrieval document",
			"As CompanyDocumentApi/SetByIntent, for authorities. "+byIntent)),
		deprecated(getOp(op(co, "GetDocument", "Deprecated: a document in the generic container", deprecatedGet))),
		getOp(op(au, "GetDocument", "A document the authority is concerned with, in the generic container",
			"Authority accounts only (a company account gets 403, code 7: companies use CompanyDocumentApi); only the document's "+
				"concerned authorities see it; the container's field of the document's kind is set.")),
	}
}

func deprecated(o api.Operation) api.Operation { o.Deprecated = true; return o }

// checkIntentRoutes ties every intent's operation to a served route, and
// each operation of a kind's face to the intents it fires: a declaration
// naming an operation the server does not serve, or a face operation
// firing an intent that names another, stops it.
func checkIntentRoutes(kinds []*documents.Kind, ops []api.Operation) error {
	served := map[string]bool{}
	for _, o := range ops {
		served[o.Path()] = true
	}
	var problems []string
	for _, k := range kinds {
		intents := []*engine.Intent{k.Def.Create}
		for i := range k.Def.Intents {
			intents = append(intents, &k.Def.Intents[i])
		}
		for _, in := range intents {
			if !in.System && !served[in.Operation] {
				problems = append(problems, fmt.Sprintf("%s intent %s: operation %s is not served", k.Name(), in.Name, in.Operation))
			}
		}
		problems = append(problems, faceMismatches(k)...)
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// describeDomain writes the intent values (with their summaries, from the
// machines' declarations) and the business error codes (from the kinds'
// rules) into the description, so neither is a second hand-written list.
func describeDomain(doc *openapi3.T, kinds []*documents.Kind) error {
	if len(kinds) == 0 {
		return nil
	}
	prop := func(component, field string) *openapi3.Schema {
		c := doc.Components.Schemas[component]
		if c == nil || c.Value == nil || c.Value.Properties[field] == nil {
			return nil
		}
		return c.Value.Properties[field].Value
	}
	for _, c := range [][2]string{{"FollowUpIntent", "intent"}, {"BusinessError", "code"}} {
		if prop(c[0], c[1]) == nil {
			return fmt.Errorf("the OpenAPI description has no component %s with field %s to describe the document kinds in", c[0], c[1])
		}
	}
	describeFaces(doc, kinds)
	if p := prop("FollowUpIntent", "intent"); p != nil {
		var b strings.Builder
		b.WriteString("The intent; by document kind:")
		p.Enum = nil
		for _, k := range kinds {
			fmt.Fprintf(&b, "\n\n%s:", k.Name())
			for _, in := range k.Def.Intents {
				if in.System {
					continue // fired by the scheduler, never offered
				}
				fmt.Fprintf(&b, "\n* %s: %s", in.Name, in.Summary)
				if !slices.Contains(p.Enum, any(in.Name)) {
					p.Enum = append(p.Enum, in.Name)
				}
			}
		}
		p.Description = b.String()
	}
	if p := prop("BusinessError", "code"); p != nil {
		var b strings.Builder
		b.WriteString("The rule that was broken; by document kind:")
		p.Enum = nil
		for _, k := range kinds {
			fmt.Fprintf(&b, "\n* %s: %s", k.Name(), strings.Join(k.Codes, ", "))
			for _, c := range k.Codes {
				if !slices.Contains(p.Enum, any(c)) {
					p.Enum = append(p.Enum, c)
				}
			}
		}
		p.Description = b.String()
	}
	// The list entries: the kinds and states of every machine (named, not
	// an enum: a field the mask leaves out is empty).
	if c := doc.Components.Schemas["DocumentListEntry"]; c != nil && c.Value != nil {
		var kindNames, states []string
		for _, k := range kinds {
			kindNames = append(kindNames, k.Def.Kind)
			for _, st := range k.Def.States {
				if !slices.Contains(states, st) {
					states = append(states, st)
				}
			}
		}
		if p := c.Value.Properties["kind"]; p != nil && p.Value != nil {
			p.Value.Description = "the document's kind: " + strings.Join(kindNames, ", ") + " (empty when qpar.mask leaves it out)"
		}
		if p := c.Value.Properties["state"]; p != nil && p.Value != nil {
			p.Value.Description = "the state in its kind's machine (diagrams: /workflows/<kind>.mmd): " + strings.Join(states, ", ") + " (empty when qpar.mask leaves it out)"
		}
	}
	// Each kind's retrieval document: kind, states and number format from
	// its declaration, the rules of its deadlines.
	for _, k := range kinds {
		t := k.DocumentType
		name, pkg := t.Name(), path.Base(t.PkgPath())
		if k.DocumentName != "" { // a made type, named by documentType
			name, pkg = k.DocumentName, k.DocumentPackage
		}
		var c *openapi3.SchemaRef
		for _, name := range []string{name, pkg + "." + name} {
			if c = doc.Components.Schemas[name]; c != nil {
				break
			}
		}
		if c == nil || c.Value == nil {
			return fmt.Errorf("the OpenAPI description has no component for %s, the retrieval document of %s", t, k.Name())
		}
		props := c.Value.Properties
		for _, f := range []string{"kind", "state", "number", "deadlines"} {
			if props[f] == nil || props[f].Value == nil {
				return fmt.Errorf("%s: the retrieval document of %s has no field %s", t, k.Name(), f)
			}
		}
		props["kind"].Value.Enum = []any{k.Def.Kind}
		props["state"].Value.Description = "the state of the " + k.Name() + " machine (diagram: /workflows/" + strings.ToLower(k.Def.Kind) + ".mmd)"
		props["state"].Value.Enum = nil
		for _, st := range k.Def.States {
			props["state"].Value.Enum = append(props["state"].Value.Enum, st)
		}
		props["number"].Value.Description = "human number (our design): " + k.NumberFormat
		var rules []string
		for _, r := range k.Def.Rules {
			rules = append(rules, r.Name)
		}
		props["deadlines"].Value.Description = "the document's deadlines; rules " + strings.Join(rules, ", ")
	}
	return nil
}
