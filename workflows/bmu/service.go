package bmu

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Service runs the BmuDocumentApi operations: stateless transformations of
// the XML a caller sends (the store is DocumentApi's).
type Service struct {
	Mapping    Mapping
	Trust      *Trust
	CheckDigit bmu.CheckDigit
	Now        func() time.Time
	// Numbers takes a fresh note number from a stored template's block
	// (the store's); nil keeps a template's own number.
	Numbers func(ctx context.Context, templateID string) (string, error)
}

// Result is a note after an operation: the API's document (with meta) and
// its XML.
type Result struct {
	Document *bmu.Document
	XML      []byte
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// invalidXML turns a parse error into 400, code 3, naming the field and
// the element.
func invalidXML(field string, err error) error {
	var pe *ParseError
	if errors.As(err, &pe) {
		return status.Invalid(field, pe.Error())
	}
	return status.Invalid(field, err.Error())
}

// parse reads a note sent to be changed or kept: a field longer than its
// length is refused (400 naming its element).
func (s *Service) parse(field string, data []byte) (Doc, error) {
	d, err := s.Mapping.Parse(data)
	if err != nil {
		return nil, invalidXML(field, err)
	}
	return d, nil
}

// parseStored reads a note sent to be read or printed, which may have been
// stored before fields had lengths (issue 44.3): the note as it is; a
// print bounds what it draws.
func (s *Service) parseStored(field string, data []byte) (Doc, error) {
	d, err := s.Mapping.ParseStored(data)
	if err != nil {
		return nil, invalidXML(field, err)
	}
	return d, nil
}

// cancelled is the interface's answer to a note that fails validation:
// gRPC CANCELLED with every violation as a field violation.
func cancelled(msg string, vs []bmu.Violation) error {
	fv := make([]status.FieldViolation, 0, len(vs))
	names := make([]string, 0, len(vs))
	for _, v := range vs {
		fv = append(fv, status.FieldViolation{Field: v.Field, Description: v.Description})
		names = append(names, v.Field)
	}
	if len(names) > 0 {
		msg = fmt.Sprintf("%s: %d field(s) missing or wrong: %s", msg, len(vs), strings.Join(names, ", "))
	}
	return status.New(status.Canceled, "%s", msg).WithDetails(status.BadRequestOf(fv...))
}

// validate applies the options of one call; level is the level to use when
// the options do not say.
func (s *Service) validate(d Doc, opts *bmu.XMLOptions, level bmu.Validation) error {
	pz := bmu.PruefzifferValidate
	if opts != nil {
		if opts.Validation != bmu.ValidationUnspecified {
			level = opts.Validation
		}
		if opts.Pruefziffer != bmu.PruefzifferUnspecified {
			pz = opts.Pruefziffer
		}
	}
	n := d.Note()
	if pz == bmu.PruefzifferCalculate && !n.Top().Signed {
		bmu.Calculate(n, s.CheckDigit)
	}
	if vs := bmu.Validate(n, level, s.CheckDigit, s.now()); len(vs) > 0 {
		return cancelled("the "+n.Type+" fails validation at "+level.EnumNames()[level], vs)
	}
	return nil
}

// result renders d.
func (s *Service) result(d Doc) (*Result, error) {
	x, err := d.Bytes()
	if err != nil {
		return nil, err
	}
	return &Result{Document: s.view(d), XML: x}, nil
}

func (s *Service) view(d Doc) *bmu.Document {
	doc := bmu.View(d.Note())
	doc.Meta = &bmu.Meta{DocumentType: d.Note().Type, Layers: d.Layers(), Signatures: d.Signatures(s.Trust),
		SignaturePositions: Positions(d)}
	return doc
}

func docType(doc *bmu.Document) (string, error) {
	switch {
	case doc == nil || (doc.Bgs == nil && doc.Uns == nil):
		return "", status.Invalid("document", "bgs (a consignment note) or uns (an acceptance note) is required")
	case doc.Bgs != nil && doc.Uns != nil:
		return "", status.Invalid("document", "bgs or uns, not both")
	case doc.Uns != nil:
		return bmu.TypeUNS, nil
	}
	return bmu.TypeBGS, nil
}

// unsRoles are the roles an acceptance note may start with.
var unsRoles = []bmu.Role{bmu.RoleERZ, bmu.RoleBEF, bmu.RoleENT}

func baseLayer(t string, role bmu.Role, opts *bmu.XMLOptions) (bmu.Role, error) {
	if t == bmu.TypeUNS {
		for _, r := range unsRoles {
			if r == role {
				return role, nil
			}
		}
		return 0, cancelled(fmt.Sprintf("an acceptance note (UNS) is created by its producer, carrier or disposer: xmlOptions.atbRolle ERZ, BEF or ENT, not %s", role), nil)
	}
	if role == bmu.RoleUnspecified {
		return bmu.RoleERZ, nil
	}
	switch bmu.LayerFor(role) {
	case bmu.LayerErzeuger, bmu.LayerBefoerderer, bmu.LayerEntsorger, bmu.LayerZwischenlager:
		return role, nil
	}
	return 0, status.Invalid("xmlOptions.atbRolle", fmt.Sprintf("a consignment note starts with the layer of its producer (ERZ), a carrier (BEF), an interim storage (ZWL) or its disposer (ENT), not %s", role))
}

// Create is CreateDocument: the base layer for the role (or a template
// layer) holding the document's fields.
func (s *Service) Create(doc *bmu.Document, vorlage bool, opts *bmu.XMLOptions) (*Result, error) {
	t, err := docType(doc)
	if err != nil {
		return nil, err
	}
	var role bmu.Role
	if opts != nil {
		role = opts.AtbRolle
	}
	if role, err = baseLayer(t, role, opts); err != nil {
		return nil, err
	}
	lt := bmu.LayerFor(role)
	if vorlage {
		lt = bmu.LayerVorlage
	}
	l := bmu.NewLayer(1, lt, role)
	if err := bmu.Collect(doc, false, l); err != nil {
		return nil, status.Invalid("document", err.Error())
	}
	d, err := s.Mapping.New(&bmu.Note{Type: t, Layers: []*bmu.Layer{l}})
	if err != nil {
		return nil, err
	}
	if err := s.validate(d, opts, bmu.ValidationFull); err != nil {
		return nil, err
	}
	if err := d.SyncTop(); err != nil {
		return nil, err
	}
	return s.result(d)
}

// CreateFromTemplate is CreateDocumentFromTemplate: a new note whose base
// layer holds the template's fields, for the template's role (ERZ when it
// names none). It is checked for types only: the producer completes it with
// UpdateDocument (our design).
func (s *Service) CreateFromTemplate(ctx context.Context, templateXML []byte) (*Result, error) {
	tpl, err := s.parse("templateXml", templateXML)
	if err != nil {
		return nil, err
	}
	tn := tpl.Note()
	top := tn.Top()
	if top.Type != bmu.LayerVorlage {
		return nil, status.New(status.FailedPrecondition, "templateXml is a note whose top layer is %s, not a template (VORLAGE)", top.Type)
	}
	role, err := baseLayer(tn.Type, top.Role, nil)
	if err != nil {
		return nil, err
	}
	l := bmu.NewLayer(1, bmu.LayerFor(role), role)
	for _, tl := range tn.Layers { // the template's current view
		for p, v := range tl.Values {
			l.Values[p] = v
		}
		for k, v := range tl.Lengths {
			l.Lengths[k] = v
		}
	}
	if id := tpl.TemplateID(); id != "" && s.Numbers != nil {
		// A stored template: the note gets the next number of its block.
		number, err := s.Numbers(ctx, id)
		if err != nil {
			return nil, err
		}
		l.Values["nummer"] = number
		if d, err := s.CheckDigit.Digit(number); err == nil {
			l.Values["pruefziffer"] = d
		}
	}
	d, err := s.Mapping.New(&bmu.Note{Type: tn.Type, Layers: []*bmu.Layer{l}})
	if err != nil {
		return nil, err
	}
	if err := s.validate(d, nil, bmu.ValidationTypes); err != nil {
		return nil, err
	}
	if err := d.SyncTop(); err != nil {
		return nil, err
	}
	return s.result(d)
}

// writable refuses a note whose top layer cannot change.
func writable(d Doc, what string) error {
	switch {
	case d.Sealed():
		return status.New(status.FailedPrecondition, "the note is sealed by a signature over the whole document: %s is not possible", what)
	case d.Note().Top().Signed:
		return status.New(status.FailedPrecondition, "the top layer (%d, %s) is signed: add a layer first (AddLayer)", d.Note().Top().Index, d.Note().Top().Type)
	}
	return nil
}

// Update is UpdateDocument: the fields marked meta.inLayer are written into
// the unsigned top layer; others are ignored.
func (s *Service) Update(docXML []byte, doc *bmu.Document, opts *bmu.XMLOptions) (*Result, error) {
	d, err := s.parse("docXml", docXML)
	if err != nil {
		return nil, err
	}
	if err := writable(d, "an update"); err != nil {
		return nil, err
	}
	t, err := docType(doc)
	if err != nil {
		return nil, err
	}
	if t != d.Note().Type {
		return nil, status.Invalid("document", fmt.Sprintf("the note is a %s: send its fields in %s", d.Note().Type, strings.ToLower(d.Note().Type)))
	}
	if err := bmu.Collect(doc, true, d.Note().Top()); err != nil {
		return nil, status.Invalid("document", err.Error())
	}
	if err := s.validate(d, opts, bmu.ValidationFull); err != nil {
		return nil, err
	}
	if err := d.SyncTop(); err != nil {
		return nil, err
	}
	return s.result(d)
}

// AddLayer puts a new layer of type t on top. Without options the note is
// not validated afterwards.
func (s *Service) AddLayer(docXML []byte, t bmu.LayerType, opts *bmu.XMLOptions) (*Result, error) {
	d, err := s.parse("docXml", docXML)
	if err != nil {
		return nil, err
	}
	n := d.Note()
	if n.Type == bmu.TypeUNS {
		return nil, cancelled("an acceptance note (UNS) has no further layers", nil)
	}
	if d.Sealed() {
		return nil, status.New(status.FailedPrecondition, "the note is sealed by a signature over the whole document: no layer can be added")
	}
	if t == bmu.LayerUnspecified {
		t = bmu.LayerVorlage
	}
	role := bmu.RoleFor(t)
	if opts != nil && opts.AtbRolle != bmu.RoleUnspecified {
		role = opts.AtbRolle
	}
	if t == bmu.LayerErgaenzung && (opts == nil || opts.AtbRolle == bmu.RoleUnspecified) {
		return nil, status.Invalid("xmlOptions.atbRolle", "a supplement layer (ERGAENZUNG) needs the role it is made for")
	}
	if _, err := d.AddLayer(t, role); err != nil {
		return nil, status.New(status.FailedPrecondition, "%v", err)
	}
	if opts != nil {
		if err := s.validate(d, opts, bmu.ValidationFull); err != nil {
			return nil, err
		}
		if err := d.SyncTop(); err != nil {
			return nil, err
		}
	}
	return s.result(d)
}

// Get is GetDocument: the note's fields and meta, signatures checked.
func (s *Service) Get(docXML []byte) (*bmu.Document, error) {
	d, err := s.parseStored("docXml", docXML)
	if err != nil {
		return nil, err
	}
	return s.view(d), nil
}

// Positions is GetValidSignaturePositions.
func (s *Service) Positions(docXML []byte) ([]bmu.SignaturePosition, error) {
	d, err := s.parseStored("docXml", docXML)
	if err != nil {
		return nil, err
	}
	ps := Positions(d)
	sort.SliceStable(ps, func(i, j int) bool { return !ps[i].Envelope && ps[j].Envelope })
	return ps, nil
}
