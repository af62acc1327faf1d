package handlers

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/engine"
	"github.com/wasteflow/wasteflow/workflows/notifications"
	"github.com/wasteflow/wasteflow/workflows/status"
)

const (
	pkgDiwass = "svc.bxa.diwass.v1.api"
)

// NotificationDocument is the retrieval document of a prior written
// notification: identifiers, state, content, history, metadata, deadlines,
// and one pre-filled input block per intent (what SetByIntent executes).
type NotificationDocument struct {
	ID                  string                       `json:"id"`
	Number              string                       `json:"number" doc:"human notification number: country of the notifier, year, sequence"`
	Kind                string                       `json:"kind" doc:"NOTIFICATION"`
	State               string                       `json:"state" doc:"DRAFT, SUBMITTED, ACKNOWLEDGED, INFORMATION_REQUESTED, CONSENTED, CHANGE_REQUESTED, OBJECTED, EXPIRED, CONSENT_CANCELLED, CLOSED"`
	Version             int64                        `json:"version" doc:"send it back as version to detect concurrent changes (409, code 10)"`
	Notification        n.Content                    `json:"notification" doc:"the submitted content; also the block of SUBMISSION and CORRECTION"`
	PendingCorrections  []n.CorrectionRecord         `json:"corrections"`
	Acknowledgements    []n.AcknowledgementRecord    `json:"acknowledgements"`
	InformationRequests []n.InformationRequestRecord `json:"informationRequests"`
	Decisions           []n.DecisionRecord           `json:"decisions"`
	ChangeRequests      []n.ChangeRequestRecord      `json:"changeRequests"`
	Signals             []n.SignalRecord             `json:"signals"`
	ConsentConditions   []string                     `json:"consentConditions"`
	ConsentValidUntil   string                       `json:"consentValidUntil"`
	Metadata            n.Metadata                   `json:"metadata"`
	Deadlines           []DeadlineInfo               `json:"deadlines"`
	CreatedAt           time.Time                    `json:"createdAt"`
	UpdatedAt           time.Time                    `json:"updatedAt"`

	Acknowledgement           n.Acknowledgement           `json:"acknowledgement" doc:"input block of ACKNOWLEDGEMENT"`
	RequestInformation        n.RequestInformation        `json:"requestInformation" doc:"input block of REQUEST_INFORMATION"`
	ReplyToRequestInformation n.ReplyToRequestInformation `json:"replyToRequestInformation" doc:"input block of REPLY_TO_REQUEST_INFORMATION"`
	Decision                  n.Decision                  `json:"decision" doc:"input block of DECISION"`
	RequestForChange          n.RequestForChange          `json:"requestForChange" doc:"input block of REQUEST_FOR_CHANGE_AFTER_CONSENT"`
	ReplyToRequestForChange   n.ReplyToRequestForChange   `json:"replyToRequestForChange" doc:"input block of REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT"`
	NotificationSignal        n.NotificationSignal        `json:"notificationSignal" doc:"input block of NOTIFICATION_SIGNAL"`
}

// DeadlineInfo is a deadline of the document.
type DeadlineInfo struct {
	Rule           string     `json:"rule" doc:"ACKNOWLEDGEMENT_DUE, INFORMATION_REPLY_DUE, DECISION_DUE, CHANGE_REPLY_DUE, CONSENT_VALIDITY"`
	LegalBasis     string     `json:"legalBasis"`
	Party          string     `json:"party" doc:"organisation that must act"`
	PartyRole      string     `json:"partyRole"`
	State          string     `json:"state" doc:"OPEN, DUE_SOON, OVERDUE, SUSPENDED, MET, MET_LATE, CANCELLED"`
	StartedAt      time.Time  `json:"startedAt"`
	DueAt          time.Time  `json:"dueAt"`
	SuspendedSince *time.Time `json:"suspendedSince"`
	Remaining      string     `json:"remaining" doc:"while suspended: the time left when it was suspended, as a duration (e.g. 1728000s)"`
}

// FollowUpIntent is an intent the caller may fire now.
type FollowUpIntent struct {
	Intent    string     `json:"intent"` // values and meanings derived from the machines: see describeDomain
	Operation string     `json:"operation" doc:"REST path of the operation that executes it"`
	Block     string     `json:"block" doc:"the retrieval document's block it takes"`
	DueAt     *time.Time `json:"dueAt" doc:"the open deadline this action meets, if any"`
}

// BusinessError is a business rejection: the request was understood, but it
// breaks a waste-shipment rule; nothing changed.
type BusinessError struct {
	Code    string `json:"code"` // values derived from the rules: see describeDomain
	Message string `json:"message"`
	Field   string `json:"field"`
}

// NotificationResponse is every notification operation's answer.
type NotificationResponse struct {
	Document        NotificationDocument `json:"document"`
	FollowUpIntents []FollowUpIntent     `json:"followUpIntents"`
	BusinessErrors  []BusinessError      `json:"businessErrors"`
}

func toResponse(v *notifications.View, berrs []n.BusinessError) *NotificationResponse {
	d := v.Data
	doc := NotificationDocument{
		ID: v.Doc.ID, Number: v.Doc.Number, Kind: notifications.Kind, State: v.Doc.State, Version: v.Doc.Version,
		Notification: d.Content, PendingCorrections: d.Corrections, Acknowledgements: d.Acknowledgements,
		InformationRequests: d.InformationRequests, Decisions: d.Decisions, ChangeRequests: d.ChangeRequests,
		Signals: d.Signals, ConsentConditions: d.ConsentConditions, ConsentValidUntil: d.ConsentValidUntil, Metadata: d.Metadata,
		CreatedAt: v.Doc.CreatedAt, UpdatedAt: v.Doc.UpdatedAt, Deadlines: []DeadlineInfo{},
	}
	// Pre-filled blocks: what a UI would start from.
	if open := d.OpenInformationRequest(); open != nil {
		doc.ReplyToRequestInformation.Answers = make([]string, len(open.Questions))
	}
	doc.Decision.ValidUntil = d.ConsentValidUntil
	doc.NotificationSignal.ValidUntil = d.ConsentValidUntil
	for _, dl := range v.Deadlines {
		info := DeadlineInfo{Rule: dl.Rule, LegalBasis: dl.LegalBasis, Party: dl.PartyOrg, PartyRole: dl.PartyRole, State: dl.State,
			StartedAt: dl.StartedAt, DueAt: dl.DueAt, SuspendedSince: dl.SuspendedSince}
		if dl.SuspendedSince != nil {
			info.Remaining = strconv.FormatInt(int64(dl.DueAt.Sub(*dl.SuspendedSince)/time.Second), 10) + "s"
		}
		doc.Deadlines = append(doc.Deadlines, info)
	}
	out := &NotificationResponse{Document: doc, FollowUpIntents: []FollowUpIntent{}, BusinessErrors: []BusinessError{}}
	for _, f := range v.FollowUp {
		out.FollowUpIntents = append(out.FollowUpIntents, FollowUpIntent{Intent: f.Intent, Operation: f.Operation, Block: f.Block, DueAt: f.DueAt})
	}
	for _, b := range berrs {
		out.BusinessErrors = append(out.BusinessErrors, BusinessError(b))
	}
	return out
}

// Requests. Each names the document, optionally the version it expects,
// and its block.

type CreateSubmissionRequest struct {
	Notification n.Content  `json:"notification"`
	Metadata     n.Metadata `json:"metadata" doc:"addresses, additional data and file attachments (by reference) kept beside the content"`
}
type SetSubmissionRequest struct {
	DocumentID   string    `json:"documentId"`
	Version      *int64    `json:"version" doc:"expected version; a stale one answers 409, code 10"`
	Notification n.Content `json:"notification"`
}
type SetReplyToRequestInformationRequest struct {
	DocumentID                string                      `json:"documentId"`
	Version                   *int64                      `json:"version"`
	ReplyToRequestInformation n.ReplyToRequestInformation `json:"replyToRequestInformation"`
}
type SetRequestForChangeAfterConsentRequest struct {
	DocumentID       string             `json:"documentId"`
	Version          *int64             `json:"version"`
	RequestForChange n.RequestForChange `json:"requestForChange"`
}
type GetNotificationRequest struct {
	DocumentID string `json:"documentId"`
}
type SubmitAcknowledgementRequest struct {
	DocumentID      string            `json:"documentId"`
	Version         *int64            `json:"version"`
	Acknowledgement n.Acknowledgement `json:"acknowledgement"`
}
type SetRequestInformationRequest struct {
	DocumentID         string               `json:"documentId"`
	Version            *int64               `json:"version"`
	RequestInformation n.RequestInformation `json:"requestInformation"`
}
type SetDecisionRequest struct {
	DocumentID string     `json:"documentId"`
	Version    *int64     `json:"version"`
	Decision   n.Decision `json:"decision"`
}
type ReplyToRequestForChangeAfterConsentRequest struct {
	DocumentID              string                    `json:"documentId"`
	Version                 *int64                    `json:"version"`
	ReplyToRequestForChange n.ReplyToRequestForChange `json:"replyToRequestForChange"`
}
type SubmitNotificationSignalRequest struct {
	DocumentID         string               `json:"documentId"`
	Version            *int64               `json:"version"`
	NotificationSignal n.NotificationSignal `json:"notificationSignal"`
}
type SetByIntentRequest struct {
	Document NotificationDocument `json:"document" doc:"the retrieval document as received, with the intent's block filled in"`
	Intent   string               `json:"intent" doc:"one of the caller's current followUpIntents"`
}
type GetDocumentRequest struct {
	DocumentID string `json:"documentId"`
}

// Document is the generic container of the deprecated GetDocument.
type Document struct {
	Notification *NotificationDocument `json:"notification"`
}
type GetDocumentResponse struct {
	Document        Document         `json:"document"`
	FollowUpIntents []FollowUpIntent `json:"followUpIntents"`
	BusinessErrors  []BusinessError  `json:"businessErrors"`
}

// Responses: one name per operation, one shape.
type (
	CreateSubmissionResponse                    NotificationResponse
	SetSubmissionResponse                       NotificationResponse
	SetReplyToRequestInformationResponse        NotificationResponse
	SetRequestForChangeAfterConsentResponse     NotificationResponse
	GetNotificationResponse                     NotificationResponse
	SetByIntentResponse                         NotificationResponse
	SubmitAcknowledgementResponse               NotificationResponse
	SetRequestInformationResponse               NotificationResponse
	SetDecisionResponse                         NotificationResponse
	ReplyToRequestForChangeAfterConsentResponse NotificationResponse
	SubmitNotificationSignalResponse            NotificationResponse
)

func respond[R ~struct {
	Document        NotificationDocument `json:"document"`
	FollowUpIntents []FollowUpIntent     `json:"followUpIntents"`
	BusinessErrors  []BusinessError      `json:"businessErrors"`
}](v *notifications.View, berrs []n.BusinessError, err error) (*R, error) {
	if err != nil {
		return nil, err
	}
	r := R(*toResponse(v, berrs))
	return &r, nil
}

func needDocument(id string) error {
	if id == "" {
		return status.Invalid("documentId", "required")
	}
	return nil
}

func (s *Server) documentOperations() []Operation {
	if s.notes == nil {
		return nil
	}
	op := func(service, method, summary, desc string) Operation {
		return Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc}
	}
	const co, au = "CompanyDocumentApi", "AuthorityDocumentApi"
	const intents = " Answers the retrieval document with the caller's followUpIntents; business rejections come as businessErrors in an HTTP 200 answer with nothing changed. " +
		"An intent the state does not permit: 400, code 9 (the message names the state and what is permitted); a wrong party role: 403, code 7; " +
		"a document the caller is not a party to: 404, code 5; a stale version: 409, code 10."
	return []Operation{
		Unary(op(co, "CreateSubmission", "Create a prior written notification (DRAFT)",
			"The caller's organisation is the notifier. The content may be incomplete; codes and parties given are checked."+intents),
			func(ctx context.Context, r *CreateSubmissionRequest) (*CreateSubmissionResponse, error) {
				return respond[CreateSubmissionResponse](s.notes.Create(ctx, r.Notification, r.Metadata))
			}),
		Unary(op(co, "SetSubmission", "File (SUBMISSION) or correct (CORRECTION) a notification",
			"Chooses SUBMISSION for a DRAFT and CORRECTION for a filed notification. Before acknowledgement a correction replaces the content; "+
				"afterwards it stays pending until the authority of destination accepts it with an acknowledgement, which restarts the decision periods. "+
				"Submission starts ACKNOWLEDGEMENT_DUE (10 working days, Art. 8(2))."+intents),
			func(ctx context.Context, r *SetSubmissionRequest) (*SetSubmissionResponse, error) {
				if err := needDocument(r.DocumentID); err != nil {
					return nil, err
				}
				return respond[SetSubmissionResponse](s.notes.SetSubmission(ctx, r.DocumentID, r.Version, r.Notification))
			}),
		Unary(op(co, "SetReplyToRequestInformation", "Answer an information request (REPLY_TO_REQUEST_INFORMATION)",
			"complete: true ends the request and resumes every suspended decision period with its remaining time; an incomplete reply keeps them suspended."+intents),
			func(ctx context.Context, r *SetReplyToRequestInformationRequest) (*SetReplyToRequestInformationResponse, error) {
				return respond[SetReplyToRequestInformationResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentReplyToRequestInfo, &r.ReplyToRequestInformation))
			}),
		Unary(op(co, "SetRequestForChangeAfterConsent", "Ask for a change of a consented notification (REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			"Shipments continue under the existing terms until every authority replied; starts CHANGE_REPLY_DUE (5 working days, Art. 17(2))."+intents),
			func(ctx context.Context, r *SetRequestForChangeAfterConsentRequest) (*SetRequestForChangeAfterConsentResponse, error) {
				return respond[SetRequestForChangeAfterConsentResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentRequestForChange, &r.RequestForChange))
			}),
		Unary(op(co, "GetNotification", "A notification with metadata, deadlines and follow-up intents", "Only the document's parties see it."),
			func(ctx context.Context, r *GetNotificationRequest) (*GetNotificationResponse, error) {
				if err := needDocument(r.DocumentID); err != nil {
					return nil, err
				}
				v, err := s.notes.Get(ctx, r.DocumentID)
				return respond[GetNotificationResponse](v, nil, err)
			}),
		Unary(op(co, "SetByIntent", "Execute a follow-up intent with its block from the retrieval document",
			"Runs the intent's operation with document.<block> as its payload, exactly as if that operation had been called, with document.version as the "+
				"expected version. The intent must be one of the caller's current followUpIntents (400, code 9 otherwise). Movement documents are excluded (400, code 9)."+intents),
			s.setByIntent),
		deprecated(Unary(op(co, "GetDocument", "Deprecated: the notification in a generic container",
			"Deprecated: use GetNotification (GetAnnex7 and GetMovement for the other kinds)."), s.getDocument)),

		Unary(op(au, "GetDocument", "A document the authority is concerned with, in the generic container", "Only concerned authorities see it."), s.getDocument),
		Unary(op(au, "SubmitAcknowledgement", "Acknowledge receipt (ACKNOWLEDGEMENT)",
			"Authority of destination only. Not consent. Stops ACKNOWLEDGEMENT_DUE and starts DECISION_DUE (30 days, Art. 9(1)) for every concerned authority. "+
				"In ACKNOWLEDGED it accepts a pending correction and restarts the decision periods."+intents),
			func(ctx context.Context, r *SubmitAcknowledgementRequest) (*SubmitAcknowledgementResponse, error) {
				return respond[SubmitAcknowledgementResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentAcknowledgement, &r.Acknowledgement))
			}),
		Unary(op(au, "SetRequestInformation", "Request information from the notifier (REQUEST_INFORMATION)",
			"Suspends every running decision period and starts INFORMATION_REPLY_DUE (10 working days, Art. 8(3)). May be repeated."+intents),
			func(ctx context.Context, r *SetRequestInformationRequest) (*SetRequestInformationResponse, error) {
				return respond[SetRequestInformationResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentRequestInformation, &r.RequestInformation))
			}),
		Unary(op(au, "SetDecision", "Decide: CONSENT, CONSENT_WITH_CONDITIONS or OBJECTION (DECISION)",
			"Once per concerned authority. Consent needs dispatch and destination consent and each transit authority's consent or tacit consent "+
				"(its decision period expired); any objection (grounds required) ends in OBJECTED. Consent starts CONSENT_VALIDITY."+intents),
			func(ctx context.Context, r *SetDecisionRequest) (*SetDecisionResponse, error) {
				return respond[SetDecisionResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentDecision, &r.Decision))
			}),
		Unary(op(au, "ReplyToRequestForChangeAfterConsent", "Reply to a change request (REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			"ACCEPTED, ACCEPTED_WITH_CONDITIONS or REJECTED (grounds required), once per authority. When all replied the notification is CONSENTED again: "+
				"amended with the conditions if all accepted, unchanged on any rejection."+intents),
			func(ctx context.Context, r *ReplyToRequestForChangeAfterConsentRequest) (*ReplyToRequestForChangeAfterConsentResponse, error) {
				return respond[ReplyToRequestForChangeAfterConsentResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentReplyToChange, &r.ReplyToRequestForChange))
			}),
		Unary(op(au, "SubmitNotificationSignal", "Cancel the consent, close, or revalidate (NOTIFICATION_SIGNAL)",
			"CANCELLATION_OF_CONSENT ends in CONSENT_CANCELLED, CLOSURE in CLOSED, REVALIDATION (new validUntil) in CONSENTED."+intents),
			func(ctx context.Context, r *SubmitNotificationSignalRequest) (*SubmitNotificationSignalResponse, error) {
				return respond[SubmitNotificationSignalResponse](s.fireBlock(ctx, r.DocumentID, r.Version, notifications.IntentNotificationSignal, &r.NotificationSignal))
			}),
		withService(au, Unary(op(co, "SetByIntent", "Execute a follow-up intent with its block from the retrieval document",
			"As CompanyDocumentApi/SetByIntent, for authorities."+intents), s.setByIntent)),
	}
}

func deprecated(o Operation) Operation { o.Deprecated = true; return o }

func withService(service string, o Operation) Operation { o.Service = service; return o }

func (s *Server) fireBlock(ctx context.Context, id string, version *int64, intent string, block any) (*notifications.View, []n.BusinessError, error) {
	if err := needDocument(id); err != nil {
		return nil, nil, err
	}
	return s.notes.Fire(ctx, id, version, intent, block)
}

func (s *Server) getDocument(ctx context.Context, r *GetDocumentRequest) (*GetDocumentResponse, error) {
	if err := needDocument(r.DocumentID); err != nil {
		return nil, err
	}
	v, err := s.notes.Get(ctx, r.DocumentID)
	if err != nil {
		return nil, err
	}
	resp := toResponse(v, nil)
	return &GetDocumentResponse{Document: Document{Notification: &resp.Document}, FollowUpIntents: resp.FollowUpIntents, BusinessErrors: resp.BusinessErrors}, nil
}

// setByIntent executes intent with its block from the document, as the
// intent's own operation would.
func (s *Server) setByIntent(ctx context.Context, r *SetByIntentRequest) (*SetByIntentResponse, error) {
	d := &r.Document
	if d.Kind == "MOVEMENT" || d.Kind == "MOVEMENT_DOCUMENT" {
		return nil, status.New(status.FailedPrecondition, "movement documents are excluded from SetByIntent: use the movement operations")
	}
	if err := needDocument(d.ID); err != nil {
		return nil, status.Invalid("document.id", "required")
	}
	version := &d.Version
	if d.Version == 0 {
		version = nil
	}
	var v *notifications.View
	var berrs []n.BusinessError
	var err error
	switch r.Intent {
	case notifications.IntentSubmission, notifications.IntentCorrection:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.Notification)
	case notifications.IntentAcknowledgement:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.Acknowledgement)
	case notifications.IntentRequestInformation:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.RequestInformation)
	case notifications.IntentReplyToRequestInfo:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.ReplyToRequestInformation)
	case notifications.IntentDecision:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.Decision)
	case notifications.IntentRequestForChange:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.RequestForChange)
	case notifications.IntentReplyToChange:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.ReplyToRequestForChange)
	case notifications.IntentNotificationSignal:
		v, berrs, err = s.notes.Fire(ctx, d.ID, version, r.Intent, &d.NotificationSignal)
	default:
		return nil, status.New(status.FailedPrecondition, "intent %q is not one of your follow-up intents", r.Intent)
	}
	var se *status.Error
	if errors.As(err, &se) && se.Code == status.PermissionDenied {
		// Through SetByIntent a wrong role is just an intent not offered.
		return nil, status.New(status.FailedPrecondition, "intent %s is not one of your follow-up intents: %s", r.Intent, se.Message)
	}
	return respond[SetByIntentResponse](v, berrs, err)
}

// describeDomain writes the intent values (with their summaries, from the
// machines' declarations) and the business error codes (from the rules)
// into the description, so neither is a second hand-written list.
func describeDomain(doc *openapi3.T, machines []*engine.Machine) {
	prop := func(component, field string) *openapi3.Schema {
		c := doc.Components.Schemas[component]
		if c == nil || c.Value == nil || c.Value.Properties[field] == nil {
			return nil
		}
		return c.Value.Properties[field].Value
	}
	if p := prop("FollowUpIntent", "intent"); p != nil {
		var b strings.Builder
		b.WriteString("The intent; by document kind:")
		p.Enum = nil
		for _, m := range machines {
			fmt.Fprintf(&b, "\n\n%s:", m.Def.Kind)
			for _, in := range m.Def.Intents {
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
		p.Enum = nil
		for _, c := range n.BusinessErrorCodes {
			p.Enum = append(p.Enum, c)
		}
		p.Description = "The rule that was broken. QUANTITY_EXCEEDS_NOTIFIED_TOTAL, SHIPMENT_COUNT_EXCEEDED, CONSENT_NOT_VALID_ON_DATE and " +
			"PRIOR_NOTICE_TOO_LATE belong to movement documents."
	}
}
