package handlers

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/models/qpar"
	"github.com/wasteflow/wasteflow/workflows/signer"
	"github.com/wasteflow/wasteflow/workflows/status"
)

const pkgSigner = "svc.signer.sign.v1"

// signerDesign is said in every signing operation's description.
const signerDesign = " Paths and fields of the signing service are our design (the interface does not show them). States: CREATED, OPENED (the signer " +
	"opened the page), SIGNED (signedDocument holds the complete signed XML), DECLINED, EXPIRED, CANCELLED. Unlike the system the interface describes, " +
	"ours signs BMU layer positions too (a position from BmuDocumentApi/GetValidSignaturePositions); any other XML is signed at its root " +
	"(position \"document\"). Signatures are XML-DSig with the signer's configured key and certificate; the demo's are self-signed test " +
	"certificates, not qualified electronic signatures."

// SigningProcess is a process as the API shows it.
type SigningProcess struct {
	ID             string           `json:"id"`
	State          string           `json:"state" doc:"CREATED, OPENED, SIGNED, DECLINED, EXPIRED or CANCELLED"`
	Signer         string           `json:"signer" doc:"username of the one person who may sign"`
	Position       string           `json:"position"`
	SigningURL     string           `json:"signingUrl" doc:"the page the signer opens (absolute when WASTEFLOW_PUBLIC_URL is set)"`
	RequestedBy    SigningRequester `json:"requestedBy" doc:"who asked for the signature: the account that created the process and its organisation"`
	CreatedAt      time.Time        `json:"createdAt" doc:"when the signature was asked for"`
	ExpiresAt      time.Time        `json:"expiresAt"`
	OpenedAt       *time.Time       `json:"openedAt"`
	CompletedAt    *time.Time       `json:"completedAt" doc:"when it was signed, declined, cancelled or expired"`
	Reason         string           `json:"reason" doc:"why it was declined, cancelled or expired"`
	SignedDocument []byte           `json:"signedDocument" doc:"SIGNED: the complete signed XML, base64 (empty in ListSigningProcesses: GetSigningProcess returns it)"`
}

// SigningRequester is who asked for a signature.
type SigningRequester struct {
	Username         string `json:"username" doc:"the account that created the process"`
	OrganisationID   string `json:"organisationId" doc:"its organisation"`
	OrganisationName string `json:"organisationName" doc:"its organisation's name"`
}

type CreateSigningProcessRequest struct {
	Document         []byte `json:"document" required:"true" doc:"the current XML, base64: a BMU note or any other XML document"`
	Position         string `json:"position" doc:"a signature position id of the note (layer-2, layer-2+envelope); the first open one when empty; \"document\" for other XML"`
	Signer           string `json:"signer" required:"true" maxLength:"200" doc:"username of the person who is to sign: an account of this provider in your organisation, or in the organisation that holds the position by its official number in the note (403, code 7, otherwise)"`
	ExpiresInSeconds int32  `json:"expiresInSeconds" doc:"lifetime of the process; 24 hours when not set, at most 30 days (2592000; more is refused)"`
}

type SigningProcessRequest struct {
	ProcessID string `json:"processId" required:"true"`
}

type WaitSigningProcessRequest struct {
	ProcessID   string `json:"processId" required:"true"`
	WaitSeconds int32  `json:"waitSeconds" doc:"wait up to this long (at most 30) for the process to end; answers at once when it has"`
}

type DeclineSigningProcessRequest struct {
	ProcessID string `json:"processId" required:"true"`
	Reason    string `json:"reason"`
}

type SigningProcessResponse struct {
	Process SigningProcess `json:"process"`
}

type (
	CreateSigningProcessResponse  SigningProcessResponse
	GetSigningProcessResponse     SigningProcessResponse
	WaitSigningProcessResponse    SigningProcessResponse
	CancelSigningProcessResponse  SigningProcessResponse
	SignSigningProcessResponse    SigningProcessResponse
	DeclineSigningProcessResponse SigningProcessResponse
)

type ListSigningProcessesRequest struct {
	Qpar qpar.QueryParameter `json:"qpar" doc:"filter, sort and paging, as in the store lists; without a filter on state only the processes that have not ended (CREATED, OPENED); no mask"`
}

type ListSigningProcessesResponse struct {
	Processes []SigningProcess `json:"processes" doc:"the processes of your organisation and those you are to sign that qpar selects (without a filter on state: those that have not ended)"`
	Total     int64            `json:"total" doc:"processes that match, over all pages"`
}

// LayerFields is one layer of a note as the signing page shows it.
type LayerFields struct {
	Index     int32        `json:"index"`
	LayerType string       `json:"layerType"`
	AtbRolle  string       `json:"atbRolle"`
	Name      string       `json:"name"`
	Signed    bool         `json:"signed"`
	SignedBy  string       `json:"signedBy"`
	Fields    []FieldValue `json:"fields" doc:"what this layer sets"`
}

// FieldValue is one field a layer sets.
type FieldValue struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

type OpenSigningProcessResponse struct {
	Process SigningProcess `json:"process"`
	Covers  string         `json:"covers" doc:"what the signature will cover, in words"`
	Layers  []LayerFields  `json:"layers" doc:"a BMU note's layers, innermost first, each with the fields it sets; once SIGNED, those of the signed note"`
	XML     string         `json:"xml" doc:"a document that is not a BMU note: its XML as text (once SIGNED, the signed XML)"`
	Sealed  bool           `json:"sealed" doc:"a BMU note carries a signature of the whole document (a +envelope position was signed)"`
}

func (s *Server) process(sp *signer.Process) SigningProcess {
	p := SigningProcess{ID: sp.ID, State: sp.State, Signer: sp.SignerName, Position: sp.Position, SigningURL: s.cfg.PublicURL + "/ui/sign?process=" + sp.ID,
		RequestedBy: SigningRequester{Username: sp.RequestedBy, OrganisationID: sp.OrganisationID, OrganisationName: sp.OrganisationName},
		CreatedAt:   sp.CreatedAt, ExpiresAt: sp.ExpiresAt, OpenedAt: sp.OpenedAt, CompletedAt: sp.CompletedAt, Reason: sp.Reason}
	if sp.State == signer.Signed {
		p.SignedDocument = sp.Result
	}
	return p
}

func (s *Server) processResponse(sp *signer.Process, err error) (*SigningProcessResponse, error) {
	if err != nil {
		return nil, err
	}
	return &SigningProcessResponse{Process: s.process(sp)}, nil
}

func signerResult[T ~struct {
	Process SigningProcess `json:"process"`
}](r *SigningProcessResponse, err error) (*T, error) {
	if err != nil {
		return nil, err
	}
	return &T{Process: r.Process}, nil
}

func (s *Server) signerOperations() []api.Operation {
	if s.signer == nil {
		return nil
	}
	op := func(method, summary, desc string) api.Operation {
		return api.Operation{Package: pkgSigner, Service: "SigningProcessApi", Method: method, Verb: http.MethodPost, Summary: summary, Description: desc + signerDesign}
	}
	return []api.Operation{
		api.Unary(op("CreateSigningProcess", "Ask a person to sign a document",
			"Creates a process with the current XML for one named person, who signs through the signing page at signingUrl. Who may be asked: "+
				signer.AskRule+"; for any other XML, only a person of your own organisation. Anyone else is refused with 403, code 7 "+
				"(google.rpc.ErrorInfo reason SIGNER_NOT_PERMITTED, metadata signer and position), and no process is created; an unknown "+
				"username is 400, code 3."),
			func(ctx context.Context, r *CreateSigningProcessRequest) (*CreateSigningProcessResponse, error) {
				return signerResult[CreateSigningProcessResponse](s.processResponse(s.signer.Create(ctx, r.Document, r.Position, r.Signer, time.Duration(r.ExpiresInSeconds)*time.Second)))
			}),
		api.Unary(op("GetSigningProcess", "Read a signing process", "For the organisation that created it and for its signer; requestedBy and createdAt say who asked and when."),
			func(ctx context.Context, r *SigningProcessRequest) (*GetSigningProcessResponse, error) {
				return signerResult[GetSigningProcessResponse](s.processResponse(s.signer.Get(ctx, r.ProcessID)))
			}),
		api.Unary(op("WaitSigningProcess", "Wait for a signing process to end (long poll)",
			"Answers as soon as the process is SIGNED, DECLINED, EXPIRED or CANCELLED, or after waitSeconds (at most 30) with its current state."),
			func(ctx context.Context, r *WaitSigningProcessRequest) (*WaitSigningProcessResponse, error) {
				wait := time.Duration(min(max(r.WaitSeconds, 0), 30)) * time.Second
				return signerResult[WaitSigningProcessResponse](s.processResponse(s.signer.Wait(ctx, r.ProcessID, wait)))
			}),
		api.Unary(op("CancelSigningProcess", "Withdraw a signing process", "Only the organisation that created it; a process that ended stays as it is (400, code 9)."),
			func(ctx context.Context, r *SigningProcessRequest) (*CancelSigningProcessResponse, error) {
				return signerResult[CancelSigningProcessResponse](s.processResponse(s.signer.Cancel(ctx, r.ProcessID)))
			}),
		api.Unary(op("ListSigningProcesses", "Signing processes: those that have not ended, or as the filter selects",
			"Those your organisation created and those you are to sign, each with who asked (requestedBy) and when (createdAt). Without a filter on "+
				"`state` the list keeps the processes that have not ended (CREATED, OPENED), as before; a filter on `state` selects among all of them, "+
				"ended ones included (e.g. `{\"path\":\"state\",\"op\":\"IN_LIST\",\"operands\":[{\"s\":\"SIGNED\"},{\"s\":\"DECLINED\"}]}`; "+
				"IN_LIST with all six states lists every process). Rows leave signedDocument empty: GetSigningProcess returns it. qpar.mask is not supported (400). "+
				qpar.Describe(signer.ListSchema)),
			func(ctx context.Context, r *ListSigningProcessesRequest) (*ListSigningProcessesResponse, error) {
				if strings.TrimSpace(r.Qpar.Mask) != "" {
					return nil, status.Invalid("qpar.mask", "ListSigningProcesses returns whole rows: no mask")
				}
				list, total, err := s.signer.List(ctx, &r.Qpar)
				if err != nil {
					return nil, err
				}
				out := &ListSigningProcessesResponse{Processes: []SigningProcess{}, Total: total}
				for i := range list {
					out.Processes = append(out.Processes, s.process(&list[i]))
				}
				return out, nil
			}),
		api.Unary(op("OpenSigningProcess", "What the signer is asked to sign (the signing page)",
			"Only the signer; marks the process OPENED. A BMU note comes as its layers with the fields each sets, and what the signature covers."),
			func(ctx context.Context, r *SigningProcessRequest) (*OpenSigningProcessResponse, error) {
				sp, prep, err := s.signer.Open(ctx, r.ProcessID)
				if err != nil {
					return nil, err
				}
				out := &OpenSigningProcessResponse{Process: s.process(sp), Covers: prep.Covers, Layers: []LayerFields{}}
				if prep.Doc == nil {
					out.XML = string(sp.Document)
					if sp.State == signer.Signed {
						out.XML = string(sp.Result)
					}
					return out, nil
				}
				out.Sealed = prep.Doc.Sealed()
				infos := prep.Doc.Layers()
				for i, l := range prep.Doc.Note().Layers {
					lf := LayerFields{Index: int32(l.Index), LayerType: l.Type.String(), AtbRolle: l.Role.String(), Name: infos[i].Name, Signed: l.Signed,
						SignedBy: infos[i].SignedBy, Fields: []FieldValue{}}
					for _, p := range l.Paths() {
						lf.Fields = append(lf.Fields, FieldValue{Path: p, Value: l.Values[p]})
					}
					out.Layers = append(out.Layers, lf)
				}
				return out, nil
			}),
		api.Unary(op("SignSigningProcess", "Sign (the signing page)", "Only the signer, while the process is CREATED or OPENED and not expired."),
			func(ctx context.Context, r *SigningProcessRequest) (*SignSigningProcessResponse, error) {
				return signerResult[SignSigningProcessResponse](s.processResponse(s.signer.Sign(ctx, r.ProcessID)))
			}),
		api.Unary(op("DeclineSigningProcess", "Decline to sign (the signing page)", "Only the signer; the reason reaches the caller."),
			func(ctx context.Context, r *DeclineSigningProcessRequest) (*DeclineSigningProcessResponse, error) {
				return signerResult[DeclineSigningProcessResponse](s.processResponse(s.signer.Decline(ctx, r.ProcessID, r.Reason)))
			}),
	}
}
