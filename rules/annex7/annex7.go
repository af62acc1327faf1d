// Package annex7 holds the Annex VII document (green-listed waste, Art. 18
// of Regulation (EU) 2024/1157) as values: its content, the blocks of its
// intents, the history they leave, and pure functions over them: content
// checks (business errors) and applying a block. No database, no clock of
// its own.
package annex7

import (
	"fmt"
	"slices"
	"time"

	"github.com/wasteflow/wasteflow/rules/calendar"
	"github.com/wasteflow/wasteflow/rules/shipment"
	"github.com/wasteflow/wasteflow/rules/wastecodes"
)

// States of the Annex VII machine (public contract).
const (
	Draft               = "DRAFT"
	Announced           = "ANNOUNCED"
	InTransit           = "IN_TRANSIT"
	ReceivedByConsignee = "RECEIVED_BY_CONSIGNEE"
	ReceivedByFacility  = "RECEIVED_BY_FACILITY"
	Completed           = "COMPLETED"
	TakeBackInitiated   = "TAKE_BACK_INITIATED"
	TakenBack           = "TAKEN_BACK"
	Withdrawn           = "WITHDRAWN"
)

// RoleArranger is the person who arranges the shipment (Art. 18(1)); the
// other roles are the shared ones.
const RoleArranger = "ARRANGER"

// Business error codes of Annex VII beyond the shared ones (public contract).
const (
	ErrNotGreenListed = "WASTE_NOT_GREEN_LISTED"
	// ErrTakeBackReference: takeBackOf names no Annex VII document of the
	// same arranger whose take-back was initiated (our design).
	ErrTakeBackReference = "TAKE_BACK_REFERENCE_INVALID"
)

// MeansOfTransport (Annex VII, box 5).
var MeansOfTransport = shipment.MeansOfTransport

// Facility is the recovery facility or laboratory (Annex VII, box 7).
type Facility struct {
	OrganisationID string `json:"organisationId" maxLength:"128" label:"Recovery facility or laboratory|Verwertungsanlage oder Labor" help:"Choose the organisation as registered with the provider.|Wählen Sie die Organisation, wie sie beim Anbieter registriert ist."`
	Laboratory     bool   `json:"laboratory" doc:"a laboratory receiving waste for experimental analysis (Art. 18(1)(b)): box 7 names it instead of a recovery facility" label:"Laboratory|Labor" help:"Tick if a laboratory receives the waste for experimental analysis.|Ankreuzen, wenn ein Labor die Abfälle zur Versuchsanalyse erhält."`
}

// Carrier is one carrier in order of the shipment (Annex VII, box 5).
type Carrier struct {
	OrganisationID   string `json:"organisationId" maxLength:"128" label:"Carrier|Transportunternehmen" help:"Choose the organisation as registered with the provider.|Wählen Sie die Organisation, wie sie beim Anbieter registriert ist."`
	MeansOfTransport string `json:"meansOfTransport" maxLength:"64" doc:"ROAD, RAIL, SEA, AIR or INLAND_WATERWAYS" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
}

// Content is the announcement: the information of Annex VII boxes 1-12.
type Content struct {
	Arranger             shipment.PartyRef              `json:"arranger" doc:"the person who arranges the shipment (box 1); the creating organisation" label:"1. Person who arranges the shipment|1. Person, die die Verbringung veranlasst" help:"Your organisation.|Ihre Organisation."`
	Consignee            shipment.PartyRef              `json:"consignee" doc:"box 2" label:"2. Importer/consignee|2. Importeur/Empfänger" help:"Who receives the waste.|Wer die Abfälle übernimmt."`
	ActualQuantity       shipment.Quantity              `json:"actualQuantity" doc:"box 3" label:"3. Actual quantity|3. Tatsächliche Menge"`
	ActualDateOfShipment string                         `json:"actualDateOfShipment" maxLength:"64" doc:"YYYY-MM-DD (box 4); at least 2 working days of the arranger's country after the announcement" label:"4. Actual date of shipment|4. Tatsächliches Datum der Verbringung" help:"At least 2 working days after you announce the shipment.|Mindestens 2 Arbeitstage nach der Ankündigung der Verbringung."`
	Carriers             []Carrier                      `json:"carriers" maxItems:"100" doc:"box 5, in order" label:"5. Carriers|5. Transportunternehmen" help:"In the order they carry the waste.|In der Reihenfolge, in der sie die Abfälle befördern."`
	Producers            []shipment.PartyRef            `json:"producers" maxItems:"200" doc:"waste generators (box 6)" label:"6. Waste generator(s)|6. Abfallerzeuger" help:"Original producer(s), new producer(s) or collector.|Ersterzeuger, Neuerzeuger oder Einsammler."`
	Facility             Facility                       `json:"facility" doc:"box 7" label:"7. Recovery facility / laboratory|7. Verwertungsanlage / Labor"`
	RecoveryCode         string                         `json:"recoveryCode" maxLength:"64" doc:"recovery operation R1-R13 (box 8)" label:"8. Recovery operation|8. Verwertungsverfahren" help:"The R code of the recovery operation.|Der R-Code des Verwertungsverfahrens." codeList:"operation"`
	UsualDescription     string                         `json:"usualDescription" maxLength:"4000" doc:"usual description of the waste (box 9)" label:"9. Usual description of the waste|9. Übliche Bezeichnung der Abfälle"`
	WasteClassifications []shipment.WasteClassification `json:"wasteClassifications" maxItems:"100" doc:"green-listed codes only: Basel Annex IX, OECD green list, EU list of waste without * (box 10)" label:"10. Waste identification|10. Abfallidentifizierung" help:"Green-listed codes only.|Nur Codes der Grünen Liste."`
	CompetentAuthorities shipment.CompetentAuthorities  `json:"competentAuthorities" label:"11. Countries/States concerned: competent authorities|11. Betroffene Staaten: zuständige Behörden"`
	TakeBackOf           string                         `json:"takeBackOf" maxLength:"128" doc:"id of the Annex VII document whose take-back this shipment carries out; empty otherwise" label:"Take-back of document|Rücknahme von Dokument" help:"Only when this shipment takes waste back: the Annex VII document it takes back.|Nur wenn diese Verbringung Abfälle zurücknimmt: das Anhang-VII-Dokument, das sie zurücknimmt."`
}

// CarrierTransfer is a carrier taking over the waste.
type CarrierTransfer struct {
	CarrierOrganisationID string `json:"carrierOrganisationId" maxLength:"128" doc:"the carrier taking over; default the caller's organisation" label:"Carrier|Transportunternehmen" help:"Your organisation unless you record it for another carrier.|Ihre Organisation, es sei denn, Sie erfassen für ein anderes Transportunternehmen."`
	MeansOfTransport      string `json:"meansOfTransport" maxLength:"64" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
	TransferDate          string `json:"transferDate" maxLength:"64" doc:"YYYY-MM-DD, not in the future" label:"Date of transfer|Übergabedatum" help:"Not in the future.|Nicht in der Zukunft."`
}

// ReceiptCertificate is the consignee's or the facility's receipt (box 14).
type ReceiptCertificate struct {
	ReceivedOn string            `json:"receivedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future" label:"Received on|Erhalten am" help:"Not in the future.|Nicht in der Zukunft."`
	Quantity   shipment.Quantity `json:"quantity" label:"Quantity received|Erhaltene Menge"`
}

// CertificateOfCompletion of the recovery (box 14, Art. 18 and 15(4)).
type CertificateOfCompletion struct {
	CompletedOn  string `json:"completedOn" maxLength:"64" doc:"YYYY-MM-DD, not in the future, not before the facility's receipt" label:"Recovery completed on|Verwertung abgeschlossen am" help:"Not in the future, not before the receipt.|Nicht in der Zukunft, nicht vor dem Eingang."`
	RecoveryCode string `json:"recoveryCode" maxLength:"64" doc:"the announced recoveryCode (its default; RECOVERY_DISPOSAL_CODE_INVALID for another)" label:"Recovery operation|Verwertungsverfahren" help:"The announced R code.|Der angekündigte R-Code." codeList:"operation"`
}

// TakeBack initiates the take-back of a shipment that cannot be completed.
type TakeBack struct {
	Reason string `json:"reason" maxLength:"4000" label:"Reason for the take-back|Grund der Rücknahme"`
}

// History records. They repeat the block's fields instead of embedding it:
// the wire codec names an embedded struct as a field of its own.

// CarrierTransferRecord is a transfer recorded.
type CarrierTransferRecord struct {
	CarrierOrganisationID string    `json:"carrierOrganisationId" label:"Carrier|Transportunternehmen"`
	MeansOfTransport      string    `json:"meansOfTransport" label:"Means of transport|Transportart" codeList:"meansOfTransport"`
	TransferDate          string    `json:"transferDate" label:"Date of transfer|Übergabedatum"`
	At                    time.Time `json:"at" doc:"when it was recorded" label:"Recorded at|Erfasst am"`
}

// Record is the transfer as recorded at.
func (t CarrierTransfer) Record(at time.Time) CarrierTransferRecord {
	return CarrierTransferRecord{CarrierOrganisationID: t.CarrierOrganisationID, MeansOfTransport: t.MeansOfTransport, TransferDate: t.TransferDate, At: at}
}

// CertificateRecord is a receipt certificate recorded.
type CertificateRecord struct {
	ReceivedOn string            `json:"receivedOn" label:"Received on|Erhalten am"`
	Quantity   shipment.Quantity `json:"quantity" label:"Quantity received|Erhaltene Menge"`
	At         time.Time         `json:"at" doc:"when it was recorded" label:"Recorded at|Erfasst am"`
}

// Record is the certificate as recorded at.
func (c ReceiptCertificate) Record(at time.Time) *CertificateRecord {
	return &CertificateRecord{ReceivedOn: c.ReceivedOn, Quantity: c.Quantity, At: at}
}

// Block is the certificate as its intent's input block.
func (c *CertificateRecord) Block() ReceiptCertificate {
	return ReceiptCertificate{ReceivedOn: c.ReceivedOn, Quantity: c.Quantity}
}

// CompletionRecord is the certificate of completion recorded.
type CompletionRecord struct {
	CompletedOn  string    `json:"completedOn" label:"Recovery completed on|Verwertung abgeschlossen am"`
	RecoveryCode string    `json:"recoveryCode" label:"Recovery operation|Verwertungsverfahren" codeList:"operation"`
	At           time.Time `json:"at" doc:"when it was recorded" label:"Recorded at|Erfasst am"`
}

// Record is the certificate as recorded at.
func (c CertificateOfCompletion) Record(at time.Time) *CompletionRecord {
	return &CompletionRecord{CompletedOn: c.CompletedOn, RecoveryCode: c.RecoveryCode, At: at}
}

// TakeBackRecord is a take-back initiated.
type TakeBackRecord struct {
	Reason      string    `json:"reason" label:"Reason|Grund"`
	At          time.Time `json:"at" doc:"when it was initiated" label:"Initiated at|Eingeleitet am"`
	CompletedAt time.Time `json:"completedAt" doc:"when the take-back document completed; null while open" label:"Completed at|Abgeschlossen am"`
	CompletedBy string    `json:"completedBy" doc:"id of the Annex VII document that carried it out" label:"Carried out by document|Durchgeführt mit Dokument"`
}

// CorrectionRecord is the content an announcement had before a correction.
type CorrectionRecord struct {
	At       time.Time `json:"at" label:"Corrected at|Korrigiert am"`
	Previous Content   `json:"previous" label:"Before the correction|Vor der Korrektur"`
}

// Annex7 is the whole aggregate stored for a document.
type Annex7 struct {
	Content                 Content                    `json:"annex7" label:"Annex VII document|Anhang-VII-Dokument"`
	AnnouncedAt             *time.Time                 `json:"announcedAt" label:"Announced at|Angekündigt am"`
	Corrections             []CorrectionRecord         `json:"corrections" maxItems:"100" label:"Corrections|Korrekturen"`
	CarrierTransfers        []CarrierTransferRecord    `json:"carrierTransfers" maxItems:"100" label:"Transfers to carriers|Übergaben an Transportunternehmen"`
	ConsigneeCertificate    *CertificateRecord         `json:"consigneeCertificate" label:"13. Receipt by the consignee|13. Entgegennahme durch den Empfänger"`
	FacilityCertificate     *CertificateRecord         `json:"facilityCertificate" label:"14. Receipt at the recovery facility / laboratory|14. Eingang bei der Verwertungsanlage / beim Labor"`
	CertificateOfCompletion *CompletionRecord          `json:"certificateOfCompletion" label:"Certificate of completion|Bescheinigung über den Abschluss"`
	TakeBacks               []TakeBackRecord           `json:"takeBacks" maxItems:"100" label:"Take-backs|Rücknahmen"`
	Metadata                shipment.Metadata          `json:"metadata" label:"Additional information|Weitere Angaben"`
	Withdrawal              *shipment.WithdrawalRecord `json:"withdrawn" label:"Withdrawal|Rücknahme des Entwurfs"`
	// DIWASS is the exchange with DIWASS (nil: never exchanged).
	DIWASS *shipment.DIWASSExchange `json:"diwass" label:"Exchange with DIWASS|Austausch mit DIWASS"`

	// The parties' details as they were when the document was filed
	// (the runner records them; none while a draft).
	shipment.Recorded `json:",inline"`
}

// Parties lists every organisation of the content with its roles.
func Parties(c *Content) []shipment.Party {
	out := []shipment.Party{
		{OrganisationID: c.Arranger.OrganisationID, Role: RoleArranger},
		{OrganisationID: c.Consignee.OrganisationID, Role: shipment.RoleConsignee},
		{OrganisationID: c.Facility.OrganisationID, Role: shipment.RoleFacility},
	}
	for _, p := range c.Producers {
		out = append(out, shipment.Party{OrganisationID: p.OrganisationID, Role: shipment.RoleProducer})
	}
	for _, p := range c.Carriers {
		out = append(out, shipment.Party{OrganisationID: p.OrganisationID, Role: shipment.RoleCarrier})
	}
	return append(out, c.CompetentAuthorities.Authorities()...)
}

// IsCarrier reports whether org is one of the announced carriers.
func (c *Content) IsCarrier(org string) bool {
	for _, p := range c.Carriers {
		if p.OrganisationID == org {
			return true
		}
	}
	return false
}

// Check validates the content as a draft (complete false: what is given
// must be right) or as an announcement (complete: everything required),
// for a document dated on.
func Check(c *Content, dir shipment.Directory, complete bool, on time.Time) []shipment.BusinessError {
	// In the order of the form's boxes: 1, 2, 5, 6, 7.
	k := &shipment.Checker{Dir: dir, Complete: complete, On: on}
	k.Party("annex7.arranger.organisationId", c.Arranger.OrganisationID, "company")
	k.Party("annex7.consignee.organisationId", c.Consignee.OrganisationID, "company")
	if complete && len(c.Carriers) == 0 {
		k.Add(shipment.ErrRequiredMissing, "annex7.carriers", "at least one carrier is required")
	}
	for i, p := range c.Carriers {
		field := fmt.Sprintf("annex7.carriers[%d]", i)
		k.Party(field+".organisationId", p.OrganisationID, "company")
		if p.MeansOfTransport != "" && !slices.Contains(MeansOfTransport, p.MeansOfTransport) {
			k.Add(shipment.ErrRequiredMissing, field+".meansOfTransport", "%q is not a means of transport (ROAD, RAIL, SEA, AIR, INLAND_WATERWAYS)", p.MeansOfTransport)
		}
	}
	for i, p := range c.Producers {
		k.Party(fmt.Sprintf("annex7.producers[%d].organisationId", i), p.OrganisationID, "company")
	}
	k.Party("annex7.facility.organisationId", c.Facility.OrganisationID, "company")
	k.Authorities("annex7.competentAuthorities", &c.CompetentAuthorities)
	k.Classifications("annex7.wasteClassifications", c.WasteClassifications)
	for i, w := range c.WasteClassifications {
		if _, ok, _ := wastecodes.LookupOn(w.List, w.Code, on); !ok {
			continue // reported as an invalid code already
		}
		if green, reason := wastecodes.IsGreenListed(w.List, w.Code, on); !green {
			k.Add(ErrNotGreenListed, fmt.Sprintf("annex7.wasteClassifications[%d]", i),
				"%s: Annex VII covers green-listed waste only; amber-listed and hazardous waste needs a prior written notification", reason)
		}
	}
	if complete && c.UsualDescription == "" {
		k.Add(shipment.ErrRequiredMissing, "annex7.usualDescription", "the usual description of the waste is required")
	}
	checkRecovery(k, "annex7.recoveryCode", c.RecoveryCode, complete)
	k.Quantity("annex7.actualQuantity", c.ActualQuantity)
	if c.ActualDateOfShipment == "" {
		if complete {
			k.Add(shipment.ErrRequiredMissing, "annex7.actualDateOfShipment", "the date of shipment is required")
		}
	} else if _, err := shipment.ParseDate(c.ActualDateOfShipment); err != nil {
		k.Add(shipment.ErrDateOutOfRange, "annex7.actualDateOfShipment", "dates must be YYYY-MM-DD")
	}
	return k.Errors
}

// checkRecovery: Annex VII shipments go to recovery, R1-R13.
func checkRecovery(k *shipment.Checker, field, code string, required bool) {
	if code == "" {
		if required {
			k.Add(shipment.ErrRequiredMissing, field, "the recovery operation is required")
		}
		return
	}
	op, ok := wastecodes.LookupOperation(code)
	switch {
	case !ok:
		k.Add(shipment.ErrOperationCode, field, "%q is not a recovery operation (R1-R13)", code)
	case !op.Recovery:
		k.Add(shipment.ErrOperationCode, field, "%s is a disposal operation: Annex VII covers shipments for recovery only (R1-R13)", code)
	}
}

// Prior information (Art. 18(5) Regulation (EU) 2024/1157): the arranger
// announces an Annex VII shipment at least two working days before it
// starts. A provider may set another period (SettingPriorInformationDays,
// rules.ProviderSettings): industry bodies asked for it to change.
const (
	PriorInformationDays        = 2
	PriorInformationBasis       = "Art. 18(5) Regulation (EU) 2024/1157"
	SettingPriorInformationDays = "annex7PriorInformationWorkingDays"
)

// PriorNotice checks that the shipment starts at least days working days
// after now at the arranger's place; the refusal names the legal basis
// and, when days is not the law's, the provider's setting.
func PriorNotice(c *Content, place calendar.Place, now time.Time, days int) []shipment.BusinessError {
	date, err := shipment.ParseDate(c.ActualDateOfShipment)
	if err != nil {
		return nil // reported by Check
	}
	earliest := calendar.AddWorkingDays(place, now, days).In(calendar.Location(place.Country)).Format(time.DateOnly)
	if date.Format(time.DateOnly) >= earliest {
		return nil
	}
	basis := PriorInformationBasis
	if days != PriorInformationDays {
		basis = fmt.Sprintf("this provider's setting %s: %d; %s: %d", SettingPriorInformationDays, days, PriorInformationBasis, PriorInformationDays)
	}
	return []shipment.BusinessError{{Code: shipment.ErrPriorNotice, Field: "annex7.actualDateOfShipment",
		Message: fmt.Sprintf("the shipment must be announced at least %d working days before it starts (%s): %s is the earliest date now", days, basis, earliest)}}
}

// CheckCompletion checks the certificate of completion.
func CheckCompletion(in *CertificateOfCompletion, d *Annex7, place calendar.Place, now time.Time) []shipment.BusinessError {
	received := ""
	if d.FacilityCertificate != nil {
		received = d.FacilityCertificate.ReceivedOn
	}
	errs := shipment.PastDate("certificateOfCompletion.completedOn", in.CompletedOn, place, now, received, "the facility's receipt")
	if in.RecoveryCode == "" {
		in.RecoveryCode = d.Content.RecoveryCode
	}
	k := &shipment.Checker{Errors: errs}
	checkRecovery(k, "certificateOfCompletion.recoveryCode", in.RecoveryCode, true)
	if len(k.Errors) == len(errs) && in.RecoveryCode != d.Content.RecoveryCode {
		// As a movement's completion names one of the notified operations:
		// the operation completed is the one announced (box 8).
		k.Add(shipment.ErrOperationCode, "certificateOfCompletion.recoveryCode", "%s is not the announced recovery operation (%s)", in.RecoveryCode, d.Content.RecoveryCode)
	}
	return k.Errors
}

// CompletionCertificateDue is the last day for the certificate of
// completion (shipment.CompletionCertificateDue, as applied to Annex VII);
// empty before the facility's receipt.
func (d *Annex7) CompletionCertificateDue() string {
	if d.FacilityCertificate == nil {
		return ""
	}
	var completedOn string
	if c := d.CertificateOfCompletion; c != nil {
		completedOn = c.CompletedOn
	}
	return shipment.CompletionCertificateDue(d.FacilityCertificate.ReceivedOn, completedOn)
}

// ConsigneeReceivedOn is the receipt date the consignee certified, or "".
func (d *Annex7) ConsigneeReceivedOn() string { return receivedOn(d.ConsigneeCertificate) }

// FacilityReceivedOn is the receipt date the facility certified, or "".
func (d *Annex7) FacilityReceivedOn() string { return receivedOn(d.FacilityCertificate) }

func receivedOn(c *CertificateRecord) string {
	if c == nil {
		return ""
	}
	return c.ReceivedOn
}

// HasTransferred reports whether org recorded a carrier transfer.
func (d *Annex7) HasTransferred(org string) bool {
	for _, t := range d.CarrierTransfers {
		if t.CarrierOrganisationID == org {
			return true
		}
	}
	return false
}

// LastHandOver is the earliest date the next carrier may take the waste
// over: the announced date of shipment (starting earlier would undercut
// the prior notice), or the previous carrier's transfer.
func (d *Annex7) LastHandOver() string {
	last := d.Content.ActualDateOfShipment
	for _, t := range d.CarrierTransfers {
		last = max(last, t.TransferDate)
	}
	return last
}

// OpenTakeBack is the take-back initiated and not completed, if any.
func (d *Annex7) OpenTakeBack() *TakeBackRecord {
	for i := range d.TakeBacks {
		if d.TakeBacks[i].CompletedBy == "" {
			return &d.TakeBacks[i]
		}
	}
	return nil
}

// CheckPlaces checks the competent authorities against the shipment's
// sites: dispatch where the arranger or a producer is, destination where
// the facility is, a border crossed (countryOf tells an organisation's
// country).
func CheckPlaces(c *Content, countryOf func(string) string) []shipment.BusinessError {
	p := shipment.Places{Destination: countryOf(c.Facility.OrganisationID)}
	ids := []string{c.Arranger.OrganisationID}
	for _, pr := range c.Producers {
		ids = append(ids, pr.OrganisationID)
	}
	for _, id := range ids {
		if cc := countryOf(id); cc != "" && !slices.Contains(p.Dispatch, cc) && c.TakeBackOf == "" {
			p.Dispatch = append(p.Dispatch, cc) // a take-back starts where the original went: not told here
		}
	}
	return shipment.CheckAuthorities("annex7.competentAuthorities", &c.CompetentAuthorities, p, countryOf)
}
