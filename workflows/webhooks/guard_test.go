package webhooks_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/workflows/webhooks"
)

// A name that resolved to a public address when the endpoint was saved
// and to loopback when the delivery connects (DNS rebinding) is refused
// on the connection itself; in a sandbox loopback is allowed.
func TestGuardChecksTheAddressConnected(t *testing.T) {
	reached := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	defer srv.Close()
	port := srv.URL[strings.LastIndex(srv.URL, ":"):]

	g := &webhooks.Guard{Resolve: func(context.Context, string) ([]netip.Addr, error) {
		return []netip.Addr{netip.MustParseAddr("93.184.216.34")}, nil // what the name said when it was saved
	}}
	if why, err := g.CheckURL(context.Background(), "https://rebind.example/hook"); why != "" || err != nil {
		t.Fatalf("a public address at save time: %q %v", why, err)
	}
	// Delivery time: the name now points at loopback.
	_, err := g.Client(2*time.Second).Post("http://localhost"+port+"/hook", "application/json", strings.NewReader("{}"))
	var refused *webhooks.RefusedError
	if !errors.As(err, &refused) || !refused.Addr.IsLoopback() || reached {
		t.Fatalf("a delivery to loopback outside a sandbox: %v (reached %v)", err, reached)
	}
	for _, a := range []string{"127.0.0.1", "::1", "10.0.0.1", "172.16.5.4", "192.168.0.1", "169.254.169.254", "fd00:ec2::254", "100.64.0.1", "0.0.0.0", "::ffff:127.0.0.1", "fe80::1", "224.0.0.1"} {
		if g.Refused(netip.MustParseAddr(a)) == "" {
			t.Errorf("%s is allowed outside a sandbox", a)
		}
	}
	for _, a := range []string{"93.184.216.34", "2606:4700::1111", "8.8.8.8"} {
		if why := g.Refused(netip.MustParseAddr(a)); why != "" {
			t.Errorf("%s is refused: %s", a, why)
		}
	}

	sandbox := &webhooks.Guard{Sandbox: true}
	resp, err := sandbox.Client(2*time.Second).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil || !reached {
		t.Fatalf("a sandbox reaches loopback: %v", err)
	}
	resp.Body.Close()
	if sandbox.Refused(netip.MustParseAddr("10.0.0.1")) == "" || sandbox.Refused(netip.MustParseAddr("169.254.169.254")) == "" {
		t.Fatal("a sandbox reaches private and metadata addresses")
	}
}

// A redirect is an answer, not followed: a 3xx is a failed attempt.
func TestGuardFollowsNoRedirect(t *testing.T) {
	target := false
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/elsewhere" {
			target = true
			return
		}
		http.Redirect(w, r, "/elsewhere", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	resp, err := (&webhooks.Guard{Sandbox: true}).Client(2*time.Second).Post(srv.URL, "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || target {
		t.Fatalf("status %d, followed %v", resp.StatusCode, target)
	}
}

// Issue 44.1: a zone made every prefix miss (netip.Prefix.Contains is
// false for a zoned address), so "[::1%25lo]" and "[::%25lo]" reached the
// server's own loopback in production, and the delivery's error told an
// open port from a closed one. A zoned URL is refused when it is saved,
// the dialer checks the address without its zone, the IPv6 forms that
// embed an IPv4 address are refused, and a refused connection's error is
// the same whatever listens at the address.
func TestGuardRefusesZonedAddresses(t *testing.T) {
	reached := false
	open := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { reached = true }))
	ln, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Skipf("no IPv6 loopback: %v", err)
	}
	open.Listener = ln
	open.StartTLS()
	defer open.Close()
	closed, err := net.Listen("tcp", "[::1]:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := closed.Addr().(*net.TCPAddr).Port
	closed.Close() // nothing listens there now
	openPort := ln.Addr().(*net.TCPAddr).Port

	g := &webhooks.Guard{} // production
	for _, a := range []string{"::1%lo", "::%lo", "::1%1", "fe80::1%eth0", "fd00::1%x", "::ffff:127.0.0.1%lo",
		"::127.0.0.1", "::8.8.8.8", "::ffff:0:7f00:1", "::ffff:0:808:808", "64:ff9b::8.8.8.8"} {
		if g.Refused(netip.MustParseAddr(a)) == "" {
			t.Errorf("%s is allowed outside a sandbox", a)
		}
	}
	if why := g.Refused(netip.MustParseAddr("::ffff:8.8.8.8")); why != "" {
		t.Errorf("an IPv4-mapped public address is refused: %s", why)
	}

	var errs []string
	for _, port := range []int{openPort, closedPort} {
		for _, host := range []string{"[::1%25lo]", "[::%25lo]"} {
			u := fmt.Sprintf("https://%s:%d/hook", host, port)
			if why, err := g.CheckURL(context.Background(), u); why == "" || err != nil {
				t.Errorf("saving %s: allowed (%v)", u, err)
			}
			_, err := g.Client(2*time.Second).Post(u, "application/json", strings.NewReader("{}"))
			var refused *webhooks.RefusedError
			if !errors.As(err, &refused) {
				t.Errorf("a delivery to %s: %v, not refused by the guard", u, err)
				continue
			}
			if !strings.HasPrefix(refused.Error(), "refused by the address guard") || refused.Addr.Zone() != "" {
				t.Errorf("a delivery to %s: %q", u, refused.Error())
			}
			errs = append(errs, refused.Error())
		}
	}
	if reached {
		t.Fatal("the loopback server was reached")
	}
	if len(errs) == 4 && (errs[0] != errs[2] || errs[1] != errs[3]) {
		t.Errorf("an open and a closed port give different errors: %q", errs)
	}
}
