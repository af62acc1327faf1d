package rules

import (
	"github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/movement"
	"github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// BusinessErrorCode is a business rejection's code and when it is raised
// (public contract: names in domain/workflows.md section 7 and beyond).
type BusinessErrorCode struct {
	Code, When string
}

// BusinessErrors is the catalogue of every business error code, in the
// order the reference lists them. Which operations raise a code is what
// the intents declare (engine.Intent.Errors).
var BusinessErrors = []BusinessErrorCode{
	{shipment.ErrRequiredMissing, "A field the step needs is empty: a party, a code, a quantity, a date, a reason or grounds, a question or an answer. The message names what is missing."},
	{shipment.ErrWasteCode, "A waste code is not in the list it claims (EU list of waste, Basel Annex VIII/IX, OECD), or was not in force on the document's date."},
	{shipment.ErrOperationCode, "A recovery or disposal code is not R1–R13 or D1–D15, or is not one of the operations notified or announced."},
	{shipment.ErrPartyUnknown, "An organisation is not registered with the provider, is of the wrong kind (a company where an authority is needed, or the reverse), is not among the notified carriers, or is a party that cannot change (the notifier, the arranger)."},
	{shipment.ErrQuantity, "A quantity is not positive, gives tonnes and cubic metres together, or is not in the notified unit."},
	{shipment.ErrDateOutOfRange, "A date is not a YYYY-MM-DD date in the range the step allows: in the future for what happened, before an earlier step (the shipment, the previous hand-over, the receipt), or not after today for an agreed date."},
	{shipment.ErrPriorNotice, "A shipment is announced less than 2 working days before it starts (Art. 16(2), 18(5) Regulation (EU) 2024/1157); the message names the earliest date possible now."},
	{shipment.ErrAuthorityPlace, "A competent authority is not of the country of the place it is named for (dispatch, destination, transit)."},
	{notification.ErrShipmentPeriod, "The shipment period is incomplete, not in dates, ends before it starts, is longer than the law allows (1 year, 3 for a pre-consented facility) or ended already."},
	{notification.ErrPackagingType, "A packaging type is not one of Annex IA's, or a movement's is not among the notified ones."},
	{notification.ErrQuantityExceeded, "The movements together, or a proposed change, would carry more than the notified total quantity."},
	{notification.ErrShipmentCount, "All the notified shipments have been made, or a change proposes fewer than were made."},
	{notification.ErrConsentNotValid, "A movement's date of shipment lies after the consent's end or outside the notified shipment period."},
	{notification.ErrConsentValidity, "A consent's or a revalidation's end (validUntil) is not after today, lies more than the law allows after the consent (1 year; 3 for a pre-consented facility: Art. 9, 14), or after the shipment period without extendsShipmentPeriod."},
	{notification.ErrNoShipmentPossible, "A consent, revalidation or correction would put terms in force under which no movement is possible: no packaging type or carrier to declare, no shipment or quantity, or a validity that ends before the shipment period begins (our design)."},
	{notification.ErrMovementsOpen, "A completion under Art. 15 while a movement under the notification is neither completed nor taken back: the dossier cannot close yet (our design)."},
	{notification.ErrNoMovementCompleted, "A completion under Art. 15 with no movement under the notification completed: it states the operations carried out, so it follows at least one; the authorities end a notification under which nothing was shipped with CLOSURE (our design)."},
	{notification.ErrChangeEmpty, "A correction or change request proposes nothing different from the terms in force."},
	{notification.ErrChangeNeedsNotification, "A change after consent concerns the notifier, or competent authorities other than the consented ones: Art. 17(3) asks for a new notification instead."},
	{movement.ErrSequenceNumber, "A movement's sequence number is taken, not positive, or changed after the movement was created."},
	{annex7.ErrNotGreenListed, "An Annex VII document names waste that is not green-listed (Annex III/IIIA/IIIB): it needs a notification."},
	{annex7.ErrTakeBackReference, "A take-back's takeBackOf does not name an Annex VII document of the arranger whose take-back was initiated, or was changed after creation."},
}
