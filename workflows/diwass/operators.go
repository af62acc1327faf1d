package diwass

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
)

// Operator is a DIWASS operator (OperatorDirectoryServiceV2's model, in
// the operator base namespace). The samples show the element names and
// attributes; where they leave a choice open (the identifier's value in
// its name attribute, the contact detail's value as its text) the reading
// is ours and docs/diwass.md says so.
type Operator struct {
	XMLName          xml.Name          `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 Operator"`
	InternalID       string            `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 OperatorInternalID,omitempty"`
	Name             string            `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Name"`
	Addresses        []OperatorAddress `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 OperatorAddress"`
	Contacts         []ContactDetail   `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 OperatorContactDetail"`
	Identifiers      []Identifier      `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Identifier"`
	Activity         Activity          `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Activity"`
	LinkedOperatorID string            `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 LinkedOperatorInternalID,omitempty"`
}

// OperatorAddress is an operator's address; Main marks the main one.
type OperatorAddress struct {
	Main    bool    `xml:"main,attr"`
	Address Address `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Address"`
}

// Address is a postal address; CountryID is ISO 3166-1 alpha-2.
type Address struct {
	Street string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Street"`
	City   City   `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 City"`
}

// City of an address.
type City struct {
	Name       string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Name"`
	PostalCode string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 PostalCode"`
	CountryID  string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 CountryID"`
}

// Contact detail types.
const (
	ContactPhone  = "phone"
	ContactEmail  = "email"
	ContactPerson = "contact_person_name"
)

// ContactDetail is one way to reach the operator.
type ContactDetail struct {
	Type  string `xml:"type,attr"`
	Value string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 ContactDetail"`
}

// Identifier types we send.
const (
	IdentifierEORI = "eori"
	IdentifierVAT  = "vat"
)

// Identifier is an operator's official number: Type (eori, vat), the
// number in Name, Main for the one DIWASS keys the operator by.
type Identifier struct {
	Type string `xml:"type,attr"`
	Name string `xml:"name,attr"`
	Main bool   `xml:"main,attr,omitempty"`
}

// Activity is what the operator is registered for, under a responsible
// authority's activity code (e.g. DE002); Status comes back (New, Valid).
type Activity struct {
	Type                     ActivityType `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 ActivityType"`
	ResponsibleAuthorityCode string       `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 ResponsibleAuthorityActivityCode"`
	Status                   string       `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Status,omitempty"`
}

// ActivityType of a waste operator: chapter wsr, section WSR, type
// waste_operator (the samples').
type ActivityType struct {
	Chapter string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Chapter"`
	Section string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Section"`
	Type    string `xml:"http://ec.europa.eu/tracesnt/directory/operator/base/v1 Type"`
}

// WasteOperator is the activity type of every operator we register.
var WasteOperator = ActivityType{Chapter: "wsr", Section: "WSR", Type: "waste_operator"}

// MainIdentifier is the operator's main identifier (the first when none
// is marked).
func (o *Operator) MainIdentifier() (Identifier, bool) {
	for _, id := range o.Identifiers {
		if id.Main {
			return id, true
		}
	}
	if len(o.Identifiers) > 0 {
		return o.Identifiers[0], true
	}
	return Identifier{}, false
}

type createOperatorRequest struct {
	XMLName  xml.Name `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 CreateOperatorRequest"`
	Operator Operator
}

// CreateOperator registers o and returns its OperatorInternalID. DIWASS
// refuses an operator whose main identifier it knows already: a *Fault
// with HTTP 409 (DuplicateOperator tells).
func (c *Client) CreateOperator(ctx context.Context, o Operator) (string, error) {
	var out anyElement
	if err := c.call(ctx, c.Endpoints.Operators, createOperatorRequest{Operator: o}, &out, false); err != nil {
		return "", err
	}
	// The answer's element has no sample: the first OperatorInternalID in
	// it, wherever it stands.
	id := out.first("OperatorInternalID")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return "", &UncertainError{errors.New("the answer to CreateOperatorRequest carries no numeric OperatorInternalID")}
	}
	return id, nil
}

// DuplicateOperator reports whether err is DIWASS refusing an operator it
// knows already (HTTP 409).
func DuplicateOperator(err error) bool {
	var f *Fault
	return errors.As(err, &f) && f.HTTPStatus == 409
}

type findOperatorRequest struct {
	XMLName        xml.Name   `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 FindOperatorRequest"`
	PageSize       int        `xml:"pageSize,attr"`
	Offset         int        `xml:"offset,attr"`
	CountryID      string     `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 CountryID"`
	ActivityStatus string     `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 ActivityStatus,omitempty"`
	Identifier     Identifier `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 Identifier"`
}

type findOperatorResponse struct {
	XMLName   xml.Name   `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 FindOperatorResponse"`
	Operators []Operator `xml:"http://ec.europa.eu/tracesnt/directory/operator/v2 Operator"`
}

// FindOperator finds the operators of country (ISO alpha-2) with
// identifier id; none is an empty answer.
func (c *Client) FindOperator(ctx context.Context, country string, id Identifier) ([]Operator, error) {
	var out findOperatorResponse
	req := findOperatorRequest{PageSize: 10, CountryID: country, Identifier: Identifier{Type: id.Type, Name: id.Name}}
	if err := c.call(ctx, c.Endpoints.Operators, req, &out, false); err != nil {
		return nil, err
	}
	return out.Operators, nil
}

// anyElement keeps an element's content to search by local name.
type anyElement struct {
	Inner []byte `xml:",innerxml"`
}

// first is the text of the first element named local in e, "" when none.
func (e anyElement) first(local string) string {
	dec := xml.NewDecoder(bytes.NewReader(e.Inner))
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == local {
			var text string
			if dec.DecodeElement(&text, &se) != nil {
				return ""
			}
			return strings.TrimSpace(text)
		}
	}
}
