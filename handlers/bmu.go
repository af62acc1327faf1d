package handlers

import (
	"context"
	"strings"

	"github.com/wasteflow/wasteflow/handlers/api"
	rbmu "github.com/wasteflow/wasteflow/rules/bmu"
	"github.com/wasteflow/wasteflow/workflows/bmu"
	"github.com/wasteflow/wasteflow/workflows/printing"
)

const pkgBMU = "svc.bxa.bmu.v1.api"

// bmuOurs is said in every BMU operation's description.
const bmuOurs = " The XML is our format (namespace urn:wasteflow:eanv:1, layer elements such as BGSBEFLayer, the XSD at /bmu/eanv.xsd) " +
	"until the official BMU schema is available; the check-digit method is our unverified assumption. docXml and templateXml are " +
	"base64 in JSON, at most 21 MB of XML; XML with a DOCTYPE, nested deeper than 64 levels or malformed is refused (400, code 3, naming the element). " +
	"Each field has its length, the maxLength of its value in document (a name 200 characters, remarks 2,000): a longer one is refused alike, in JSON " +
	"naming its path, in docXml or templateXml naming its element, except by GetDocument, PrintDocument and GetValidSignaturePositions, which read a note " +
	"stored before the lengths as it is (a print cuts what is over its bounds and says so)."

type CreateDocumentRequest struct {
	Document     rbmu.Document    `json:"document" required:"true" doc:"bgs or uns with the fields of the base layer: every field with a value or meta.inLayer is written"`
	VorlageLayer bool             `json:"vorlageLayer" doc:"start with a template layer (VORLAGE) holding the fields; the role goes in xmlOptions.atbRolle"`
	XMLOptions   *rbmu.XMLOptions `json:"xmlOptions" doc:"without options: full validation, check digits validated, role ERZ for a BGS"`
}

// BmuDocumentResponse is what the changing operations answer.
type BmuDocumentResponse struct {
	Document rbmu.Document `json:"document"`
	DocXML   []byte        `json:"docXml" doc:"the note's XML, base64"`
}

type (
	CreateDocumentResponse             BmuDocumentResponse
	CreateDocumentFromTemplateResponse BmuDocumentResponse
	UpdateDocumentResponse             BmuDocumentResponse
	AddLayerResponse                   BmuDocumentResponse
)

type CreateDocumentFromTemplateRequest struct {
	TemplateXML []byte `json:"templateXml" required:"true" doc:"a note whose top layer is a template (VORLAGE), base64"`
}

type UpdateDocumentRequest struct {
	DocXML     []byte           `json:"docXml" required:"true"`
	Document   rbmu.Document    `json:"document" required:"true" doc:"bgs or uns: only fields with meta.inLayer true are written; a non-empty list sets the list's length"`
	XMLOptions *rbmu.XMLOptions `json:"xmlOptions" doc:"for this call only; without them validation is full"`
}

type AddLayerRequest struct {
	DocXML     []byte           `json:"docXml" required:"true"`
	LayerType  rbmu.LayerType   `json:"layerType" doc:"the new layer's type; not set: VORLAGE. Types come in the order of their values; BEFOERDERER and ERGAENZUNG may repeat"`
	XMLOptions *rbmu.XMLOptions `json:"xmlOptions" doc:"without options the note is not validated; ERGAENZUNG needs atbRolle"`
}

type GetBmuDocumentRequest struct {
	DocXML []byte `json:"docXml" required:"true"`
}

type GetBmuDocumentResponse struct {
	Document rbmu.Document `json:"document"`
}

type PrintBmuDocumentRequest struct {
	DocXML   []byte `json:"docXml" required:"true"`
	Language string `json:"language" doc:"en (the default) or de"`
}

type PrintBmuDocumentResponse struct {
	Document []byte `json:"document" doc:"the note as a PDF (A4, fonts embedded), base64"`
	FileName string `json:"fileName" doc:"BGS-<number>.pdf or UNS-<number>.pdf"`
}

type GetValidSignaturePositionsRequest struct {
	DocXML []byte `json:"docXml" required:"true"`
}

type GetValidSignaturePositionsResponse struct {
	Positions []rbmu.SignaturePosition `json:"positions" doc:"the open positions of the current layer, each twice: without envelope (the layer and what it wraps) and with envelope (the whole document)"`
}

func bmuResult[T ~struct {
	Document rbmu.Document `json:"document"`
	DocXML   []byte        `json:"docXml" doc:"the note's XML, base64"`
}](r *bmu.Result, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &T{Document: *r.Document, DocXML: r.XML}, nil
}

func (s *Server) bmuOperations() []api.Operation {
	if s.bmu == nil {
		return nil
	}
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgBMU, Service: "BmuDocumentApi", Method: method, Summary: summary, Description: desc + bmuOurs}
	}
	return []api.Operation{
		api.Unary(op("CreateDocument", "Create a consignment note (BGS) or acceptance note (UNS)",
			"Builds the base layer for xmlOptions.atbRolle (ERZ when not set for a BGS; an UNS needs ERZ, BEF or ENT, else CANCELLED even with VALIDATION_NONE), "+
				"or with vorlageLayer a template layer. Validation is full without options: an incomplete or wrong note fails with CANCELLED (code 1, HTTP 499) "+
				"and a google.rpc.BadRequest listing every missing or wrong field; VALIDATION_NONE turns it off."),
			func(_ context.Context, r *CreateDocumentRequest) (*CreateDocumentResponse, error) {
				return bmuResult[CreateDocumentResponse](s.bmu.Create(&r.Document, r.VorlageLayer, r.XMLOptions))
			}),
		api.Unary(op("CreateDocumentFromTemplate", "Create a note from a template",
			"templateXml is a note whose top layer is a template (VORLAGE): the new note's base layer, for the template's role (ERZ when it names none), "+
				"holds the template's fields. A template exported from your store (DocumentTemplateApi/ExportTransportTemplate, its root carries templateId) "+
				"gives the note the next number of its block and its check digit, atomically: a used-up block is 400, code 9. It is checked for types only; "+
				"complete it with UpdateDocument."),
			func(ctx context.Context, r *CreateDocumentFromTemplateRequest) (*CreateDocumentFromTemplateResponse, error) {
				return bmuResult[CreateDocumentFromTemplateResponse](s.bmu.CreateFromTemplate(ctx, r.TemplateXML))
			}),
		api.Unary(op("UpdateDocument", "Write fields into the note's top layer",
			"Only fields with meta.inLayer true are written, into the top layer, which must be unsigned (400, code 9: add a layer first); a field without the "+
				"marker is ignored and the call still succeeds; fields not sent stay; a non-empty list sets the list's length. Options apply to this call only; "+
				"without them validation is full (CANCELLED with every violation)."),
			func(_ context.Context, r *UpdateDocumentRequest) (*UpdateDocumentResponse, error) {
				return bmuResult[UpdateDocumentResponse](s.bmu.Update(r.DocXML, &r.Document, r.XMLOptions))
			}),
		api.Unary(op("AddLayer", "Put a new layer on top of a consignment note",
			"Layers come in the order of their types' values (VORLAGE, ERZEUGER, BEFOERDERER, ENTSORGER, BEHOERDE, ERGAENZUNG, ZWISCHENLAGER); only BEFOERDERER "+
				"and ERGAENZUNG repeat; a wrong order is 400, code 9, naming the types that may follow. Works on a signed note. ERGAENZUNG needs xmlOptions.atbRolle. "+
				"Without xmlOptions the note is not validated. On an acceptance note (UNS): CANCELLED for every layer type."),
			func(_ context.Context, r *AddLayerRequest) (*AddLayerResponse, error) {
				return bmuResult[AddLayerResponse](s.bmu.AddLayer(r.DocXML, r.LayerType, r.XMLOptions))
			}),
		api.Unary(op("PrintDocument", "A note as a PDF: its fields, its layers, who signed which and whether each signature verifies",
			"The note as it stands (each field from the newest layer that sets it), then each layer, innermost first, with the fields it sets, "+
				"its signer, signing time and whether each signature verifies (the rule of GetDocument: the covered content unchanged and the "+
				"certificate trusted here). German (language de) or English titles; the content prints as recorded. The layout is our design: "+
				"the official forms of the NachwV are not reproduced."),
			func(_ context.Context, r *PrintBmuDocumentRequest) (*PrintBmuDocumentResponse, error) {
				lang, err := printLanguage(r.Language)
				if err != nil {
					return nil, err
				}
				p, err := s.bmu.Print(r.DocXML, lang)
				if err != nil {
					return nil, err
				}
				pdf, err := printing.Render(p.Form)
				if err != nil {
					return nil, err
				}
				return &PrintBmuDocumentResponse{Document: pdf, FileName: fileNameUnsafe.ReplaceAllString(strings.TrimSuffix(p.FileName, ".pdf"), "_") + ".pdf"}, nil
			}),
		api.Unary(op("GetDocument", "Read a note: its fields, layers, checked signatures and signature positions",
			"Each field's value comes from the newest layer that sets it; meta.inLayer says whether the top layer sets it. A signature is valid only when what "+
				"it covers is unchanged (a layer's signature covers it and every layer inside it) and its certificate is trusted here (WASTEFLOW_BMU_TRUSTED_CERTS)."),
			func(_ context.Context, r *GetBmuDocumentRequest) (*GetBmuDocumentResponse, error) {
				d, err := s.bmu.Get(r.DocXML)
				if err != nil {
					return nil, err
				}
				return &GetBmuDocumentResponse{Document: *d}, nil
			}),
		api.Unary(op("GetValidSignaturePositions", "The open signature positions of the note's current layer",
			"Each open position twice: without envelope (a signature of the layer, covering every layer inside it) and with envelope (a signature of the "+
				"whole document, which seals it: no layer or field can follow). A signed top layer, a template layer or a sealed note has none."),
			func(_ context.Context, r *GetValidSignaturePositionsRequest) (*GetValidSignaturePositionsResponse, error) {
				ps, err := s.bmu.Positions(r.DocXML)
				if err != nil {
					return nil, err
				}
				return &GetValidSignaturePositionsResponse{Positions: ps}, nil
			}),
	}
}
