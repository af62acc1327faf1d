package handlers

import (
	"context"

	m "github.com/wasteflow/wasteflow/rules/movement"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/workflows/documents"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/movements"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// MovementResponse is every movement operation's answer.
type MovementResponse struct {
	Document        *movements.MovementDocument `json:"document" doc:"null when a create is refused (businessErrors say why)"`
	FollowUpIntents []FollowUpIntent            `json:"followUpIntents"`
	BusinessErrors  []BusinessError             `json:"businessErrors"`
}

// DocumentRef names the document an intent operation acts on.
type DocumentRef struct {
	DocumentID string `json:"documentId" required:"true"`
	Version    *int64 `json:"version" doc:"expected version; a stale one answers 409, code 10"`
}

type CreateMovementTemplateRequest struct {
	NotificationID   string            `json:"notificationId" required:"true" doc:"the consented notification the shipment is made under"`
	MovementTemplate m.Template        `json:"movementTemplate"`
	Metadata         shipment.Metadata `json:"metadata"`
}
type SetMovementTemplateRequest struct {
	DocumentRef      `json:",inline"`
	MovementTemplate m.Template `json:"movementTemplate"`
}
type SetCarrierTransportRequest struct {
	DocumentRef      `json:",inline"`
	CarrierTransport m.CarrierTransport `json:"carrierTransport"`
}
type SetConsigneeReceptionRequest struct {
	DocumentRef        `json:",inline"`
	ConsigneeReception m.ConsigneeReception `json:"consigneeReception"`
}
type SetFacilityReceptionRequest struct {
	DocumentRef       `json:",inline"`
	FacilityReception m.FacilityReception `json:"facilityReception"`
}
type SetFacilityCompletionRequest struct {
	DocumentRef        `json:",inline"`
	FacilityCompletion m.FacilityCompletion `json:"facilityCompletion"`
}
type SubmitMovementSignalApiRequest struct {
	DocumentRef    `json:",inline"`
	MovementSignal m.Signal `json:"movementSignal"`
}
type SetMovementTakeBackRequest struct {
	DocumentRef `json:",inline"`
	TakeBack    m.TakeBack `json:"takeBack"`
}
type GetMovementRequest struct {
	DocumentID string `json:"documentId" required:"true"`
}

// SubmitAcknowledgementResponse answers an acknowledgement of either kind.
type SubmitAcknowledgementResponse struct {
	Document        *notifications.NotificationDocument `json:"document" doc:"the notification acknowledged; null for a movement"`
	Movement        *movements.MovementDocument         `json:"movement" doc:"the movement acknowledged; null for a notification"`
	FollowUpIntents []FollowUpIntent                    `json:"followUpIntents"`
	BusinessErrors  []BusinessError                     `json:"businessErrors"`
}

type (
	CreateMovementTemplateResponse MovementResponse
	SetMovementTemplateResponse    MovementResponse
	SetCarrierTransportResponse    MovementResponse
	SetConsigneeReceptionResponse  MovementResponse
	SetFacilityReceptionResponse   MovementResponse
	SetFacilityCompletionResponse  MovementResponse
	SubmitMovementSignalResponse   MovementResponse
	SetMovementTakeBackResponse    MovementResponse
	GetMovementResponse            MovementResponse
)

func (s *Server) submitAcknowledgement(ctx context.Context, r *SubmitAcknowledgementRequest) (*SubmitAcknowledgementResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	v, berrs, err := s.docs.Fire(ctx, documents.Target{ID: r.DocumentID, Kinds: []string{notifications.Kind, movements.Kind}, Version: r.Version},
		[]string{notifications.IntentAcknowledgement}, &r.Acknowledgement)
	if err != nil {
		return nil, err
	}
	resp := &SubmitAcknowledgementResponse{FollowUpIntents: followUps(v), BusinessErrors: businessErrors(berrs)}
	switch d := v.Kind.Document(v).(type) {
	case *notifications.NotificationDocument:
		resp.Document = d
	case *movements.MovementDocument:
		resp.Movement = d
	}
	return resp, nil
}

func (s *Server) movementOperations() []Operation {
	if s.docs == nil {
		return nil
	}
	op := func(service, method, summary, desc string) Operation {
		return Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc}
	}
	const co, au, kind = "CompanyDocumentApi", "AuthorityDocumentApi", movements.Kind
	const intents = intentsDescription
	fire := func(ctx context.Context, ref DocumentRef, block any, intent string) (*documents.View, []engine.BusinessError, error) {
		return s.fireBlock(ctx, kind, ref.DocumentID, ref.Version, block, intent)
	}
	return []Operation{
		Unary(op(co, "CreateMovementTemplate", "Announce one shipment under a consented notification (SUBMITTED)",
			"The notifier, while the notification is CONSENTED or CHANGE_REQUESTED and a shipment and some quantity are left (it offers "+
				"CREATE_MOVEMENT then; otherwise 400, code 9, saying why). "+
				"In one transaction that locks the notification: the number of movements stays within numberOfShipments "+
				"and their quantities within totalQuantity (QUANTITY_EXCEEDS_NOTIFIED_TOTAL); every movement created counts, whatever its state. "+
				"actualDateOfShipment within the consent's validity and the shipment period (CONSENT_NOT_VALID_ON_DATE) and at least 2 working days "+
				"ahead (PRIOR_NOTICE_TOO_LATE); carriers and packaging among the notified. sequenceNumber is assigned when absent. "+
				"The human number is our design: the notification's number, M and the sequence number (DE-2026-000001-M001)."+intents),
			func(ctx context.Context, r *CreateMovementTemplateRequest) (*CreateMovementTemplateResponse, error) {
				return respond[CreateMovementTemplateResponse](s.docs.Create(ctx, kind, &movements.CreateInput{NotificationID: r.NotificationID, Template: r.MovementTemplate, Metadata: r.Metadata}))
			}),
		Unary(op(co, "SetMovementTemplate", "Change the movement template (MOVEMENT_TEMPLATE)",
			"Before a carrier took the waste over; afterwards once per REQUEST_CORRECTION signal of an authority. Checked like the creation, "+
				"with the other movements' quantities; the prior notice again only when the date moves."+intents),
			func(ctx context.Context, r *SetMovementTemplateRequest) (*SetMovementTemplateResponse, error) {
				return respond[SetMovementTemplateResponse](fire(ctx, r.DocumentRef, &r.MovementTemplate, movements.IntentTemplate))
			}),
		Unary(op(co, "SetCarrierTransport", "A carrier takes custody (CARRIER_TRANSPORT)",
			"Each of the movement's carriers once, in turn; takenOverOn not in the future and not before the shipment date or the previous leg (DATE_OUT_OF_RANGE)."+intents),
			func(ctx context.Context, r *SetCarrierTransportRequest) (*SetCarrierTransportResponse, error) {
				return respond[SetCarrierTransportResponse](fire(ctx, r.DocumentRef, &r.CarrierTransport, movements.IntentCarrierTransport))
			}),
		Unary(op(co, "SetConsigneeReception", "The consignee certifies receipt (CONSIGNEE_RECEPTION)",
			"Due 3 working days after the receipt (RECEIPT_CERTIFICATE_DUE); a later one is recorded as MET_LATE."+intents),
			func(ctx context.Context, r *SetConsigneeReceptionRequest) (*SetConsigneeReceptionResponse, error) {
				return respond[SetConsigneeReceptionResponse](fire(ctx, r.DocumentRef, &r.ConsigneeReception, movements.IntentConsigneeReception))
			}),
		Unary(op(co, "SetFacilityReception", "The facility certifies receipt or rejects the shipment (FACILITY_RECEPTION)",
			"rejected: true with a reason makes the movement REJECTED (every party, the authority of destination included, gets a state-change event); "+
				"otherwise COMPLETION_CERTIFICATE_DUE starts: 30 days after completion, at most a year after receipt."+intents),
			func(ctx context.Context, r *SetFacilityReceptionRequest) (*SetFacilityReceptionResponse, error) {
				return respond[SetFacilityReceptionResponse](fire(ctx, r.DocumentRef, &r.FacilityReception, movements.IntentFacilityReception))
			}),
		Unary(op(co, "SetFacilityCompletion", "The facility certifies completion (FACILITY_COMPLETION)",
			"operationCode must be one of the notification's R or D codes (RECOVERY_DISPOSAL_CODE_INVALID)."+intents),
			func(ctx context.Context, r *SetFacilityCompletionRequest) (*SetFacilityCompletionResponse, error) {
				return respond[SetFacilityCompletionResponse](fire(ctx, r.DocumentRef, &r.FacilityCompletion, movements.IntentFacilityCompletion))
			}),
		Unary(op(co, "GetMovement", "A movement document with metadata, deadlines and follow-up intents",
			"Only the movement's parties (the notification's, and its own carriers) see it; anyone else gets 404."),
			func(ctx context.Context, r *GetMovementRequest) (*GetMovementResponse, error) {
				return respond[GetMovementResponse](s.get(ctx, kind, r.DocumentID))
			}),
		Unary(op(au, "SubmitMovementSignal", "Confirm, reject or request a correction of a movement (MOVEMENT_SIGNAL)",
			"Any concerned authority, in any state but COMPLETED and TAKEN_BACK. CONFIRM is recorded; the authority of dispatch's CONFIRM on a "+
				"TAKE_BACK_ORDERED movement records the waste back (TAKEN_BACK). REJECT makes it REJECTED; REQUEST_CORRECTION lets the notifier change "+
				"the template once. REJECT and REQUEST_CORRECTION need a reason."+intents),
			func(ctx context.Context, r *SubmitMovementSignalApiRequest) (*SubmitMovementSignalResponse, error) {
				return respond[SubmitMovementSignalResponse](fire(ctx, r.DocumentRef, &r.MovementSignal, movements.IntentSignal))
			}),
		Unary(op(au, "SetMovementTakeBack", "Order the take-back of a shipment (MOVEMENT_TAKE_BACK)",
			"The authority of dispatch, once the waste is under way, received or rejected. Starts TAKE_BACK_DUE for the notifier: the agreed dueOn, "+
				"or 90 days (Art. 22(2))."+intents),
			func(ctx context.Context, r *SetMovementTakeBackRequest) (*SetMovementTakeBackResponse, error) {
				return respond[SetMovementTakeBackResponse](fire(ctx, r.DocumentRef, &r.TakeBack, movements.IntentTakeBack))
			}),
	}
}
