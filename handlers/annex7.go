package handlers

import (
	"context"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/annex7"
)

// Annex7Response is every Annex VII operation's answer.
type Annex7Response struct {
	Document        *annex7.Annex7Document `json:"document" doc:"null when a create is refused (businessErrors say why)"`
	FollowUpIntents []FollowUpIntent       `json:"followUpIntents"`
	BusinessErrors  []BusinessError        `json:"businessErrors"`
}

// Requests: the document, optionally the version it expects, and its block.

type CreateAnnex7Request struct {
	Annex7   *a.Content        `json:"annex7" required:"true" doc:"the announcement, complete or not ({} for an empty draft); a create without it is refused and uses no number"`
	Metadata shipment.Metadata `json:"metadata" doc:"addresses, additional data and file attachments (by reference) kept beside the content"`
}
type SetAnnex7Request struct {
	DocumentID string    `json:"documentId" required:"true"`
	Version    *int64    `json:"version" doc:"expected version; a stale one answers 409, code 10"`
	Annex7     a.Content `json:"annex7"`
}
type SetAnnex7CarrierTransferRequest struct {
	DocumentID      string            `json:"documentId" required:"true"`
	Version         *int64            `json:"version"`
	CarrierTransfer a.CarrierTransfer `json:"carrierTransfer"`
}
type SetAnnex7ConsigneeCertificateRequest struct {
	DocumentID           string               `json:"documentId" required:"true"`
	Version              *int64               `json:"version"`
	ConsigneeCertificate a.ReceiptCertificate `json:"consigneeCertificate"`
}
type SetAnnex7FacilityCertificateRequest struct {
	DocumentID          string               `json:"documentId" required:"true"`
	Version             *int64               `json:"version"`
	FacilityCertificate a.ReceiptCertificate `json:"facilityCertificate"`
}
type SetAnnex7CertificateOfCompletionRequest struct {
	DocumentID              string                    `json:"documentId" required:"true"`
	Version                 *int64                    `json:"version"`
	CertificateOfCompletion a.CertificateOfCompletion `json:"certificateOfCompletion"`
}
type SetAnnex7TakeBackRequest struct {
	DocumentID string     `json:"documentId" required:"true"`
	Version    *int64     `json:"version"`
	TakeBack   a.TakeBack `json:"takeBack"`
}
type GetAnnex7Request struct {
	DocumentID string `json:"documentId" required:"true"`
}

// Responses: one name per operation, one shape.
type (
	CreateAnnex7Response                     Annex7Response
	SetAnnex7Response                        Annex7Response
	SetAnnex7CarrierTransferResponse         Annex7Response
	SetAnnex7ConsigneeCertificateResponse    Annex7Response
	SetAnnex7FacilityCertificateResponse     Annex7Response
	SetAnnex7CertificateOfCompletionResponse Annex7Response
	SetAnnex7TakeBackResponse                Annex7Response
	GetAnnex7Response                        Annex7Response
)

func (s *Server) annex7Operations() []Operation {
	if s.docs == nil {
		return nil
	}
	op := func(method, summary, desc string) Operation {
		return Operation{Package: pkgDiwass, Service: "CompanyDocumentApi", Method: method, Summary: summary, Description: desc}
	}
	const kind = annex7.Kind
	const intents = intentsDescription
	return []Operation{
		Unary(op("CreateAnnex7", "Create an Annex VII document for green-listed waste (DRAFT)",
			"The caller's organisation is the arranger (Art. 18). The content may be incomplete; what is given is checked: parties, "+
				"codes in force on the day (WASTE_CLASSIFICATION_INVALID_CODE), green-listed waste only (WASTE_NOT_GREEN_LISTED for amber-listed or hazardous codes), "+
				"recovery only (RECOVERY_DISPOSAL_CODE_INVALID for a D code). takeBackOf names the document whose initiated take-back this shipment carries out "+
				"(TAKE_BACK_REFERENCE_INVALID otherwise). The human number is our design: DE-A7-2026-000001."+intents),
			func(ctx context.Context, r *CreateAnnex7Request) (*CreateAnnex7Response, error) {
				return respond[CreateAnnex7Response](s.docs.Create(ctx, kind, &annex7.CreateInput{Content: *r.Annex7, Metadata: r.Metadata}))
			}),
		Unary(op("SetAnnex7", "Announce (SUBMISSION) or correct (CORRECTION) an Annex VII document",
			"Chooses SUBMISSION for a DRAFT and CORRECTION for an ANNOUNCED document (before any carrier took the waste over). The content must be "+
				"complete; actualDateOfShipment at least 2 working days (of the arranger's country) after the announcement, else PRIOR_NOTICE_TOO_LATE "+
				"(checked again on a correction that moves the date)."+intents),
			func(ctx context.Context, r *SetAnnex7Request) (*SetAnnex7Response, error) {
				return respond[SetAnnex7Response](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.Annex7, annex7.IntentSubmission, annex7.IntentCorrection))
			}),
		Unary(op("SetAnnex7CarrierTransfer", "A carrier takes the waste over (CARRIER_TRANSFER)",
			"Each announced carrier once, in turn; transferDate not in the future in the carrier's time zone (DATE_OUT_OF_RANGE)."+intents),
			func(ctx context.Context, r *SetAnnex7CarrierTransferRequest) (*SetAnnex7CarrierTransferResponse, error) {
				return respond[SetAnnex7CarrierTransferResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.CarrierTransfer, annex7.IntentCarrierTransfer))
			}),
		Unary(op("SetAnnex7ConsigneeCertificate", "The consignee certifies receipt (CONSIGNEE_CERTIFICATE)",
			"receivedOn not in the future and not before the shipment. The certificate is due 3 working days after the receipt (RECEIPT_CERTIFICATE_DUE): "+
				"a later one is accepted and recorded as MET_LATE."+intents),
			func(ctx context.Context, r *SetAnnex7ConsigneeCertificateRequest) (*SetAnnex7ConsigneeCertificateResponse, error) {
				return respond[SetAnnex7ConsigneeCertificateResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.ConsigneeCertificate, annex7.IntentConsigneeCertificate))
			}),
		Unary(op("SetAnnex7FacilityCertificate", "The recovery facility or laboratory certifies receipt (FACILITY_CERTIFICATE)",
			"As the consignee's certificate (RECEIPT_CERTIFICATE_DUE for the facility); starts COMPLETION_CERTIFICATE_DUE: at most 1 year after the receipt."+intents),
			func(ctx context.Context, r *SetAnnex7FacilityCertificateRequest) (*SetAnnex7FacilityCertificateResponse, error) {
				return respond[SetAnnex7FacilityCertificateResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.FacilityCertificate, annex7.IntentFacilityCertificate))
			}),
		Unary(op("SetAnnex7CertificateOfCompletion", "The facility certifies the recovery completed (CERTIFICATE_OF_COMPLETION); closes the document",
			"completedOn not in the future, not before the facility's receipt; recoveryCode the announced one (its default; another is "+
				"RECOVERY_DISPOSAL_CODE_INVALID, as a movement's completion names a notified operation). The certificate is due "+
				"30 days after completion and at most 1 year after receipt (COMPLETION_CERTIFICATE_DUE); a later one is recorded as MET_LATE. "+
				"For a document with takeBackOf, completion marks the original TAKEN_BACK."+intents),
			func(ctx context.Context, r *SetAnnex7CertificateOfCompletionRequest) (*SetAnnex7CertificateOfCompletionResponse, error) {
				return respond[SetAnnex7CertificateOfCompletionResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.CertificateOfCompletion, annex7.IntentCertificateOfCompletion))
			}),
		Unary(op("SetAnnex7TakeBack", "Initiate the take-back of a shipment (TAKE_BACK)",
			"The arranger, once the waste is under way or received; a reason is required. Starts TAKE_BACK_DUE (90 days, Art. 22(2)). "+
				"The take-back is carried out by a new Annex VII document created with takeBackOf set to this one."+intents),
			func(ctx context.Context, r *SetAnnex7TakeBackRequest) (*SetAnnex7TakeBackResponse, error) {
				return respond[SetAnnex7TakeBackResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.TakeBack, annex7.IntentTakeBack))
			}),
		Unary(op("GetAnnex7", "An Annex VII document with metadata, deadlines and follow-up intents",
			"Only the document's parties see it (competent authorities read it here or with AuthorityDocumentApi/GetDocument)."),
			func(ctx context.Context, r *GetAnnex7Request) (*GetAnnex7Response, error) {
				return respond[GetAnnex7Response](s.get(ctx, kind, r.DocumentID))
			}),
	}
}
