// Package bmu maps transport documents to and from XML, checks and makes
// their XML signatures, and runs the stateless BmuDocumentApi operations
// over them. The XML format is ours (namespace urn:wasteflow:eanv:1, element
// names after the handbooks' BGSBEFLayer) until the official BMU schema is
// available: it sits behind the Mapping interface so that schema can
// replace it without touching the operations.
package bmu

import (
	"bytes"
	_ "embed"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/beevik/etree"

	"github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/rules/decimal"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Namespace of our XML (our design, not the BMU's).
const Namespace = "urn:wasteflow:eanv:1"

// DSigNamespace is XML-DSig's.
const DSigNamespace = "http://www.w3.org/2000/09/xmldsig#"

// Limits of the XML a request may carry.
const (
	MaxXMLBytes = 21 << 20 // the interface's limit of XML inside JSON
	MaxDepth    = 64       // element nesting
)

// Mapping is an XML format of transport documents.
type Mapping interface {
	// Parse reads a document's XML (refusing what is unsafe or not a note
	// of the format, or a field longer than its length, bmu.MaxLength)
	// into a Doc that keeps the XML of signed layers as it was signed.
	Parse(data []byte) (Doc, error)
	// ParseStored is Parse without the fields' lengths, for a note as it
	// may have been stored before they were checked: only to read or
	// print it (a print bounds what it draws), never to store or change.
	ParseStored(data []byte) (Doc, error)
	// New is the XML of a new note, none of it signed.
	New(n *bmu.Note) (Doc, error)
}

// Doc is a note with its XML.
type Doc interface {
	Note() *bmu.Note
	// SyncTop writes the top layer's fields (which must be unsigned) from
	// the note into the XML.
	SyncTop() error
	// AddLayer puts a new, empty layer on top, in the note and in the XML.
	AddLayer(t bmu.LayerType, r bmu.Role) (*bmu.Layer, error)
	// Sealed reports whether a signature covers the whole document.
	Sealed() bool
	// Bytes is the XML.
	Bytes() ([]byte, error)
	// Signatures checks every signature against trust.
	Signatures(trust *Trust) []bmu.SignatureInfo
	// Layers describes the layers, innermost first.
	Layers() []bmu.LayerInfo
	// Tree is the XML tree, for signing (see Sign).
	Tree() *etree.Document
	// TemplateID is the stored template a template's XML came from (the
	// root's templateId attribute, set by ExportTransportTemplate), or "".
	TemplateID() string
}

// ParseError is XML the format refuses, naming where.
type ParseError struct {
	Element string // the element, as a path from the root ("" for the whole input)
	Reason  string
}

func (e *ParseError) Error() string {
	if e.Element == "" {
		return e.Reason
	}
	return e.Element + ": " + e.Reason
}

func perr(el, format string, args ...any) error {
	return &ParseError{Element: el, Reason: echo.Sprintf(format, args...)}
}

// Ours is our format.
type Ours struct{}

// Check scans data before any tree is built and refuses what is unsafe or
// not one XML document: more than MaxXMLBytes, a DTD or any other
// directive (so no entity can be declared, expanded or fetched), nesting
// deeper than MaxDepth, processing instructions other than the
// declaration, content before or after the root, malformed XML.
func Check(data []byte) error {
	if len(data) > MaxXMLBytes {
		return perr("", "the XML has %d bytes, more than the %d allowed", len(data), MaxXMLBytes)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return perr("", "no XML")
	}
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	depth, roots := 0, 0
	var stack []string
	for {
		tok, err := dec.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return perr(strings.Join(stack, "/"), "malformed XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				roots++
				if roots > 1 {
					return perr(t.Name.Local, "a second root element: one document only")
				}
			}
			depth++
			stack = append(stack, t.Name.Local)
			if depth > MaxDepth {
				return perr(strings.Join(stack[:8], "/")+"/…", "elements nested deeper than %d levels", MaxDepth)
			}
		case xml.EndElement:
			if depth == 0 || stack[len(stack)-1] != t.Name.Local {
				return perr(strings.Join(stack, "/"), "malformed XML: </%s> closes no open element", t.Name.Local)
			}
			depth--
			stack = stack[:len(stack)-1]
		case xml.Directive:
			return perr(strings.Join(stack, "/"), "a DOCTYPE or other directive is not allowed (no DTD, no entities)")
		case xml.ProcInst:
			if t.Target != "xml" || depth > 0 || roots > 0 {
				return perr(strings.Join(stack, "/"), "processing instruction <?%s?> is not allowed", t.Target)
			}
		case xml.CharData:
			if depth == 0 && len(bytes.TrimSpace(t)) > 0 {
				return perr("", "text outside the root element")
			}
		}
	}
	if roots == 0 {
		return perr("", "no root element")
	}
	if depth > 0 {
		return perr(strings.Join(stack, "/"), "malformed XML: the element is not closed")
	}
	return nil
}

// MaxTemplateIDLength bounds the root's templateId attribute (a stored
// template's id).
const MaxTemplateIDLength = 64

// Parse implements Mapping.
func (Ours) Parse(data []byte) (Doc, error) { return parse(data, true) }

// ParseStored implements Mapping.
func (Ours) ParseStored(data []byte) (Doc, error) { return parse(data, false) }

func parse(data []byte, bounded bool) (Doc, error) {
	if err := Check(data); err != nil {
		return nil, err
	}
	tree := etree.NewDocument()
	tree.ReadSettings = etree.ReadSettings{}
	if err := tree.ReadFromBytes(data); err != nil {
		return nil, perr("", "malformed XML: %v", err)
	}
	root := tree.Root()
	if root.NamespaceURI() != Namespace || (root.Tag != bmu.TypeBGS && root.Tag != bmu.TypeUNS) {
		return nil, perr(root.Tag, "the root must be BGS or UNS in namespace %s (our format), not {%s}%s", Namespace, root.NamespaceURI(), root.Tag)
	}
	if id := root.SelectAttrValue("templateId", ""); bounded && utf8.RuneCountInString(id) > MaxTemplateIDLength {
		return nil, perr(root.Tag+"/@templateId", "at most %d characters, not %d", MaxTemplateIDLength, utf8.RuneCountInString(id))
	}
	d := &doc{tree: tree, note: &bmu.Note{Type: root.Tag}, bounded: bounded}
	var top *etree.Element
	for _, c := range root.ChildElements() {
		switch {
		case isSignature(c):
			if d.envelope != nil {
				return nil, perr(root.Tag, "two document signatures")
			}
			d.envelope = c
		case top == nil:
			top = c
		default:
			return nil, perr(root.Tag+"/"+c.Tag, "one layer element under the root")
		}
	}
	if top == nil {
		return nil, perr(root.Tag, "no layer")
	}
	// Walk from the top layer inwards, then number from the innermost.
	var chain []*etree.Element
	for el := top; el != nil; {
		chain = append(chain, el)
		if len(chain) > 1000 {
			return nil, perr(root.Tag, "more than 1000 layers")
		}
		var inner *etree.Element
		for _, c := range el.ChildElements() {
			if strings.HasSuffix(c.Tag, "Layer") && c.NamespaceURI() == Namespace {
				if inner != nil {
					return nil, perr(c.Tag, "a layer holds at most one inner layer")
				}
				inner = c
			}
		}
		el = inner
	}
	for i := len(chain) - 1; i >= 0; i-- {
		el := chain[i]
		l, err := d.parseLayer(el, len(chain)-i)
		if err != nil {
			return nil, err
		}
		if err := bmu.CanFollow(d.note, l.Type); err != nil {
			return nil, perr(el.Tag, "%v", err)
		}
		d.note.Layers = append(d.note.Layers, l)
		d.layers = append(d.layers, el)
	}
	return d, nil
}

func isSignature(el *etree.Element) bool {
	return el.Tag == "Signature" && el.NamespaceURI() == DSigNamespace
}

// New implements Mapping.
func (Ours) New(n *bmu.Note) (Doc, error) {
	tree := etree.NewDocument()
	tree.CreateProcInst("xml", `version="1.0" encoding="UTF-8"`)
	root := tree.CreateElement(n.Type)
	root.CreateAttr("xmlns", Namespace)
	root.CreateAttr("Id", "document")
	root.CreateAttr("version", "1")
	d := &doc{tree: tree, note: &bmu.Note{Type: n.Type}}
	for _, l := range n.Layers {
		el := d.wrap(l)
		d.note.Layers = append(d.note.Layers, l)
		d.layers = append(d.layers, el)
		if err := d.render(el, l); err != nil {
			return nil, err
		}
	}
	return d, nil
}

type doc struct {
	tree     *etree.Document
	note     *bmu.Note
	layers   []*etree.Element // innermost first, as note.Layers
	envelope *etree.Element   // a signature over the whole document
	bounded  bool             // parsing refuses a field longer than its length
}

func (d *doc) Note() *bmu.Note          { return d.note }
func (d *doc) Tree() *etree.Document    { return d.tree }
func (d *doc) Sealed() bool             { return d.envelope != nil }
func (d *doc) TemplateID() string       { return d.tree.Root().SelectAttrValue("templateId", "") }
func (d *doc) Bytes() ([]byte, error)   { return d.tree.WriteToBytes() }
func (d *doc) top() *etree.Element      { return d.layers[len(d.layers)-1] }
func (d *doc) layerID(index int) string { return "layer-" + strconv.Itoa(index) }

// wrap makes the element of a new top layer around the current one.
func (d *doc) wrap(l *bmu.Layer) *etree.Element {
	root := d.tree.Root()
	el := etree.NewElement(l.Name(d.note.Type))
	el.CreateAttr("xmlns", Namespace) // declared on every layer, so a layer signed alone canonicalises alike nested
	el.CreateAttr("Id", d.layerID(l.Index))
	el.CreateAttr("index", strconv.Itoa(l.Index))
	el.CreateAttr("layerType", l.Type.String())
	if l.Role != bmu.RoleUnspecified {
		el.CreateAttr("atbRolle", l.Role.String())
	}
	if len(d.layers) > 0 {
		old := d.top()
		root.RemoveChild(old)
		el.AddChild(old)
	}
	root.InsertChildAt(0, el)
	return el
}

// AddLayer implements Doc.
func (d *doc) AddLayer(t bmu.LayerType, r bmu.Role) (*bmu.Layer, error) {
	if err := bmu.CanFollow(d.note, t); err != nil {
		return nil, err
	}
	l := bmu.NewLayer(len(d.note.Layers)+1, t, r)
	el := d.wrap(l)
	d.note.Layers = append(d.note.Layers, l)
	d.layers = append(d.layers, el)
	return l, d.render(el, l)
}

// SyncTop implements Doc.
func (d *doc) SyncTop() error {
	l := d.note.Top()
	if l.Signed {
		return errors.New("the top layer is signed")
	}
	return d.render(d.top(), l)
}

// render replaces a layer element's fields with the layer's values.
func (d *doc) render(el *etree.Element, l *bmu.Layer) error {
	for _, c := range el.SelectElements("Felder") {
		el.RemoveChild(c)
	}
	f := etree.NewElement("Felder")
	// after the inner layer, before a signature
	pos := 0
	for i, c := range el.Child {
		if ce, ok := c.(*etree.Element); ok && strings.HasSuffix(ce.Tag, "Layer") {
			pos = i + 1
		}
	}
	el.InsertChildAt(pos, f)
	for _, p := range l.Paths() {
		parent := f
		segs := strings.Split(p, ".")
		for i, seg := range segs {
			name, idx := seg, ""
			if n, rest, ok := strings.Cut(seg, "["); ok {
				name, idx = n, strings.TrimSuffix(rest, "]")
			}
			var child *etree.Element
			if i < len(segs)-1 { // a group: reuse the one this layer already has
				for _, c := range parent.SelectElements(name) {
					if c.SelectAttrValue("pos", "") == idx {
						child = c
					}
				}
			}
			if child == nil {
				child = parent.CreateElement(name)
				if idx != "" {
					child.CreateAttr("pos", idx)
				}
			}
			parent = child
		}
		parent.SetText(l.Values[p])
	}
	lists := make([]string, 0, len(l.Lengths))
	for k := range l.Lengths {
		lists = append(lists, k)
	}
	slices.Sort(lists)
	for _, k := range lists {
		le := f.CreateElement("liste")
		le.CreateAttr("feld", k)
		le.CreateAttr("anzahl", strconv.Itoa(l.Lengths[k]))
	}
	return nil
}

// parseLayer reads one layer element.
func (d *doc) parseLayer(el *etree.Element, index int) (*bmu.Layer, error) {
	where := el.Tag
	if el.NamespaceURI() != Namespace {
		return nil, perr(where, "not in namespace %s", Namespace)
	}
	lt := slices.Index(bmu.LayerType(0).EnumNames(), el.SelectAttrValue("layerType", ""))
	if lt <= 0 {
		return nil, perr(where, "layerType %q is not a layer type", el.SelectAttrValue("layerType", ""))
	}
	l := bmu.NewLayer(index, bmu.LayerType(lt), 0)
	if want := l.Name(d.note.Type); el.Tag != want {
		return nil, perr(where, "a %s layer of a %s is %s", l.Type, d.note.Type, want)
	}
	if got := el.SelectAttrValue("index", ""); got != strconv.Itoa(index) {
		return nil, perr(where, "index %q, but it is layer %d from the innermost", got, index)
	}
	if id := el.SelectAttrValue("Id", ""); id != d.layerID(index) {
		return nil, perr(where, "Id %q, want %s", id, d.layerID(index))
	}
	if r := el.SelectAttrValue("atbRolle", ""); r != "" {
		rv := slices.Index(bmu.Role(0).EnumNames(), r)
		if rv < 0 {
			return nil, perr(where, "atbRolle %q is not a role", r)
		}
		l.Role = bmu.Role(rv)
	}
	felder := 0
	for _, c := range el.ChildElements() {
		switch {
		case isSignature(c):
			if l.Signed {
				return nil, perr(where, "two signatures")
			}
			l.Signed = true
		case strings.HasSuffix(c.Tag, "Layer") && c.NamespaceURI() == Namespace:
		case c.Tag == "Felder" && c.NamespaceURI() == Namespace:
			felder++
			if felder > 1 {
				return nil, perr(where+"/Felder", "one Felder element per layer")
			}
			if err := d.parseFields(c, "", "", l, where+"/Felder"); err != nil {
				return nil, err
			}
		default:
			return nil, perr(where+"/"+c.Tag, "unknown element in a layer")
		}
	}
	return l, nil
}

func (d *doc) parseFields(el *etree.Element, path, pattern string, l *bmu.Layer, where string) error {
	for _, c := range el.ChildElements() {
		w := where + "/" + c.Tag
		if c.NamespaceURI() != Namespace {
			return perr(w, "not in namespace %s", Namespace)
		}
		if c.Tag == "liste" && path == "" {
			feld := c.SelectAttrValue("feld", "")
			n, err := strconv.Atoi(c.SelectAttrValue("anzahl", ""))
			if bmu.Kind(d.note.Type, feld) != "list" || err != nil || n < 0 || n > bmu.MaxListLength {
				return perr(w, "feld %q anzahl %q: a list of the note and a length from 0 to %d", feld, c.SelectAttrValue("anzahl", ""), bmu.MaxListLength)
			}
			l.Lengths[feld] = n
			continue
		}
		p, pat := path+c.Tag, pattern+c.Tag
		if pos := c.SelectAttr("pos"); pos != nil {
			i, err := strconv.Atoi(pos.Value)
			if err != nil || i < 0 || i >= bmu.MaxListLength {
				return perr(w, "pos %q: a position from 0 to %d", pos.Value, bmu.MaxListLength-1)
			}
			p, pat = fmt.Sprintf("%s[%d]", p, i), pat+"[]"
		}
		switch kind := bmu.Kind(d.note.Type, pat); kind {
		case "text", "date", "amount":
			if len(c.ChildElements()) > 0 {
				return perr(w, "a field holds text, not elements")
			}
			if max := bmu.MaxLength(d.note.Type, pat); d.bounded {
				// All its text, also what a comment would hide from Text.
				n := 0
				for _, t := range c.Child {
					if cd, ok := t.(*etree.CharData); ok {
						n += utf8.RuneCountInString(cd.Data)
					}
				}
				if n > max {
					return perr(w, "at most %d characters, not %d", max, n)
				}
			}
			v := c.Text()
			if kind == "amount" && v != "" {
				if _, err := decimal.Parse(v); err != nil {
					return perr(w, "%v", err)
				}
			}
			if _, dup := l.Values[p]; dup {
				return perr(w, "set twice in one layer")
			}
			l.Values[p] = v
		case "group":
			if err := d.parseFields(c, p+".", pat+".", l, w); err != nil {
				return err
			}
		case "list":
			return perr(w, "an entry of a list needs its position (pos)")
		default:
			return perr(w, "not a field of a %s", d.note.Type)
		}
	}
	return nil
}

// XSD is our format's schema (served at /bmu/eanv.xsd).
//
//go:embed eanv.xsd
var XSD []byte
