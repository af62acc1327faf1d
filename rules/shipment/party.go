package shipment

// PartyDetails is an organisation as the official forms name a party
// (Annex IA/IB/VII): registration number, name, address, contact person,
// telephone, e-mail, and the identifiers DIWASS registers operators by.
// A filed document records them as they were when it was filed.
type PartyDetails struct {
	OrganisationID     string  `json:"organisationId" maxLength:"128" label:"Organisation|Organisation"`
	Name               string  `json:"name" maxLength:"300" label:"Name|Name"`
	RegistrationNumber string  `json:"registrationNumber" maxLength:"128" label:"Registration No.|Registriernummer"`
	Address            Address `json:"address" label:"Address|Anschrift"`
	ContactPerson      string  `json:"contactPerson" maxLength:"200" label:"Contact person|Kontaktperson"`
	Telephone          string  `json:"telephone" maxLength:"64" label:"Telephone|Telefon"`
	Email              string  `json:"email" maxLength:"254" label:"E-mail|E-Mail"`
	EORI               string  `json:"eori" maxLength:"17" label:"EORI number|EORI-Nummer"`
	VAT                string  `json:"vat" maxLength:"20" label:"VAT identification number|Umsatzsteuer-Identifikationsnummer"`
}

// Address is a postal address; Country is ISO 3166-1 alpha-2.
type Address struct {
	Street     string `json:"street" maxLength:"200" label:"Street and number|Straße und Hausnummer"`
	PostalCode string `json:"postalCode" maxLength:"20" label:"Postal code|Postleitzahl"`
	City       string `json:"city" maxLength:"100" label:"City|Ort"`
	Country    string `json:"country" maxLength:"2" label:"Country|Staat" codeList:"country"`
}

// Recorded is what a filed document recorded of its parties: each
// party's details as they were when the document was filed (or last
// corrected), in the order the document names its parties. A kind's
// aggregate embeds it; the runner fills it (a draft records none: it
// shows the directory's details).
type Recorded struct {
	PartyDetails []PartyDetails `json:"partyDetails,omitempty"`
}

// RecordedParties gives the runner the record (an aggregate embedding
// Recorded has it).
func (r *Recorded) RecordedParties() *Recorded { return r }

// Party is the recorded details of organisation id.
func (r *Recorded) Party(id string) (PartyDetails, bool) {
	for _, p := range r.PartyDetails {
		if p.OrganisationID == id {
			return p, true
		}
	}
	return PartyDetails{}, false
}
