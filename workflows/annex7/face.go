package annex7

import "github.com/wasteflow/wasteflow/workflows/documents"

// face is the Annex VII document's HTTP face: the operations' paths,
// summaries and descriptions, and which intents each fires (the machine
// declares the blocks and inputs, and names the same paths).
var face = &documents.Face{
	Noun:         "Annex VII documents",
	ContainerDoc: "set for an Annex VII document",
	Create: documents.OperationDecl{
		Operation: company + "CreateAnnex7",
		Summary:   "Create an Annex VII document for green-listed waste (DRAFT)",
		Description: "The caller's organisation is the arranger (Art. 18). The content may be incomplete; what is given is checked: parties, " +
			"codes in force on the day (WASTE_CLASSIFICATION_INVALID_CODE), green-listed waste only (WASTE_NOT_GREEN_LISTED for amber-listed or hazardous codes), " +
			"recovery only (RECOVERY_DISPOSAL_CODE_INVALID for a D code). takeBackOf names the document whose initiated take-back this shipment carries out " +
			"(TAKE_BACK_REFERENCE_INVALID otherwise). The human number is our design: DE-A7-2026-000001.",
		Fields: []documents.FieldDecl{
			{JSON: "annex7", Input: "Content", Required: true,
				Doc: "the announcement, complete or not ({} for an empty draft); a create without it is refused and uses no number"},
			{JSON: "metadata", Input: "Metadata",
				Doc: "addresses, additional data and file attachments (by reference) kept beside the content"},
		},
	},
	Get: documents.OperationDecl{
		Operation:   company + "GetAnnex7",
		Summary:     "An Annex VII document with metadata, deadlines and follow-up intents",
		Description: "Only the document's parties see it (competent authorities read it here or with AuthorityDocumentApi/GetDocument).",
	},
	Operations: []documents.OperationDecl{
		{Operation: company + "SetAnnex7", Fires: []string{IntentSubmission, IntentCorrection},
			Summary: "Announce (SUBMISSION) or correct (CORRECTION) an Annex VII document",
			Description: "Chooses SUBMISSION for a DRAFT and CORRECTION for an ANNOUNCED document (before any carrier took the waste over). The content must be " +
				"complete; actualDateOfShipment at least 2 working days (of the arranger's country) after the announcement, else PRIOR_NOTICE_TOO_LATE " +
				"(checked again on a correction that moves the date)."},
		{Operation: company + "SetAnnex7CarrierTransfer", Fires: []string{IntentCarrierTransfer},
			Summary:     "A carrier takes the waste over (CARRIER_TRANSFER)",
			Description: "Each announced carrier once, in turn; transferDate not in the future in the carrier's time zone (DATE_OUT_OF_RANGE)."},
		{Operation: company + "SetAnnex7ConsigneeCertificate", Fires: []string{IntentConsigneeCertificate},
			Summary: "The consignee certifies receipt (CONSIGNEE_CERTIFICATE)",
			Description: "receivedOn not in the future and not before the shipment. The certificate is due 3 working days after the receipt (RECEIPT_CERTIFICATE_DUE): " +
				"a later one is accepted and recorded as MET_LATE."},
		{Operation: company + "SetAnnex7FacilityCertificate", Fires: []string{IntentFacilityCertificate},
			Summary:     "The recovery facility or laboratory certifies receipt (FACILITY_CERTIFICATE)",
			Description: "As the consignee's certificate (RECEIPT_CERTIFICATE_DUE for the facility); starts COMPLETION_CERTIFICATE_DUE: at most 1 year after the receipt."},
		{Operation: company + "SetAnnex7CertificateOfCompletion", Fires: []string{IntentCertificateOfCompletion},
			Summary: "The facility certifies the recovery completed (CERTIFICATE_OF_COMPLETION); closes the document",
			Description: "completedOn not in the future, not before the facility's receipt; recoveryCode the announced one (its default; another is " +
				"RECOVERY_DISPOSAL_CODE_INVALID, as a movement's completion names a notified operation). The certificate is due " +
				"30 days after completion and at most 1 year after receipt (COMPLETION_CERTIFICATE_DUE); a later one is recorded as MET_LATE. " +
				"For a document with takeBackOf, completion marks the original TAKEN_BACK."},
		{Operation: company + "SetAnnex7TakeBack", Fires: []string{IntentTakeBack},
			Summary: "Initiate the take-back of a shipment (TAKE_BACK)",
			Description: "The arranger, once the waste is under way or received; a reason is required. Starts TAKE_BACK_DUE (90 days, Art. 22(2)). " +
				"The take-back is carried out by a new Annex VII document created with takeBackOf set to this one."},
	},
	Elsewhere: []string{IntentWithdrawal, IntentDIWASSResubmission, IntentDIWASSResolution}, // SetByIntent's
}
