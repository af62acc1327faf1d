package movements

import "github.com/wasteflow/wasteflow/workflows/documents"

// face is the movement's HTTP face: the operations' paths, summaries and
// descriptions, and which intents each fires (the machine declares the
// blocks and inputs, and names the same paths).
var face = &documents.Face{
	Noun:         "movements",
	ContainerDoc: "set for a movement document (GetDocument only: SetByIntent refuses movements)",
	Create: documents.OperationDecl{
		Operation: company + "CreateMovementTemplate",
		Summary:   "Announce one shipment under a consented notification (SUBMITTED)",
		Description: "The notifier, while the notification is CONSENTED or CHANGE_REQUESTED and a shipment and some quantity are left (it offers " +
			"CREATE_MOVEMENT then; otherwise 400, code 9, saying why). " +
			"In one transaction that locks the notification: the number of movements stays within numberOfShipments " +
			"and their quantities within totalQuantity (QUANTITY_EXCEEDS_NOTIFIED_TOTAL); every movement created counts, whatever its state. " +
			"actualDateOfShipment within the consent's validity and the shipment period (CONSENT_NOT_VALID_ON_DATE) and at least 2 working days " +
			"ahead (PRIOR_NOTICE_TOO_LATE); carriers and packaging among the notified. sequenceNumber is assigned when absent. " +
			"The human number is our design: the notification's number, M and the sequence number (DE-2026-000001-M001).",
		Fields: []documents.FieldDecl{
			{JSON: "notificationId", Input: "NotificationID", Required: true, Doc: "the consented notification the shipment is made under"},
			{JSON: "movementTemplate", Input: "Template"},
			{JSON: "metadata", Input: "Metadata"},
		},
	},
	Get: documents.OperationDecl{
		Operation:   company + "GetMovement",
		Summary:     "A movement document with metadata, deadlines and follow-up intents",
		Description: "Only the movement's parties (the notification's, and its own carriers) see it; anyone else gets 404.",
	},
	Operations: []documents.OperationDecl{
		{Operation: company + "SetMovementTemplate", Fires: []string{IntentTemplate},
			Summary: "Change the movement template (MOVEMENT_TEMPLATE)",
			Description: "Before a carrier took the waste over; afterwards once per REQUEST_CORRECTION signal of an authority. Checked like the creation, " +
				"with the other movements' quantities; the prior notice again only when the date moves."},
		{Operation: company + "SetCarrierTransport", Fires: []string{IntentCarrierTransport},
			Summary:     "A carrier takes custody (CARRIER_TRANSPORT)",
			Description: "Each of the movement's carriers once, in turn; takenOverOn not in the future and not before the shipment date or the previous leg (DATE_OUT_OF_RANGE)."},
		{Operation: company + "SetConsigneeReception", Fires: []string{IntentConsigneeReception},
			Summary:     "The consignee certifies receipt (CONSIGNEE_RECEPTION)",
			Description: "Due 3 working days after the receipt (RECEIPT_CERTIFICATE_DUE); a later one is recorded as MET_LATE."},
		{Operation: company + "SetFacilityReception", Fires: []string{IntentFacilityReception},
			Summary: "The facility certifies receipt, rejects the shipment, or refuses a part of it (FACILITY_RECEPTION)",
			Description: "rejected: true with a reason makes the movement REJECTED (every party, the authority of destination included, gets a state-change event); " +
				"otherwise COMPLETION_CERTIFICATE_DUE starts: 30 days after completion, at most a year after receipt. " +
				"A rejectedQuantity with a reason refuses a part (our design): more than 0 and less than the quantity received, in its unit (QUANTITY_INVALID); " +
				"the rest is accepted and its completion falls due, and REJECTED_PART_DUE starts for the notifier (90 days after the reception, Art. 22(2)) " +
				"until the authority of dispatch confirms the part taken back or recovered elsewhere (SetRejectedPartArrangement, SetRejectedPartResolution). " +
				"The refused part stays counted in the notification's quantityUsed (it was shipped) and shows in its quantityRefused."},
		{Operation: company + "SetFacilityCompletion", Fires: []string{IntentFacilityCompletion},
			Summary: "The facility certifies completion (FACILITY_COMPLETION)",
			Description: "operationCode must be one of the notification's R or D codes (RECOVERY_DISPOSAL_CODE_INVALID). " +
				"The movement becomes COMPLETED; with a refused part not yet dealt with, it stays RECEIVED_BY_FACILITY until the part's resolution."},
		{Operation: authority + "SubmitMovementSignal", Fires: []string{IntentSignal},
			Summary: "Confirm, reject or request a correction of a movement (MOVEMENT_SIGNAL)",
			Description: "Any concerned authority, in any state but COMPLETED and TAKEN_BACK. CONFIRM is recorded; the authority of dispatch's CONFIRM on a " +
				"TAKE_BACK_ORDERED movement records the waste back (TAKEN_BACK). REJECT makes it REJECTED; REQUEST_CORRECTION lets the notifier change " +
				"the template once. REJECT and REQUEST_CORRECTION need a reason.",
			Request: "SubmitMovementSignalApiRequest"},
		{Operation: authority + "SetMovementTakeBack", Fires: []string{IntentTakeBack},
			Summary: "Order the take-back of a shipment (MOVEMENT_TAKE_BACK)",
			Description: "The authority of dispatch, once the waste is under way, received or rejected. Starts TAKE_BACK_DUE for the notifier: the agreed dueOn, " +
				"or 90 days (Art. 22(2))."},
		{Operation: authority + "SetRejectedPartArrangement", Fires: []string{IntentPartArrangement},
			Summary: "Arrange what becomes of a part the facility refused (REJECTED_PART_ARRANGEMENT; our design)",
			Description: "The authority of dispatch, while a refused part is open: TAKE_BACK (the notifier takes it back) or ALTERNATIVE_RECOVERY with the " +
				"facility that takes it (a company of the directory, PARTY_UNKNOWN otherwise), by dueOn (after today) or 90 days after the reception " +
				"(Art. 22(2)). REJECTED_PART_DUE starts again for the notifier with that date. Again to change the arrangement."},
		{Operation: authority + "SetRejectedPartResolution", Fires: []string{IntentPartResolution},
			Summary: "Confirm a refused part taken back or recovered elsewhere (REJECTED_PART_RESOLUTION; our design)",
			Description: "The authority of dispatch, once the part is arranged: resolvedOn not in the future and not before the reception (DATE_OUT_OF_RANGE). " +
				"REJECTED_PART_DUE is met; the movement becomes COMPLETED when the accepted part's completion is certified too."},
	},
	Elsewhere: []string{IntentAcknowledgement}, // SubmitAcknowledgement serves notifications and movements
}
