package notifications

import "github.com/wasteflow/wasteflow/workflows/documents"

// face is the notification's HTTP face: the operations' paths, summaries
// and descriptions, and which intents each fires (the machine declares the
// blocks and inputs, and names the same paths).
var face = &documents.Face{
	Noun:         "notifications",
	ContainerDoc: "set for a prior written notification",
	Create: documents.OperationDecl{
		Operation:   company + "CreateSubmission",
		Summary:     "Create a prior written notification (DRAFT)",
		Description: "The caller's organisation is the notifier. The content may be incomplete; codes and parties given are checked.",
		Fields: []documents.FieldDecl{
			{JSON: "notification", Input: "Content", Required: true,
				Doc: "the content, complete or not ({} for an empty draft); a create without it is refused and uses no number"},
			{JSON: "metadata", Input: "Metadata",
				Doc: "addresses, additional data and file attachments (by reference) kept beside the content"},
		},
	},
	Get: documents.OperationDecl{
		Operation: company + "GetNotification",
		Summary:   "A notification with metadata, deadlines and follow-up intents", Description: "Only the document's parties see it.",
	},
	Operations: []documents.OperationDecl{
		{Operation: company + "SetSubmission", Fires: []string{IntentSubmission, IntentCorrection},
			Summary: "File (SUBMISSION) or correct (CORRECTION) a notification",
			Description: "Chooses SUBMISSION for a DRAFT and CORRECTION for a filed notification. Before acknowledgement a correction replaces the content; " +
				"afterwards it stays pending until the authority of destination accepts it with an acknowledgement, which restarts the decision periods; " +
				"meanwhile no authority decides (DECISION is not offered). A correction equal to the content it would replace (the pending correction, " +
				"else the content filed) corrects nothing: CHANGE_PROPOSES_NOTHING. " +
				"Submission starts ACKNOWLEDGEMENT_DUE (10 working days, Art. 8(2))."},
		{Operation: company + "SetReplyToRequestInformation", Fires: []string{IntentReplyToRequestInfo},
			Summary:     "Answer an information request (REPLY_TO_REQUEST_INFORMATION)",
			Description: "complete: true ends the request and resumes every suspended decision period with its remaining time; an incomplete reply keeps them suspended."},
		{Operation: company + "SetRequestForChangeAfterConsent", Fires: []string{IntentRequestForChange},
			Summary:     "Ask for a change of a consented notification (REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			Description: "Shipments continue under the existing terms until every authority replied; starts CHANGE_REPLY_DUE (5 working days, Art. 17(2))."},
		{Operation: company + "SetFacilityCompletionUnderArticle15", Fires: []string{IntentArticle15},
			Summary: "A pre-consented facility closes the dossier (FACILITY_COMPLETION_ARTICLE15)",
			Description: "Offered only to the facility of a notification whose facility is pre-consented (Art. 14), while CONSENTED, CHANGE_REQUESTED or EXPIRED. " +
				"completedOn not in the future and not before the last movement's completion (DATE_OUT_OF_RANGE), operationCode one of the notified R or D codes; " +
				"at least one movement under the notification completed (NO_MOVEMENT_COMPLETED) and every one COMPLETED or TAKEN_BACK " +
				"(MOVEMENTS_NOT_COMPLETED; both our design). The notification becomes CLOSED and CONSENT_VALIDITY is met."},
		{Operation: authority + "SetRequestInformation", Fires: []string{IntentRequestInformation},
			Summary:     "Request information from the notifier (REQUEST_INFORMATION)",
			Description: "Suspends every running decision period and starts INFORMATION_REPLY_DUE (10 working days, Art. 8(3)). May be repeated."},
		{Operation: authority + "SetDecision", Fires: []string{IntentDecision},
			Summary: "Decide: CONSENT, CONSENT_WITH_CONDITIONS or OBJECTION (DECISION)",
			Description: "Once per concerned authority (a second one: 400, code 9, saying what it decided), and not while a correction awaits acknowledgement. " +
				"Consent needs dispatch and destination consent and each transit authority's consent or tacit consent " +
				"(its decision period expired); any objection (grounds required) ends in OBJECTED. Consent starts CONSENT_VALIDITY; a consent with " +
				"extendsShipmentPeriod moves the shipment period's end to the consent's end."},
		{Operation: authority + "ReplyToRequestForChangeAfterConsent", Fires: []string{IntentReplyToChange},
			Summary: "Reply to a change request (REPLY_TO_REQUEST_FOR_CHANGE_AFTER_CONSENT)",
			Description: "ACCEPTED, ACCEPTED_WITH_CONDITIONS or REJECTED (grounds required), once per authority. When all replied the notification is CONSENTED again: " +
				"amended with the conditions if all accepted, unchanged on any rejection."},
		{Operation: authority + "SubmitNotificationSignal", Fires: []string{IntentNotificationSignal},
			Summary: "Cancel the consent, close, or revalidate (NOTIFICATION_SIGNAL)",
			Description: "CANCELLATION_OF_CONSENT ends in CONSENT_CANCELLED: by an authority that consented (403, code 7, otherwise), stating its grounds in reason " +
				"(REQUIRED_FIELD_MISSING without). CLOSURE ends in CLOSED; either closes an open change request unanswered. REVALIDATION (new validUntil) in CONSENTED: it extends the consent, a validUntil " +
				"on or before the present end is CONSENT_VALIDITY_INVALID (end a consent sooner by cancelling it); with extendsShipmentPeriod the shipment " +
				"period ends with the consent. In CHANGE_REQUESTED a revalidation keeps the open change request (its proposal takes an extended period; " +
				"CHANGE_REQUEST_OPEN when the request proposes a shipment period of its own)."},
	},
	// SubmitAcknowledgement serves notifications and movements; WITHDRAWAL,
	// GUARANTEE and GUARANTEE_APPROVAL are SetByIntent's.
	Elsewhere: []string{IntentAcknowledgement, IntentWithdrawal, IntentGuarantee, IntentGuaranteeApproval},
}
