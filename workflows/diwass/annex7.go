package diwass

import (
	"context"
	"encoding/xml"
	"fmt"
	"strings"
	"time"

	"github.com/biter777/countries"

	a "github.com/wasteflow/wasteflow/rules/annex7"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/rules/shipment"
)

// CreateAnnex7Request is CreateAnnex7DocumentTypeRequest, its children in
// the order of the spec pack's sample. The request and its direct
// children are in the Annex VII namespace, the transport announcement's
// children in the shared model's: the samples' prefixes say which
// element is in which only for the request and its answer, so the split
// below the announcement is our reading (docs/diwass.md).
type CreateAnnex7Request struct {
	XMLName                     xml.Name              `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 CreateAnnex7DocumentTypeRequest"`
	TakeBackIndication          bool                  `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 takeBackIndication"`
	IllegalActivityIndication   bool                  `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 illegalActivityIndication"`
	ReferenceAnnexVIIDocumentNo string                `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 referenceAnnexVIIDocumentNo,omitempty"`
	ArrangerIsProducer          bool                  `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 shipmentArrangerIsAlsoProducerOrCollector"`
	Transport                   TransportAnnouncement `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 transportAnnouncement"`
	DeclarationArranger         Declaration           `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 declarationArranger"`
	DeclarationProducer         *Declaration          `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 declarationProducer,omitempty"`
}

// TransportAnnouncement is Annex VII's boxes 1 to 12.
type TransportAnnouncement struct {
	Arranger             Party     `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 arranger"`
	Consignee            Party     `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 consignee"`
	ActualQuantity       Quantity  `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 actualQuantity"`
	ActualDateOfShipment string    `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 actualDateOfShipment"`
	Carriers             []Carrier `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 carrier"`
	WasteProducer        *Party    `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 wasteProducer,omitempty"`
	Facility             Facility  `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 recoveryLaboratoryFacility"`
	RecoveryCodes        []string  `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 recoveryDisposalTypeCode"`
	UsualDescription     Text      `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 usualDescriptionOfTheWaste>Description"`
	WasteTypeCodes       []Coded   `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 wasteClassification>WasteTypeCode"`
	ExportCountry        string    `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 exportCountry>countryID"`
	ImportCountry        string    `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 importCountry>countryID"`
	TransitCountries     []Country `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 transitCountry,omitempty"`
}

// Party is a party block: its contact and DIWASS operator.
type Party struct {
	Contact            Contact `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 Contact"`
	OperatorInternalID string  `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 OperatorInternalID,omitempty"`
}

// Contact of a party.
type Contact struct {
	Name      string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 Name"`
	Telephone string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 TelephoneCompleteNumber,omitempty"`
	Email     string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 EmailURI,omitempty"`
}

// Quantity in tonnes (MassMeasure) or cubic metres (VolumeMeasure), with
// UN/ECE Recommendation 20 unit codes (TNE, MTQ; our reading).
type Quantity struct {
	Mass   *Measure `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 MassMeasure,omitempty"`
	Volume *Measure `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 VolumeMeasure,omitempty"`
}

// Measure is a value with its unit.
type Measure struct {
	Unit  string `xml:"unitCode,attr"`
	Value string `xml:",chardata"`
}

// Carrier is a party with its means of transport (Annex IB's letters: R
// road, T rail, S sea, A air, W inland waterways).
type Carrier struct {
	Party
	MeansOfTransport string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 MeansOfTransportCode"`
}

// Facility is the recovery facility or laboratory.
type Facility struct {
	Party
	Indicators   Indicators `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 operationalIndicators"`
	Confidential bool       `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 wasteFacilityNameConfidential"`
	// TypeCode is R (recovery facility) or L (laboratory).
	TypeCode string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 facilityLaboratoryTypeCode"`
}

// Indicators of an interim facility and the one after it.
type Indicators struct {
	Interim              bool `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 InterimFacility"`
	NextInAnotherCountry bool `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 NextSubsequentInterimOrNonInterimFacilityInAnotherCountry"`
	NextInTheSameCountry bool `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 NextSubsequentInterimOrNonInterimFacilityInSameCountry"`
}

// Text with its language.
type Text struct {
	Language string `xml:"languageID,attr"`
	Value    string `xml:",chardata"`
}

// Coded is a code with the list it is from.
type Coded struct {
	ListID string `xml:"listID,attr"`
	Value  string `xml:",chardata"`
}

// Country by its UN M49 numeric code.
type Country struct {
	ID string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 countryID"`
}

// Declaration of the arranger (or producer): who, in what role, when,
// and the signature (plain text in the sample).
type Declaration struct {
	Name      string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 name"`
	Role      string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 organizationRole"`
	Timestamp string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 timestamp"`
	Signature string `xml:"http://ec.europa.eu/tracesnt/waste/model/v1 signature"`
}

// Annex7Input is what a request is built from: the document's content,
// the parties as filed, their DIWASS operators, when it was announced and
// by whom, and the DIWASS number of the document a take-back takes back.
type Annex7Input struct {
	Content     a.Content
	Parties     map[string]shipment.PartyDetails // by organisation id
	Operators   map[string]string                // OperatorInternalID by organisation id
	AnnouncedAt time.Time
	Declarant   string // the arranger's person who announced it
	TakeBackOf  string // DIWASS's number of the original ("" when none)
	Language    string // of the usual description (default en)
}

// M49 is the UN M49 numeric code of an ISO 3166-1 alpha-2 country ("" for
// an unknown one): the numeric code ISO 3166-1 gives it.
func M49(alpha2 string) string {
	c := countries.ByName(strings.ToUpper(alpha2))
	if c == countries.Unknown {
		return ""
	}
	return fmt.Sprintf("%03d", int(c))
}

var meansCodes = map[string]string{"ROAD": "R", "RAIL": "T", "SEA": "S", "AIR": "A", "INLAND_WATERWAYS": "W"}

// listIDs are the WasteTypeCode@listID of our code lists ("BASEL" is the
// sample's; the others our reading).
var listIDs = map[string]string{"BASEL_ANNEX_IX": "BASEL", "BASEL_ANNEX_VIII": "BASEL", "OECD": "OECD", "EU_LIST_OF_WASTE": "EWC", "NATIONAL": "NATIONAL"}

// BuildAnnex7 makes the request of an announced Annex VII document. It
// refuses (naming what) a document DIWASS could not take: a party without
// a DIWASS operator, a country without an M49 code.
func BuildAnnex7(in Annex7Input) (*CreateAnnex7Request, error) {
	c := &in.Content
	var missing []string
	party := func(id string) Party {
		p := in.Parties[id]
		op := in.Operators[id]
		if op == "" {
			missing = append(missing, "no DIWASS operator for "+in.named(id)+": it needs an EORI or VAT number in the directory")
		}
		name := p.Name
		if p.ContactPerson != "" {
			name = p.ContactPerson
		}
		return Party{Contact: Contact{Name: name, Telephone: p.Telephone, Email: p.Email}, OperatorInternalID: op}
	}
	country := func(id string) string {
		code := M49(in.Parties[id].Address.Country)
		if code == "" {
			missing = append(missing, "no country for "+id)
		}
		return code
	}
	r := &CreateAnnex7Request{TakeBackIndication: c.TakeBackOf != "", ReferenceAnnexVIIDocumentNo: in.TakeBackOf}
	t := &r.Transport
	t.Arranger, t.Consignee = party(c.Arranger.OrganisationID), party(c.Consignee.OrganisationID)
	switch q := c.ActualQuantity; {
	case q.Tonnes != nil:
		t.ActualQuantity.Mass = &Measure{Unit: "TNE", Value: q.Tonnes.String()}
	case q.CubicMetres != nil:
		t.ActualQuantity.Volume = &Measure{Unit: "MTQ", Value: q.CubicMetres.String()}
	}
	t.ActualDateOfShipment = c.ActualDateOfShipment
	for _, cr := range c.Carriers {
		t.Carriers = append(t.Carriers, Carrier{Party: party(cr.OrganisationID), MeansOfTransport: meansCodes[cr.MeansOfTransport]})
	}
	for _, p := range c.Producers {
		if p.OrganisationID == c.Arranger.OrganisationID {
			r.ArrangerIsProducer = true
		}
	}
	if !r.ArrangerIsProducer && len(c.Producers) > 0 {
		p := party(c.Producers[0].OrganisationID)
		t.WasteProducer = &p
	}
	t.Facility = Facility{Party: party(c.Facility.OrganisationID), TypeCode: "R"}
	if c.Facility.Laboratory {
		t.Facility.TypeCode = "L"
	}
	t.RecoveryCodes = []string{c.RecoveryCode}
	lang := in.Language
	if lang == "" {
		lang = "en"
	}
	t.UsualDescription = Text{Language: lang, Value: c.UsualDescription}
	for _, w := range c.WasteClassifications {
		t.WasteTypeCodes = append(t.WasteTypeCodes, Coded{ListID: listIDs[w.List], Value: w.Code})
	}
	t.ExportCountry = country(c.CompetentAuthorities.Dispatch.OrganisationID)
	t.ImportCountry = country(c.CompetentAuthorities.Destination.OrganisationID)
	for _, tr := range c.CompetentAuthorities.Transit {
		t.TransitCountries = append(t.TransitCountries, Country{ID: country(tr.OrganisationID)})
	}
	arranger := in.Parties[c.Arranger.OrganisationID]
	r.DeclarationArranger = Declaration{Name: strings.TrimSpace(in.Declarant + " (" + arranger.Name + ")"), Role: "arranger",
		Timestamp: in.AnnouncedAt.Format(time.RFC3339), Signature: "declared electronically through " + arranger.Name + "'s account"}
	if len(missing) > 0 {
		return nil, &NotSendableError{strings.Join(missing, "; ")}
	}
	return r, nil
}

type annex7Response struct {
	XMLName  xml.Name `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 Annex7DocumentTypeResponse"`
	Response struct {
		StatusCode string `xml:"http://ec.europa.eu/tracesnt/waste/notification/v1 statusCode"`
	} `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 response"`
	Number string `xml:"http://ec.europa.eu/tracesnt/waste/annex7/v1 annexVIIDocumentNo"`
}

// CreateAnnex7 sends an Annex VII document and returns the number DIWASS
// gave it (GLW.<country><yy><sequence>i).
func (c *Client) CreateAnnex7(ctx context.Context, req *CreateAnnex7Request) (string, error) {
	var out annex7Response
	if err := c.call(ctx, c.Endpoints.Annex7, req, &out, false); err != nil {
		return "", err
	}
	if out.Response.StatusCode != "OK" || out.Number == "" {
		return "", &UncertainError{echo.Errorf("DIWASS answered status %q and number %q", out.Response.StatusCode, out.Number)}
	}
	return strings.TrimSpace(out.Number), nil
}

// named is a party as a person reads it: its name and, in brackets, its
// id ("ACME GmbH (acme)"); the id alone when the document has no name.
func (in *Annex7Input) named(id string) string {
	if n := in.Parties[id].Name; n != "" {
		return n + " (" + id + ")"
	}
	return id
}
