package diwass_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/workflows/diwass"
	"github.com/wasteflow/wasteflow/workflows/diwass/diwassfake"
)

func client(url string) *diwass.Client {
	return &diwass.Client{Endpoints: diwass.Endpoints{Annex7: url + "/annex7", Operators: url + "/operators", Ping: url + "/ping"},
		ClientID: "wasteflow-test", HTTP: &http.Client{}, Timeout: 2 * time.Second}
}

// startFake serves a new fake over loopback HTTP until the test ends
// (its hangs released first).
func startFake(t *testing.T) (*diwassfake.Fake, string) {
	fake := diwassfake.New()
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	t.Cleanup(fake.Release)
	return fake, srv.URL
}

func acme() diwass.Operator {
	return diwass.Operator{Name: "ACME Elektronik GmbH",
		Addresses: []diwass.OperatorAddress{{Main: true, Address: diwass.Address{Street: "Landsberger Straße 155",
			City: diwass.City{Name: "München", PostalCode: "80687", CountryID: "DE"}}}},
		Contacts: []diwass.ContactDetail{{Type: diwass.ContactPerson, Value: "Anna Huber"}, {Type: diwass.ContactPhone, Value: "+49 89 5432100"},
			{Type: diwass.ContactEmail, Value: "anna.huber@acme.example.de"}},
		Identifiers: []diwass.Identifier{{Type: diwass.IdentifierEORI, Name: "DE123456789012345", Main: true}, {Type: diwass.IdentifierVAT, Name: "DE123456789"}},
		Activity:    diwass.Activity{Type: diwass.WasteOperator, ResponsibleAuthorityCode: "DE002"}}
}

// The operator directory over real HTTP against the fake: registered with
// every field, refused a second time (409), found by its identifier.
func TestOperatorsRegisterOnceAndAreFound(t *testing.T) {
	fake, url := startFake(t)
	c := client(url)
	ctx := context.Background()

	if status, err := c.Ping(ctx); err != nil || status != "OK" {
		t.Fatalf("ping: %q %v", status, err)
	}
	id, err := c.CreateOperator(ctx, acme())
	if err != nil || id == "" {
		t.Fatalf("create: %q %v", id, err)
	}
	got := fake.Operators()
	if len(got) != 1 {
		t.Fatalf("the fake holds %d operators", len(got))
	}
	o := got[0]
	if o.Name != "ACME Elektronik GmbH" || len(o.Addresses) != 1 || !o.Addresses[0].Main || o.Addresses[0].Street != "Landsberger Straße 155" ||
		o.Addresses[0].City != "München" || o.Addresses[0].Postal != "80687" || o.Addresses[0].Country != "DE" ||
		len(o.Contacts) != 3 || o.Contacts[0].Type != "contact_person_name" || o.Contacts[0].Value != "Anna Huber" || o.Contacts[2].Value != "anna.huber@acme.example.de" ||
		len(o.Identifiers) != 2 || o.Identifiers[0].Type != "eori" || o.Identifiers[0].Name != "DE123456789012345" || !o.Identifiers[0].Main ||
		o.Chapter != "wsr" || o.Section != "WSR" || o.Type != "waste_operator" || o.Authority != "DE002" {
		t.Fatalf("what the fake received: %+v", o)
	}

	_, err = c.CreateOperator(ctx, acme())
	var f *diwass.Fault
	if !diwass.DuplicateOperator(err) || !errors.As(err, &f) || !f.Rejection() {
		t.Fatalf("a second registration: %v", err)
	}
	found, err := c.FindOperator(ctx, "DE", diwass.Identifier{Type: diwass.IdentifierEORI, Name: "DE123456789012345"})
	if err != nil || len(found) != 1 || found[0].InternalID != id || found[0].Activity.Status != "New" {
		t.Fatalf("find: %+v %v", found, err)
	}
	if none, err := c.FindOperator(ctx, "NL", diwass.Identifier{Type: diwass.IdentifierEORI, Name: "DE123456789012345"}); err != nil || len(none) != 0 {
		t.Fatalf("find elsewhere: %+v %v", none, err)
	}
}

// What a failed call means: surely not sent (it may be sent again), a
// rejection, or an outcome nobody knows (never sent again by itself).
func TestFailuresSayWhetherTheRequestArrived(t *testing.T) {
	fake, url := startFake(t)
	c := client(url)
	c.Timeout = 300 * time.Millisecond
	ctx := context.Background()
	notSent := func(err error) bool { var e *diwass.NotSentError; return errors.As(err, &e) }
	uncertain := func(err error) bool { var e *diwass.UncertainError; return errors.As(err, &e) }
	rejected := func(err error) bool { var f *diwass.Fault; return errors.As(err, &f) && f.Rejection() }

	for _, c2 := range []struct {
		name   string
		mishap diwassfake.Mishap
		want   func(error) bool
	}{
		{"a gateway's 503", diwassfake.Mishap{Status: 503, Plain: "busy"}, notSent},
		{"a gateway's 502", diwassfake.Mishap{Status: 502, Fault: "bad gateway"}, notSent},
		{"a validation fault", diwassfake.Mishap{Status: 400, Fault: "at least one carrier"}, rejected},
		{"a server fault", diwassfake.Mishap{Status: 500, Fault: "internal"}, uncertain},
		{"a hang after the body", diwassfake.Mishap{Hang: true}, uncertain},
		{"a cut after the body", diwassfake.Mishap{Cut: true}, uncertain},
		{"an answer that is not SOAP", diwassfake.Mishap{Status: 200, Plain: "<html>maintenance</html>"}, uncertain},
	} {
		before := fake.Received("CreateOperatorRequest")
		fake.Next(c2.mishap)
		_, err := c.CreateOperator(ctx, acme())
		if !c2.want(err) {
			t.Errorf("%s: %T %v", c2.name, err, err)
		}
		if n := fake.Received("CreateOperatorRequest") - before; n != 1 {
			t.Errorf("%s: the fake received %d requests, want exactly 1 (the client retries nothing)", c2.name, n)
		}
	}
	if len(fake.Operators()) != 0 {
		t.Fatalf("a mishap registered an operator: %+v", fake.Operators())
	}

	// Nobody listens: surely not sent.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := client("http://" + addr).Ping(ctx); !notSent(err) {
		t.Errorf("a refused connection: %T %v", err, err)
	}
	// No such host: surely not sent.
	if _, err := client("http://diwass.invalid").Ping(ctx); !notSent(err) {
		t.Errorf("an unknown host: %T %v", err, err)
	}
	// An operation the service does not serve: DIWASS's own fault.
	c.Endpoints.Operators = url + "/ping"
	if _, err := c.CreateOperator(ctx, acme()); !rejected(err) {
		t.Errorf("the wrong endpoint: %T %v", err, err)
	}
}
