// Package diwassfake is a fake of the three DIWASS services whose shape is
// known (the ping, the operator directory, and later Annex VII), written
// from the documented facts (docs/diwass.md), for black-box tests: it
// parses a request by the element inside the SOAP Body, checks what the
// spec pack's rules ask, answers in the samples' shapes, keeps what it was
// sent, and can be told to fail, hang or cut the connection.
package diwassfake

import (
	"encoding/xml"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
)

// Fake is an http.Handler serving the services at /ping, /operators and
// /annex7.
type Fake struct {
	mu        sync.Mutex
	operators []Operator
	documents []Annex7
	nextID    int
	received  map[string]int
	plan      []Mishap
	hang      chan struct{}
}

// New makes an empty fake.
func New() *Fake { return &Fake{nextID: 1000, received: map[string]int{}, hang: make(chan struct{})} }

// Mishap is what the fake does instead of answering one request (after
// it read the request's body): Status with a fault, a hang until Release,
// or a connection cut.
type Mishap struct {
	Status int    // answer this status with a SOAP fault saying Fault
	Fault  string // the faultstring
	Hang   bool
	Cut    bool
	Plain  string // answer Status with this plain text, not SOAP
	// Lost: do what the request asks, then cut the connection instead
	// of answering (it arrived; its sender cannot know).
	Lost bool
}

// Next queues mishaps for the next requests, in order.
func (f *Fake) Next(m ...Mishap) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.plan = append(f.plan, m...)
}

// Release ends every hang.
func (f *Fake) Release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	close(f.hang)
	f.hang = make(chan struct{})
}

// Received is how many requests of operation (the Body's element, e.g.
// CreateOperatorRequest) reached the fake, answered or not.
func (f *Fake) Received(operation string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.received[operation]
}

// Operators are the operators the fake holds, in the order registered.
func (f *Fake) Operators() []Operator {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Operator(nil), f.operators...)
}

// Operator as the fake reads it: local names only, whatever the namespace
// (the fake is lenient where the samples leave a choice).
type Operator struct {
	InternalID string `xml:"OperatorInternalID"`
	Name       string `xml:"Name"`
	Addresses  []struct {
		Main    bool   `xml:"main,attr"`
		Street  string `xml:"Address>Street"`
		City    string `xml:"Address>City>Name"`
		Postal  string `xml:"Address>City>PostalCode"`
		Country string `xml:"Address>City>CountryID"`
	} `xml:"OperatorAddress"`
	Contacts []struct {
		Type  string `xml:"type,attr"`
		Value string `xml:"ContactDetail"`
	} `xml:"OperatorContactDetail"`
	Identifiers []struct {
		Type string `xml:"type,attr"`
		Name string `xml:"name,attr"`
		Main bool   `xml:"main,attr"`
	} `xml:"Identifier"`
	Chapter   string `xml:"Activity>ActivityType>Chapter"`
	Section   string `xml:"Activity>ActivityType>Section"`
	Type      string `xml:"Activity>ActivityType>Type"`
	Authority string `xml:"Activity>ResponsibleAuthorityActivityCode"`
	Status    string `xml:"-"`
}

func (o *Operator) mainIdentifier() string {
	for _, id := range o.Identifiers {
		if id.Main {
			return id.Type + ":" + id.Name
		}
	}
	if len(o.Identifiers) > 0 {
		return o.Identifiers[0].Type + ":" + o.Identifiers[0].Name
	}
	return ""
}

func (o *Operator) country() string {
	for _, a := range o.Addresses {
		if a.Main || len(o.Addresses) == 1 {
			return a.Country
		}
	}
	return ""
}

type request struct {
	Body struct {
		Inner []byte `xml:",innerxml"`
	} `xml:"Body"`
}

func (f *Fake) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, err := io.ReadAll(io.LimitReader(r.Body, 16<<20))
	if err != nil {
		return
	}
	var env request
	op := ""
	if err := xml.Unmarshal(raw, &env); err == nil {
		op = rootOf(env.Body.Inner)
	}
	f.mu.Lock()
	f.received[op]++
	var m *Mishap
	if len(f.plan) > 0 {
		m, f.plan = &f.plan[0], f.plan[1:]
	}
	hang := f.hang
	f.mu.Unlock()
	if m != nil {
		switch {
		case m.Hang:
			select {
			case <-hang:
			case <-r.Context().Done():
			}
			return
		case m.Cut, m.Lost:
			if m.Lost {
				f.serve(httptest.NewRecorder(), r, op, env.Body.Inner)
			}
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
				}
			}
			return
		case m.Plain != "":
			w.WriteHeader(m.Status)
			_, _ = io.WriteString(w, m.Plain)
			return
		default:
			fault(w, m.Status, m.Fault)
			return
		}
	}
	f.serve(w, r, op, env.Body.Inner)
}

// serve answers operation op of r, whose Body's content is body.
func (f *Fake) serve(w http.ResponseWriter, r *http.Request, op string, body []byte) {
	switch {
	case op == "":
		fault(w, 400, "the request does not read as a SOAP 1.1 envelope with an operation in its Body")
	case r.URL.Path == "/ping" && op == "IamAliveRequest":
		answer(w, `<iam:IamAliveResponse xmlns:iam="http://ec.europa.eu/tracesnt/waste/iamalive"><iam:status>OK</iam:status></iam:IamAliveResponse>`)
	case r.URL.Path == "/operators" && op == "CreateOperatorRequest":
		f.createOperator(w, body)
	case r.URL.Path == "/operators" && op == "FindOperatorRequest":
		f.findOperator(w, body)
	case r.URL.Path == "/annex7" && op == "CreateAnnex7DocumentTypeRequest":
		f.createAnnex7(w, body)
	default:
		fault(w, 400, fmt.Sprintf("operation %s is not served at %s", op, r.URL.Path))
	}
}

func (f *Fake) createOperator(w http.ResponseWriter, body []byte) {
	var req struct {
		Operator Operator `xml:"Operator"`
	}
	if err := xml.Unmarshal(body, &req); err != nil {
		fault(w, 400, "CreateOperatorRequest does not read: "+err.Error())
		return
	}
	o := req.Operator
	switch {
	case strings.TrimSpace(o.Name) == "":
		fault(w, 400, "Operator/Name is required")
		return
	case o.mainIdentifier() == "":
		fault(w, 400, "an Operator needs an Identifier")
		return
	case o.country() == "":
		fault(w, 400, "an Operator needs an OperatorAddress with a CountryID")
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, known := range f.operators {
		if known.mainIdentifier() == o.mainIdentifier() {
			fault(w, 409, "an operator with identifier "+o.mainIdentifier()+" exists: "+known.InternalID)
			return
		}
	}
	f.nextID++
	o.InternalID, o.Status = strconv.Itoa(f.nextID), "New"
	f.operators = append(f.operators, o)
	answer(w, `<op:CreateOperatorResponse xmlns:op="http://ec.europa.eu/tracesnt/directory/operator/v2" xmlns:base="http://ec.europa.eu/tracesnt/directory/operator/base/v1"><base:OperatorInternalID>`+o.InternalID+`</base:OperatorInternalID></op:CreateOperatorResponse>`)
}

func (f *Fake) findOperator(w http.ResponseWriter, body []byte) {
	var req struct {
		Country    string `xml:"CountryID"`
		Identifier struct {
			Type string `xml:"type,attr"`
			Name string `xml:"name,attr"`
		} `xml:"Identifier"`
	}
	if err := xml.Unmarshal(body, &req); err != nil {
		fault(w, 400, "FindOperatorRequest does not read: "+err.Error())
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	var b strings.Builder
	for _, o := range f.operators {
		if o.country() != req.Country {
			continue
		}
		for _, id := range o.Identifiers {
			if id.Type == req.Identifier.Type && id.Name == req.Identifier.Name {
				fmt.Fprintf(&b, `<op:Operator><base:OperatorInternalID>%s</base:OperatorInternalID><base:Name>%s</base:Name><base:Activity><base:Status>%s</base:Status></base:Activity></op:Operator>`,
					o.InternalID, escape(o.Name), o.Status)
				break
			}
		}
	}
	answer(w, `<op:FindOperatorResponse xmlns:op="http://ec.europa.eu/tracesnt/directory/operator/v2" xmlns:base="http://ec.europa.eu/tracesnt/directory/operator/base/v1">`+b.String()+`</op:FindOperatorResponse>`)
}

// PartyBlock is a party of an Annex VII document as the fake reads it.
type PartyBlock struct {
	Name       string `xml:"Contact>Name"`
	Telephone  string `xml:"Contact>TelephoneCompleteNumber"`
	Email      string `xml:"Contact>EmailURI"`
	OperatorID string `xml:"OperatorInternalID"`
}

// Annex7 is an Annex VII document the fake received, and the number it
// gave it.
type Annex7 struct {
	Number             string
	TakeBack           bool       `xml:"takeBackIndication"`
	Illegal            bool       `xml:"illegalActivityIndication"`
	Reference          string     `xml:"referenceAnnexVIIDocumentNo"`
	ArrangerIsProducer bool       `xml:"shipmentArrangerIsAlsoProducerOrCollector"`
	Arranger           PartyBlock `xml:"transportAnnouncement>arranger"`
	Consignee          PartyBlock `xml:"transportAnnouncement>consignee"`
	Mass               *struct {
		Unit  string `xml:"unitCode,attr"`
		Value string `xml:",chardata"`
	} `xml:"transportAnnouncement>actualQuantity>MassMeasure"`
	Volume *struct {
		Unit  string `xml:"unitCode,attr"`
		Value string `xml:",chardata"`
	} `xml:"transportAnnouncement>actualQuantity>VolumeMeasure"`
	Date     string `xml:"transportAnnouncement>actualDateOfShipment"`
	Carriers []struct {
		PartyBlock
		Means string `xml:"MeansOfTransportCode"`
	} `xml:"transportAnnouncement>carrier"`
	Producer *PartyBlock `xml:"transportAnnouncement>wasteProducer"`
	Facility *struct {
		PartyBlock
		Interim  bool   `xml:"operationalIndicators>InterimFacility"`
		TypeCode string `xml:"facilityLaboratoryTypeCode"`
	} `xml:"transportAnnouncement>recoveryLaboratoryFacility"`
	RecoveryCodes []string `xml:"transportAnnouncement>recoveryDisposalTypeCode"`
	Description   struct {
		Language string `xml:"languageID,attr"`
		Value    string `xml:",chardata"`
	} `xml:"transportAnnouncement>usualDescriptionOfTheWaste>Description"`
	WasteCodes []struct {
		ListID string `xml:"listID,attr"`
		Value  string `xml:",chardata"`
	} `xml:"transportAnnouncement>wasteClassification>WasteTypeCode"`
	Export      string   `xml:"transportAnnouncement>exportCountry>countryID"`
	Import      string   `xml:"transportAnnouncement>importCountry>countryID"`
	Transit     []string `xml:"transportAnnouncement>transitCountry>countryID"`
	Declaration struct {
		Name      string `xml:"name"`
		Role      string `xml:"organizationRole"`
		Timestamp string `xml:"timestamp"`
	} `xml:"declarationArranger"`
}

// Documents are the Annex VII documents the fake accepted, in order.
func (f *Fake) Documents() []Annex7 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]Annex7(nil), f.documents...)
}

// createAnnex7 checks what the spec pack's rules ask (as the emulator
// reads them) and gives the document a number of DIWASS's form.
func (f *Fake) createAnnex7(w http.ResponseWriter, body []byte) {
	var d Annex7
	if err := xml.Unmarshal(body, &d); err != nil {
		fault(w, 400, "CreateAnnex7DocumentTypeRequest does not read: "+err.Error())
		return
	}
	var problems []string
	for _, c := range []struct {
		ok   bool
		what string
	}{
		{d.Mass != nil || d.Volume != nil, "actualQuantity needs a MassMeasure or a VolumeMeasure"},
		{len(d.Carriers) > 0, "at least one carrier"},
		{d.Facility != nil, "a recoveryLaboratoryFacility"},
		{len(d.WasteCodes) > 0 && d.WasteCodes[0].Value != "", "at least one WasteTypeCode"},
		{d.Date != "", "actualDateOfShipment"},
		{len(d.RecoveryCodes) > 0 && d.RecoveryCodes[0] != "", "recoveryDisposalTypeCode"},
		{d.Export != "", "exportCountry"},
		{d.Import != "", "importCountry"},
	} {
		if !c.ok {
			problems = append(problems, c.what)
		}
	}
	if len(problems) > 0 {
		fault(w, 400, "validation: "+strings.Join(problems, "; "))
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	d.Number = fmt.Sprintf("GLW.BE26%010di", len(f.documents)+19)
	f.documents = append(f.documents, d)
	answer(w, `<annex7:Annex7DocumentTypeResponse xmlns:annex7="http://ec.europa.eu/tracesnt/waste/annex7/v1" xmlns:notification="http://ec.europa.eu/tracesnt/waste/notification/v1"><annex7:response><notification:statusCode>OK</notification:statusCode></annex7:response><annex7:annexVIIDocumentNo>`+d.Number+`</annex7:annexVIIDocumentNo></annex7:Annex7DocumentTypeResponse>`)
}

// rootOf is the local name of the first element in body.
func rootOf(body []byte) string {
	dec := xml.NewDecoder(strings.NewReader(string(body)))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok {
			return se.Name.Local
		}
	}
}

func escape(s string) string {
	var b strings.Builder
	_ = xml.EscapeText(&b, []byte(s))
	return b.String()
}

const envelopeOpen = `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd" xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd"><soapenv:Header><wsse:Security><wsu:Timestamp><wsu:Created>2026-12-01T09:00:00Z</wsu:Created><wsu:Expires>2026-12-01T09:05:00Z</wsu:Expires></wsu:Timestamp></wsse:Security></soapenv:Header><soapenv:Body>`

func answer(w http.ResponseWriter, body string) {
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	_, _ = io.WriteString(w, envelopeOpen+body+`</soapenv:Body></soapenv:Envelope>`)
}

// fault answers status with a SOAP 1.1 fault, as the emulator does: 4xx
// faults are the client's, 5xx the server's.
func fault(w http.ResponseWriter, status int, text string) {
	code := "soapenv:Client"
	if status >= 500 {
		code = "soapenv:Server"
	}
	w.Header().Set("Content-Type", "text/xml; charset=utf-8")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, envelopeOpen+`<soapenv:Fault><faultcode>`+code+`</faultcode><faultstring>`+escape(text)+`</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>`)
}
