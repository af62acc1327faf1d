package rules

import (
	"github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/labels"
	"github.com/wasteflow/wasteflow/rules/movement"
	"github.com/wasteflow/wasteflow/rules/notification"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// BusinessErrorCode is a business rejection's code and when it is raised
// (public contract: docs/reference/business-errors.md lists them, generated from here),
// and what a person filling a form reads: Words, in English and German
// (the label list "businessError"; the error's message adds the details
// in English).
type BusinessErrorCode struct {
	Code, When string
	Words      labels.Text
}

// ListBusinessError is the label list of the business error codes.
const ListBusinessError = "businessError"

func init() {
	m := make(map[string]labels.Text, len(BusinessErrors))
	for _, c := range BusinessErrors {
		m[c.Code] = c.Words
	}
	labels.Register(ListBusinessError, m)
}

// BusinessErrors is the catalogue of every business error code, in the
// order the reference lists them. Which operations raise a code is what
// the intents declare (engine.Intent.Errors).
var BusinessErrors = []BusinessErrorCode{
	{shipment.ErrRequiredMissing, "A field the step needs is empty: a party, a code, a quantity, a date, a reason or grounds, a question or an answer. The message names what is missing.", labels.Text{EN: "This field is required.", DE: "Dieses Feld ist erforderlich."}},
	{shipment.ErrWasteCode, "A waste code is not in the list it claims (EU list of waste, Basel Annex VIII/IX, OECD), or was not in force on the document's date.", labels.Text{EN: "This waste code is not in the list it names, or was not in force on that date.", DE: "Dieser Abfallcode steht nicht in dem genannten Verzeichnis oder galt an diesem Tag nicht."}},
	{shipment.ErrOperationCode, "A recovery or disposal code is not R1–R13 or D1–D15, or is not one of the operations notified or announced.", labels.Text{EN: "Give a recovery or disposal operation (R1–R13, D1–D15) that was notified.", DE: "Geben Sie ein notifiziertes Verwertungs- oder Beseitigungsverfahren an (R1–R13, D1–D15)."}},
	{shipment.ErrPartyUnknown, "An organisation is not registered with the provider, is of the wrong kind (a company where an authority is needed, or the reverse), is not among the notified carriers, or is a party that cannot change (the notifier, the arranger).", labels.Text{EN: "This organisation is not registered, or cannot take this part.", DE: "Diese Organisation ist nicht registriert oder kann diese Rolle nicht übernehmen."}},
	{shipment.ErrQuantity, "A quantity is not positive, gives tonnes and cubic metres together, or is not in the notified unit.", labels.Text{EN: "Give a positive quantity in the notified unit (tonnes or cubic metres, not both).", DE: "Geben Sie eine positive Menge in der notifizierten Einheit an (Tonnen oder Kubikmeter, nicht beides)."}},
	{shipment.ErrDateOutOfRange, "A date is not a YYYY-MM-DD date in the range the step allows: in the future for what happened, before an earlier step (the shipment, the previous hand-over, the receipt), or not after today for an agreed date.", labels.Text{EN: "This date is outside what this step allows.", DE: "Dieses Datum liegt außerhalb dessen, was dieser Schritt zulässt."}},
	{shipment.ErrPriorNotice, "A shipment is announced less than 2 working days before it starts (Art. 16(2), 18(5) Regulation (EU) 2024/1157); the message names the earliest date possible now.", labels.Text{EN: "A shipment must be announced at least 2 working days before it starts.", DE: "Eine Verbringung muss mindestens 2 Arbeitstage vor ihrem Beginn angekündigt werden."}},
	{shipment.ErrAuthorityPlace, "A competent authority is not of the country of the place it is named for (dispatch, destination, transit).", labels.Text{EN: "This authority is not of the country of the place it is named for.", DE: "Diese Behörde gehört nicht zum Staat des Ortes, für den sie genannt ist."}},
	{notification.ErrShipmentPeriod, "The shipment period is incomplete, not in dates, ends before it starts, is longer than the law allows (1 year, 3 for a pre-consented facility) or ended already.", labels.Text{EN: "The shipment period is incomplete, too long or already over.", DE: "Der Verbringungszeitraum ist unvollständig, zu lang oder bereits abgelaufen."}},
	{notification.ErrPackagingType, "A packaging type is not one of Annex IA's, or a movement's is not among the notified ones.", labels.Text{EN: "This packaging type was not notified.", DE: "Diese Verpackungsart wurde nicht notifiziert."}},
	{notification.ErrQuantityExceeded, "The movements together, or a proposed change, would carry more than the notified total quantity.", labels.Text{EN: "This would carry more than the notified total quantity.", DE: "Damit würde mehr als die notifizierte Gesamtmenge verbracht."}},
	{notification.ErrShipmentCount, "All the notified shipments have been made, or a change proposes fewer than were made.", labels.Text{EN: "All the notified shipments have been made.", DE: "Alle notifizierten Verbringungen sind durchgeführt."}},
	{notification.ErrConsentNotValid, "A movement's date of shipment lies after the consent's end or outside the notified shipment period.", labels.Text{EN: "The consent does not cover this date of shipment.", DE: "Die Zustimmung deckt dieses Verbringungsdatum nicht ab."}},
	{notification.ErrConsentValidity, "A consent's or a revalidation's end (validUntil) is not after today, lies more than the law allows after the consent (1 year; 3 for a pre-consented facility: Art. 9, 14), or after the shipment period without extendsShipmentPeriod.", labels.Text{EN: "The consent cannot end on this date.", DE: "Die Zustimmung kann nicht an diesem Tag enden."}},
	{notification.ErrNoShipmentPossible, "A consent, revalidation or correction would put terms in force under which no movement is possible: no packaging type or carrier to declare, no shipment or quantity, or a validity that ends before the shipment period begins (our design).", labels.Text{EN: "Under these terms no shipment would be possible.", DE: "Unter diesen Bedingungen wäre keine Verbringung möglich."}},
	{notification.ErrMovementsOpen, "A completion under Art. 15 while a movement under the notification is neither completed nor taken back: the dossier cannot close yet (our design).", labels.Text{EN: "A shipment under this notification is not finished yet.", DE: "Eine Verbringung unter dieser Notifizierung ist noch nicht abgeschlossen."}},
	{notification.ErrNoMovementCompleted, "A completion under Art. 15 with no movement under the notification completed: it states the operations carried out, so it follows at least one; the authorities end a notification under which nothing was shipped with CLOSURE (our design).", labels.Text{EN: "No shipment under this notification has been completed.", DE: "Unter dieser Notifizierung wurde noch keine Verbringung abgeschlossen."}},
	{notification.ErrChangeEmpty, "A correction or change proposes nothing different from what it would replace: a notification's correction or change request, an Annex VII document's correction, a movement's template.", labels.Text{EN: "This changes nothing: the terms are the same as those in force.", DE: "Damit ändert sich nichts: die Angaben sind dieselben wie die geltenden."}},
	{shipment.ErrHistoryFull, "An act would record more entries in one of the document's history lists than a document keeps: 100 corrections, requests for information, replies to one request, change requests, replies to one, decisions, signals, carrier transfers or take-backs, and 200 acknowledgements (each list's maxItems in the retrieval document's schema). The field names the list. A file that long needs a new document.", labels.Text{EN: "This document holds as many of these entries as a document keeps: start a new document.", DE: "Dieses Dokument enthält so viele dieser Einträge, wie ein Dokument aufnimmt: Legen Sie ein neues Dokument an."}},
	{notification.ErrGuaranteeNotValid, "A movement's date of shipment is not covered by an approved financial guarantee or equivalent insurance (Art. 7(3) and (5) Regulation (EU) 2024/1157): none submitted, the one submitted awaits the approval of the authority of dispatch, or the one in force is not valid on that date. The message names the guarantee.", labels.Text{EN: "No approved financial guarantee covers this date of shipment.", DE: "Keine genehmigte Sicherheitsleistung deckt dieses Verbringungsdatum."}},
	{notification.ErrChangeRequestOpen, "A revalidation would extend the shipment period while an open change request proposes a shipment period of its own: reply to the request first, or revalidate without extending the period. (A request that leaves the period alone takes the extension into its proposal.)", labels.Text{EN: "A change request proposing its own shipment period is open: reply to it first, or revalidate without extending the period.", DE: "Ein offener Änderungsantrag schlägt einen eigenen Verbringungszeitraum vor: Beantworten Sie ihn zuerst oder verlängern Sie ohne den Verbringungszeitraum zu verlängern."}},
	{notification.ErrChangeNeedsNotification, "A change after consent concerns the notifier, or competent authorities other than the consented ones: Art. 17(3) asks for a new notification instead.", labels.Text{EN: "This change needs a new notification (Art. 17(3)).", DE: "Diese Änderung erfordert eine neue Notifizierung (Art. 17 Abs. 3)."}},
	{movement.ErrSequenceNumber, "A movement's sequence number is taken, not positive, or changed after the movement was created.", labels.Text{EN: "This shipment number is taken or not allowed.", DE: "Diese Nummer der Verbringung ist vergeben oder nicht zulässig."}},
	{annex7.ErrNotGreenListed, "An Annex VII document names waste that is not green-listed (Annex III/IIIA/IIIB): it needs a notification.", labels.Text{EN: "This waste is not green-listed: it needs a notification.", DE: "Dieser Abfall steht nicht auf der Grünen Liste: er erfordert eine Notifizierung."}},
	{annex7.ErrTakeBackReference, "A take-back's takeBackOf does not name an Annex VII document of the arranger whose take-back was initiated, or was changed after creation.", labels.Text{EN: "This does not name a document whose take-back was started.", DE: "Dies nennt kein Dokument, dessen Rücknahme eingeleitet wurde."}},
}
