package handlers

import (
	"context"

	n "github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/workflows/notifications"
)

// NotificationResponse is every notification operation's answer.
type NotificationResponse struct {
	Document        *notifications.NotificationDocument `json:"document" doc:"null when a create is refused (businessErrors say why)"`
	FollowUpIntents []FollowUpIntent                    `json:"followUpIntents"`
	BusinessErrors  []BusinessError                     `json:"businessErrors"`
}

// Requests. Each names the document, optionally the version it expects,
// and its block.

type CreateSubmissionRequest struct {
	Notification *n.Content `json:"notification" required:"true" doc:"the content, complete or not ({} for an empty draft); a create without it is refused and uses no number"`
	Metadata     n.Metadata `json:"metadata" doc:"addresses, additional data and file attachments (by reference) kept beside the content"`
}
type SetSubmissionRequest struct {
	DocumentID   string    `json:"documentId" required:"true"`
	Version      *int64    `json:"version" doc:"expected version; a stale one answers 409, code 10"`
	Notification n.Content `json:"notification"`
}
type SetReplyToRequestInformationRequest struct {
	DocumentID                string                      `json:"documentId" required:"true"`
	Version                   *int64                      `json:"version"`
	ReplyToRequestInformation n.ReplyToRequestInformation `json:"replyToRequestInformation"`
}
type SetRequestForChangeAfterConsentRequest struct {
	DocumentID       string             `json:"documentId" required:"true"`
	Version          *int64             `json:"version"`
	RequestForChange n.RequestForChange `json:"requestForChange"`
}
type SetFacilityCompletionUnderArticle15Request struct {
	DocumentRef                 `json:",inline"`
	FacilityCompletionArticle15 n.FacilityCompletionArticle15 `json:"facilityCompletionArticle15"`
}
type GetNotificationRequest struct {
	DocumentID string `json:"documentId" required:"true"`
}
type SubmitAcknowledgementRequest struct {
	DocumentID      string            `json:"documentId" required:"true"`
	Version         *int64            `json:"version"`
	Acknowledgement n.Acknowledgement `json:"acknowledgement"`
}
type SetRequestInformationRequest struct {
	DocumentID         string               `json:"documentId" required:"true"`
	Version            *int64               `json:"version"`
	RequestInformation n.RequestInformation `json:"requestInformation"`
}
type SetDecisionRequest struct {
	DocumentID string     `json:"documentId" required:"true"`
	Version    *int64     `json:"version"`
	Decision   n.Decision `json:"decision"`
}
type ReplyToRequestForChangeAfterConsentRequest struct {
	DocumentID              string                    `json:"documentId" required:"true"`
	Version                 *int64                    `json:"version"`
	ReplyToRequestForChange n.ReplyToRequestForChange `json:"replyToRequestForChange"`
}
type SubmitNotificationSignalRequest struct {
	DocumentID         string               `json:"documentId" required:"true"`
	Version            *int64               `json:"version"`
	NotificationSignal n.NotificationSignal `json:"notificationSignal"`
}

// Responses: one name per operation, one shape.
type (
	CreateSubmissionResponse                    NotificationResponse
	SetSubmissionResponse                       NotificationResponse
	SetReplyToRequestInformationResponse        NotificationResponse
	SetRequestForChangeAfterConsentResponse     NotificationResponse
	SetFacilityCompletionUnderArticle15Response NotificationResponse
	GetNotificationResponse                     NotificationResponse
	SetRequestInformationResponse               NotificationResponse
	SetDecisionResponse                         NotificationResponse
	ReplyToRequestForChangeAfterConsentResponse NotificationResponse
	SubmitNotificationSignalResponse            NotificationResponse
)

func (s *Server) notificationOperations() []Operation {
	if s.docs == nil {
		return nil
	}
	op := func(service, method, summary, desc string) Operation {
		return Operation{Package: pkgDiwass, Service: service, Method: method, Summary: summary, Description: desc}
	}
	const co, au = "CompanyDocumentApi", "AuthorityDocumentApi"
	const intents = intentsDescription
	const kind = notifications.Kind
	return []Operation{
		Unary(op(co, "CreateSubmission", "Create a prior written notification (DRAFT)",
			"The caller's organisation is the notifier. The content may be incomplete; codes and parties given are checked."+intents),
			func(ctx context.Context, r *CreateSubmissionRequest) (*CreateSubmissionResponse, error) {
				return respond[CreateSubmissionResponse](s.docs.Create(ctx, kind, &notifications.CreateInput{Content: *r.Notification, Metadata: r.Metadata}))
			}),
		Unary(op(co, "SetSubmission", "File (SUBMISSION) or correct (CORRECTION) a notification",
			"Chooses SUBMISSION for a DRAFT and CORRECTION for a filed notification. Before acknowledgement a correction replaces the content; "+
				"afterwards it stays pending until the authority of destination accepts it with an acknowledgement, which restarts the decision periods; "+
				"meanwhile no authority decides (DECISION is not offered). A correction equal to the content it would replace (the pending correction, "+
				"else the content filed) corrects nothing: CHANGE_PROPOSES_NOTHING. "+
				"Submission starts ACKNOWLEDGEMENT_DUE (10 working days, Art. 8(2))."+intents),
			func(ctx context.Context, r *SetSubmissionRequest) (*SetSubmissionResponse, error) {
				return respond[SetSubmissionResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.Notification, notifications.IntentSubmission, notifications.IntentCorrection))
			}),
		Unary(op(co, "SetReplyToRequestInformation", "Answer an information request (REPLY_TO_REQUEST_INFORMATION)",
			"complete: true ends the request and resumes every suspended decision period with its remaining time; an incomplete reply keeps them suspended."+intents),
			func(ctx context.Context, r *SetReplyToRequestInformationRequest) (*SetReplyToRequestInformationResponse, error) {
				return respond[SetReplyToRequestInformationResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.ReplyToRequestInformation, notifications.IntentReplyToRequestInfo))
			}),
		Unary(op(co, "SetRequestForChangeAfterConsent", "Ask for a change of a consented notification (REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			"Shipments continue under the existing terms until every authority replied; starts CHANGE_REPLY_DUE (5 working days, Art. 17(2))."+intents),
			func(ctx context.Context, r *SetRequestForChangeAfterConsentRequest) (*SetRequestForChangeAfterConsentResponse, error) {
				return respond[SetRequestForChangeAfterConsentResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.RequestForChange, notifications.IntentRequestForChange))
			}),
		Unary(op(co, "SetFacilityCompletionUnderArticle15", "A pre-consented facility closes the dossier (FACILITY_COMPLETION_ARTICLE15)",
			"Offered only to the facility of a notification whose facility is pre-consented (Art. 14), while CONSENTED, CHANGE_REQUESTED or EXPIRED. "+
				"completedOn not in the future and not before the last movement's completion (DATE_OUT_OF_RANGE), operationCode one of the notified R or D codes; "+
				"at least one movement under the notification completed (NO_MOVEMENT_COMPLETED) and every one COMPLETED or TAKEN_BACK "+
				"(MOVEMENTS_NOT_COMPLETED; both our design). The notification becomes CLOSED and CONSENT_VALIDITY is met."+intents),
			func(ctx context.Context, r *SetFacilityCompletionUnderArticle15Request) (*SetFacilityCompletionUnderArticle15Response, error) {
				return respond[SetFacilityCompletionUnderArticle15Response](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.FacilityCompletionArticle15, notifications.IntentArticle15))
			}),
		Unary(op(co, "GetNotification", "A notification with metadata, deadlines and follow-up intents", "Only the document's parties see it."),
			func(ctx context.Context, r *GetNotificationRequest) (*GetNotificationResponse, error) {
				return respond[GetNotificationResponse](s.get(ctx, kind, r.DocumentID))
			}),

		Unary(op(au, "SubmitAcknowledgement", "Acknowledge receipt of a notification or a movement document (ACKNOWLEDGEMENT)",
			"A notification: authority of destination only. Not consent. Stops ACKNOWLEDGEMENT_DUE and starts DECISION_DUE (30 days, Art. 9(1)) for every concerned authority. "+
				"In ACKNOWLEDGED it accepts a pending correction and restarts the decision periods. A movement (its id says so): any concerned authority, "+
				"SUBMITTED to ACKNOWLEDGED. The answer (our design) carries the notification in document, or the movement in movement; the other is null."+intents),
			s.submitAcknowledgement),
		Unary(op(au, "SetRequestInformation", "Request information from the notifier (REQUEST_INFORMATION)",
			"Suspends every running decision period and starts INFORMATION_REPLY_DUE (10 working days, Art. 8(3)). May be repeated."+intents),
			func(ctx context.Context, r *SetRequestInformationRequest) (*SetRequestInformationResponse, error) {
				return respond[SetRequestInformationResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.RequestInformation, notifications.IntentRequestInformation))
			}),
		Unary(op(au, "SetDecision", "Decide: CONSENT, CONSENT_WITH_CONDITIONS or OBJECTION (DECISION)",
			"Once per concerned authority (a second one: 400, code 9, saying what it decided), and not while a correction awaits acknowledgement. "+
				"Consent needs dispatch and destination consent and each transit authority's consent or tacit consent "+
				"(its decision period expired); any objection (grounds required) ends in OBJECTED. Consent starts CONSENT_VALIDITY; a consent with "+
				"extendsShipmentPeriod moves the shipment period's end to the consent's end."+intents),
			func(ctx context.Context, r *SetDecisionRequest) (*SetDecisionResponse, error) {
				return respond[SetDecisionResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.Decision, notifications.IntentDecision))
			}),
		Unary(op(au, "ReplyToRequestForChangeAfterConsent", "Reply to a change request (REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			"ACCEPTED, ACCEPTED_WITH_CONDITIONS or REJECTED (grounds required), once per authority. When all replied the notification is CONSENTED again: "+
				"amended with the conditions if all accepted, unchanged on any rejection."+intents),
			func(ctx context.Context, r *ReplyToRequestForChangeAfterConsentRequest) (*ReplyToRequestForChangeAfterConsentResponse, error) {
				return respond[ReplyToRequestForChangeAfterConsentResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.ReplyToRequestForChange, notifications.IntentReplyToChange))
			}),
		Unary(op(au, "SubmitNotificationSignal", "Cancel the consent, close, or revalidate (NOTIFICATION_SIGNAL)",
			"CANCELLATION_OF_CONSENT ends in CONSENT_CANCELLED: by an authority that consented (403, code 7, otherwise), stating its grounds in reason "+
				"(REQUIRED_FIELD_MISSING without). CLOSURE ends in CLOSED. REVALIDATION (new validUntil) in CONSENTED: it extends the consent, a validUntil "+
				"on or before the present end is CONSENT_VALIDITY_INVALID (end a consent sooner by cancelling it); with extendsShipmentPeriod the shipment "+
				"period ends with the consent."+intents),
			func(ctx context.Context, r *SubmitNotificationSignalRequest) (*SubmitNotificationSignalResponse, error) {
				return respond[SubmitNotificationSignalResponse](s.fireBlock(ctx, kind, r.DocumentID, r.Version, &r.NotificationSignal, notifications.IntentNotificationSignal))
			}),
	}
}
