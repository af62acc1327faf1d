// Package diwass speaks to DIWASS, the Commission's Digital Waste Shipment
// System, over the part of its SOAP interface that is known from the spec
// pack's own samples (docs/diwass.md says what is known and from where):
// the ping (WasteV1, IamAliveRequest), the operator directory
// (OperatorDirectoryServiceV2) and the Annex VII service (WasteAnnex7V1). SOAP 1.1 over HTTP(S), text/xml, one endpoint per WSDL
// service, the operation the first child of the Body.
//
// What a call's failure means for a request that must never be sent twice
// is the point of this package: a Fault says DIWASS answered (a rejection
// with 4xx); NotSent says the request surely did not arrive (it can be
// sent again); anything else after the request was written may have
// arrived (Uncertain): never sent again automatically.
package diwass

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"strings"
	"time"
)

// Namespaces of the spec pack's samples.
const (
	NSEnvelope      = "http://schemas.xmlsoap.org/soap/envelope/"
	NSBase          = "http://ec.europa.eu/sanco/tracesnt/base/v4"
	NSBody          = "http://ec.europa.eu/tracesnt/body/v3"
	NSIamAlive      = "http://ec.europa.eu/tracesnt/waste/iamalive"
	NSOperator      = "http://ec.europa.eu/tracesnt/directory/operator/v2"
	NSOperatorBase  = "http://ec.europa.eu/tracesnt/directory/operator/base/v1"
	NSAnnex7        = "http://ec.europa.eu/tracesnt/waste/annex7/v1"
	NSModel         = "http://ec.europa.eu/tracesnt/waste/model/v1"
	NSNotification  = "http://ec.europa.eu/tracesnt/waste/notification/v1"
	maxResponseSize = 8 << 20
)

// Fault is DIWASS's SOAP fault: it answered, and said no.
type Fault struct {
	HTTPStatus int
	Code       string
	Message    string
}

func (f *Fault) Error() string {
	return fmt.Sprintf("DIWASS answered HTTP %d, fault %s: %s", f.HTTPStatus, f.Code, f.Message)
}

// Rejection reports whether DIWASS refused the request as it is (HTTP
// 4xx): sending it again unchanged would be refused again.
func (f *Fault) Rejection() bool { return f.HTTPStatus >= 400 && f.HTTPStatus < 500 }

// NotSentError: the request surely did not reach DIWASS (no connection,
// no name, or a gateway that answered 502, 503 or 504): it may be sent
// again.
type NotSentError struct{ Err error }

func (e *NotSentError) Error() string { return "not sent to DIWASS: " + e.Err.Error() }
func (e *NotSentError) Unwrap() error { return e.Err }

// UncertainError: the request was written and may have arrived (a
// timeout, a connection cut, an answer that does not read, a server
// error): it is never sent again automatically.
type UncertainError struct{ Err error }

func (e *UncertainError) Error() string {
	return "sent to DIWASS, but whether it arrived is unknown: " + e.Err.Error()
}
func (e *UncertainError) Unwrap() error { return e.Err }

// Endpoints are the addresses of the WSDL services (WASTEFLOW_DIWASS_*).
type Endpoints struct {
	Annex7, Operators, Ping string
}

// Client calls DIWASS.
type Client struct {
	Endpoints Endpoints
	// ClientID is the WebServiceClientId header's value.
	ClientID string
	HTTP     *http.Client
	// Timeout bounds one call, from dialling to the end of the answer.
	Timeout time.Duration
}

type envelope struct {
	XMLName xml.Name `xml:"http://schemas.xmlsoap.org/soap/envelope/ Envelope"`
	Header  header   `xml:"http://schemas.xmlsoap.org/soap/envelope/ Header"`
	Body    struct {
		Content any `xml:",any"`
	} `xml:"http://schemas.xmlsoap.org/soap/envelope/ Body"`
}

type header struct {
	ClientID     string    `xml:"http://ec.europa.eu/sanco/tracesnt/base/v4 WebServiceClientId"`
	BodyIdentity *struct{} `xml:"http://ec.europa.eu/tracesnt/body/v3 BodyIdentity,omitempty"`
}

// call posts request (the Body's content) to endpoint and decodes the
// Body's content into out (nil: read nothing). Its errors are *Fault,
// *NotSentError or *UncertainError (or ctx's).
func (c *Client) call(ctx context.Context, endpoint string, request, out any, bodyIdentity bool) error {
	if endpoint == "" {
		return &NotSentError{errors.New("no endpoint configured")}
	}
	var env envelope
	env.Header.ClientID = c.ClientID
	if bodyIdentity {
		env.Header.BodyIdentity = &struct{}{}
	}
	env.Body.Content = request
	raw, err := xml.Marshal(env)
	if err != nil {
		return fmt.Errorf("DIWASS request: %w", err)
	}
	if c.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.Timeout)
		defer cancel()
	}
	wrote := false
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{WroteRequest: func(info httptrace.WroteRequestInfo) {
		wrote = info.Err == nil
	}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(append([]byte(xml.Header), raw...)))
	if err != nil {
		return &NotSentError{err}
	}
	req.Header.Set("Content-Type", "text/xml; charset=utf-8")
	req.Header.Set("SOAPAction", `""`)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		err = plainly(err, c.Timeout)
		if !wrote {
			return &NotSentError{err}
		}
		return &UncertainError{err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseSize))
	if err != nil {
		return &UncertainError{fmt.Errorf("reading the answer: %w", err)}
	}
	switch resp.StatusCode {
	case http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return &NotSentError{fmt.Errorf("HTTP %d", resp.StatusCode)}
	}
	child, err := bodyChild(body)
	if err != nil {
		return &UncertainError{fmt.Errorf("HTTP %d, an answer that does not read as SOAP: %w", resp.StatusCode, err)}
	}
	if child.Name.Space == NSEnvelope && child.Name.Local == "Fault" {
		var f struct {
			Code   string `xml:"faultcode"`
			String string `xml:"faultstring"`
		}
		if err := child.decode(&f); err != nil {
			return &UncertainError{fmt.Errorf("HTTP %d, a fault that does not read: %w", resp.StatusCode, err)}
		}
		fault := &Fault{HTTPStatus: resp.StatusCode, Code: strings.TrimSpace(f.Code), Message: strings.TrimSpace(f.String)}
		if !fault.Rejection() {
			return &UncertainError{fault}
		}
		return fault
	}
	if resp.StatusCode != http.StatusOK {
		return &UncertainError{fmt.Errorf("HTTP %d without a fault", resp.StatusCode)}
	}
	if out == nil {
		return nil
	}
	if err := child.decode(out); err != nil {
		return &UncertainError{fmt.Errorf("the answer's body does not read: %w", err)}
	}
	return nil
}

// element is the first child of a SOAP Body, ready to be decoded with the
// namespaces declared around it in scope.
type element struct {
	xml.StartElement
	dec *xml.Decoder
}

func (e element) decode(v any) error { return e.dec.DecodeElement(v, &e.StartElement) }

// bodyChild finds the first element inside the envelope's Body.
func bodyChild(doc []byte) (element, error) {
	dec := xml.NewDecoder(bytes.NewReader(doc))
	depth, inBody := 0, false
	for {
		tok, err := dec.Token()
		if err != nil {
			return element{}, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			switch {
			case inBody:
				return element{t, dec}, nil
			case depth == 1 && (t.Name.Space != NSEnvelope || t.Name.Local != "Envelope"):
				return element{}, fmt.Errorf("the root is %s, not a SOAP 1.1 Envelope", t.Name.Local)
			case depth == 2 && t.Name.Space == NSEnvelope && t.Name.Local == "Body":
				inBody = true
			}
		case xml.EndElement:
			depth--
			if inBody {
				return element{}, errors.New("an empty Body")
			}
		}
	}
}

// IamAlive is the ping.
type iamAliveRequest struct {
	XMLName xml.Name `xml:"http://ec.europa.eu/tracesnt/waste/iamalive IamAliveRequest"`
	Query   string   `xml:"http://ec.europa.eu/tracesnt/waste/iamalive query"`
}

type iamAliveResponse struct {
	XMLName xml.Name `xml:"http://ec.europa.eu/tracesnt/waste/iamalive IamAliveResponse"`
	Status  string   `xml:"status"`
}

// Ping asks DIWASS whether it is alive and returns its status.
func (c *Client) Ping(ctx context.Context) (string, error) {
	var out iamAliveResponse
	if err := c.call(ctx, c.Endpoints.Ping, iamAliveRequest{Query: "wasteflow"}, &out, true); err != nil {
		return "", err
	}
	return strings.TrimSpace(out.Status), nil
}

// plainly says what a failed HTTP call came to in words a person reads
// (the endpoint's address left out: operators find it in the settings):
// no answer within the timeout, the connection closed, or the transport's
// own words.
func plainly(err error, timeout time.Duration) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded) && timeout > 0:
		return fmt.Errorf("no answer within %s", timeout)
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("the connection was closed before the answer (%w)", err)
	}
	return err
}
