package bmu

import (
	"bytes"
	"crypto"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"encoding/xml"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/beevik/etree"
	dsig "github.com/russellhaering/goxmldsig"

	"github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/rules/echo"
)

// Trust decides whose signatures count: a certificate listed as a signer's,
// or one issued by a listed authority (a CA). Signatures are checked with
// goxmldsig (XML-DSig, exclusive canonicalisation, enveloped signatures).
type Trust struct {
	Signers []*x509.Certificate // pinned signer certificates
	Roots   *x509.CertPool      // authorities whose certificates count
	Now     func() time.Time
}

// LoadTrust reads PEM files of trusted certificates: self-signed ones (a
// CA, or a pinned test certificate) are trusted as roots and as signers.
func LoadTrust(files []string) (*Trust, error) {
	t := &Trust{Roots: x509.NewCertPool()}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		certs, err := parsePEMCerts(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		for _, c := range certs {
			t.Add(c)
		}
	}
	return t, nil
}

// Add trusts a certificate: as a signer, and as an authority when it is a CA.
func (t *Trust) Add(c *x509.Certificate) {
	t.Signers = append(t.Signers, c)
	if c.IsCA {
		if t.Roots == nil {
			t.Roots = x509.NewCertPool()
		}
		t.Roots.AddCert(c)
	}
}

func (t *Trust) now() time.Time {
	if t != nil && t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// trusted says why a certificate does not count, or nil.
func (t *Trust) trusted(c *x509.Certificate) error {
	if t == nil {
		return errors.New("no certificate is trusted on this server")
	}
	for _, s := range t.Signers {
		if s.Equal(c) {
			return nil
		}
	}
	if t.Roots != nil {
		if _, err := c.Verify(x509.VerifyOptions{Roots: t.Roots, CurrentTime: t.now(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err == nil {
			return nil
		}
	}
	return fmt.Errorf("the certificate of %s is not trusted here", c.Subject.CommonName)
}

// signatureOf is the signature element directly under el.
func signatureOf(el *etree.Element) *etree.Element {
	for _, c := range el.ChildElements() {
		if isSignature(c) {
			return c
		}
	}
	return nil
}

// certOf reads the first X509Certificate of a signature's KeyInfo.
func certOf(sig *etree.Element) (*x509.Certificate, error) {
	c := sig.FindElement(".//X509Certificate")
	if c == nil {
		return nil, errors.New("the signature carries no certificate")
	}
	der, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(c.Text()), ""))
	if err != nil {
		return nil, errors.New("the signature's certificate is not base64")
	}
	return x509.ParseCertificate(der)
}

// check verifies the signature directly under el (which has an Id): the
// content it covers is unchanged (the signature verifies with the
// certificate it carries) and the certificate is trusted.
func check(el *etree.Element, trust *Trust) (signer string, err error) {
	sig := signatureOf(el)
	if sig == nil {
		return "", errors.New("not signed")
	}
	cert, err := certOf(sig)
	if err != nil {
		return "", err
	}
	signer = cert.Subject.CommonName
	vctx := dsig.NewDefaultValidationContext(&dsig.MemoryX509CertificateStore{Roots: []*x509.Certificate{cert}})
	vctx.IdAttribute = "Id"
	vctx.Clock = dsig.NewFakeClockAt(trust.now())
	if _, err := vctx.Validate(el); err != nil {
		return signer, fmt.Errorf("the signed content changed or the signature is broken: %v", err)
	}
	return signer, trust.trusted(cert)
}

// Signatures implements Doc: each layer's signature, then the document's.
// A layer's signature covers it and every layer inside it, so a changed
// inner layer breaks its own signature and every one above it.
func (d *doc) Signatures(trust *Trust) []bmu.SignatureInfo {
	out := []bmu.SignatureInfo{}
	for i, el := range d.layers {
		if !d.note.Layers[i].Signed {
			continue
		}
		info := bmu.SignatureInfo{LayerIndex: int32(i + 1), SignedAt: el.SelectAttrValue("signedAt", "")}
		for j := 1; j <= i+1; j++ {
			info.CoversLayers = append(info.CoversLayers, int32(j))
		}
		signer, err := check(el, trust)
		info.Signer, info.Valid = signer, err == nil
		if err != nil {
			info.Reason = err.Error()
		}
		out = append(out, info)
	}
	if d.envelope != nil {
		info := bmu.SignatureInfo{LayerIndex: int32(len(d.layers)), Envelope: true, SignedAt: d.tree.Root().SelectAttrValue("signedAt", "")}
		for j := 1; j <= len(d.layers); j++ {
			info.CoversLayers = append(info.CoversLayers, int32(j))
		}
		signer, err := check(d.tree.Root(), trust)
		info.Signer, info.Valid = signer, err == nil
		if err != nil {
			info.Reason = err.Error()
		}
		out = append(out, info)
	}
	return out
}

// Layers implements Doc.
func (d *doc) Layers() []bmu.LayerInfo {
	out := make([]bmu.LayerInfo, 0, len(d.layers))
	for i, el := range d.layers {
		l := d.note.Layers[i]
		info := bmu.LayerInfo{Index: int32(l.Index), LayerType: l.Type, AtbRolle: l.Role, Name: el.Tag, Signed: l.Signed,
			SignedAt: el.SelectAttrValue("signedAt", "")}
		if sig := signatureOf(el); sig != nil {
			if c, err := certOf(sig); err == nil {
				info.SignedBy = c.Subject.CommonName
			}
		}
		out = append(out, info)
	}
	return out
}

// Positions lists the open signature positions of the current layer: the
// layer alone (and what it wraps) and the whole document, each once. A
// signed or sealed note has none open; a template layer is never signed.
func Positions(d Doc) []bmu.SignaturePosition {
	n := d.Note()
	top := n.Top()
	out := []bmu.SignaturePosition{}
	if top == nil || top.Signed || d.Sealed() || top.Type == bmu.LayerVorlage {
		return out
	}
	id := "layer-" + strconv.Itoa(top.Index)
	for _, env := range []bool{false, true} {
		p := bmu.SignaturePosition{ID: id, LayerIndex: int32(top.Index), LayerType: top.Type, AtbRolle: top.Role, Envelope: env, Open: true}
		if env {
			p.ID += "+envelope"
		}
		out = append(out, p)
	}
	return out
}

// Sign signs an open position of d with a key and its certificate (an
// enveloped XML-DSig, RSA-SHA256 or ECDSA-SHA256, exclusive
// canonicalisation), and records the signing time on the signed element.
func Sign(d Doc, position string, signer crypto.Signer, cert *x509.Certificate, at time.Time) error {
	var open *bmu.SignaturePosition
	for _, p := range Positions(d) {
		if p.ID == position {
			open = &p
		}
	}
	if open == nil {
		return echo.Errorf("signature position %q is not open", position)
	}
	od := d.(*doc)
	target := od.top()
	if open.Envelope {
		target = od.tree.Root()
	}
	target.CreateAttr("signedAt", at.UTC().Format(time.RFC3339))
	sig, err := signElement(target, signer, cert)
	if err != nil {
		target.RemoveAttr("signedAt")
		return err
	}
	if open.Envelope {
		od.envelope = sig
	} else {
		od.note.Top().Signed = true
	}
	return nil
}

func parsePEMCerts(raw []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	for {
		var b *pem.Block
		b, raw = pem.Decode(raw)
		if b == nil {
			break
		}
		if b.Type != "CERTIFICATE" {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no PEM certificate")
	}
	return out, nil
}

// IsNote reports whether data's root is a note of our format (BGS or UNS in
// our namespace), so a signer knows whether to look for layer positions.
func IsNote(data []byte) bool {
	dec := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Space == Namespace && (se.Name.Local == bmu.TypeBGS || se.Name.Local == bmu.TypeUNS)
		}
	}
}

// SignRoot signs any XML document: an enveloped signature of its root
// element (given an Id attribute when it has none).
func SignRoot(tree *etree.Document, signer crypto.Signer, cert *x509.Certificate, at time.Time) error {
	root := tree.Root()
	if root == nil {
		return errors.New("no root element")
	}
	if signatureOf(root) != nil {
		return errors.New("the document is signed already")
	}
	_, err := signElement(root, signer, cert)
	return err
}

// signElement appends an enveloped signature of el (given an Id when it
// has none: the root of a document made elsewhere). The signature is
// computed over a copy: goxmldsig canonicalises the element it signs in
// place, which would rewrite the layers inside it (and break their
// signatures). Every layer declares its namespace, so the copy
// canonicalises as the element does in the document.
func signElement(el *etree.Element, signer crypto.Signer, cert *x509.Certificate) (*etree.Element, error) {
	ctx, err := dsig.NewSigningContext(signer, [][]byte{cert.Raw})
	if err != nil {
		return nil, err
	}
	ctx.IdAttribute = "Id"
	ctx.Canonicalizer = dsig.MakeC14N10ExclusiveCanonicalizerWithPrefixList("")
	if el.SelectAttr("Id") == nil {
		el.CreateAttr("Id", "document")
	}
	sig, err := ctx.ConstructSignature(el.Copy(), true)
	if err != nil {
		return nil, err
	}
	el.AddChild(sig)
	return sig, nil
}

// CheckRoot verifies the enveloped signature of any XML document's root.
func CheckRoot(data []byte, trust *Trust) (signer string, err error) {
	if err := Check(data); err != nil {
		return "", err
	}
	tree := etree.NewDocument()
	if err := tree.ReadFromBytes(data); err != nil {
		return "", err
	}
	return check(tree.Root(), trust)
}
