package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// The addresses a webhook may not reach: the server's own network and
// the cloud's metadata service. Checked on every address a delivery
// connects to (after DNS, so a name that resolves to one of them later,
// DNS rebinding, is refused too), and when an endpoint is saved. An
// address is checked without its zone (netip.Prefix.Contains is false for
// any zoned address, so "::1%lo" would pass every prefix); an IPv4-mapped
// address (::ffff:a.b.c.d, what resolvers and the standard library hand
// over for an IPv4 address) is checked as the IPv4 address it connects to.
// The IPv6 forms that embed an IPv4 address otherwise (IPv4-compatible,
// SIIT's IPv4-translated, NAT64, 6to4, Teredo) are refused whole.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT (often a provider's internal network)
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("64:ff9b::/96"),    // NAT64: embeds an IPv4 address
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation
	netip.MustParsePrefix("fd00:ec2::/32"),   // AWS's IPv6 metadata service (also in fc00::/7)
	netip.MustParsePrefix("100::/64"),        // discard-only
	netip.MustParsePrefix("2001::/23"),       // IETF protocol assignments (Teredo among them)
	netip.MustParsePrefix("2002::/16"),       // 6to4: embeds an IPv4 address
	netip.MustParsePrefix("::ffff:0:0/96"),   // IPv4-mapped (RFC 4291): unmapped before the check, so its IPv4 address is what counts
	netip.MustParsePrefix("::ffff:0:0:0/96"), // IPv4-translated (SIIT, RFC 2765): embeds an IPv4 address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible (RFC 4291, deprecated): ::a.b.c.d, :: and ::1 among them
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, the metadata service 169.254.169.254 among them
	netip.MustParsePrefix("fe80::/10"),       // link-local
	netip.MustParsePrefix("ff00::/8"),        // multicast
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("::1/128"),         // loopback
	netip.MustParsePrefix("10.0.0.0/8"),      // private
	netip.MustParsePrefix("172.16.0.0/12"),   // private
	netip.MustParsePrefix("192.168.0.0/16"),  // private
	netip.MustParsePrefix("fc00::/7"),        // unique local
	netip.MustParsePrefix("::/128"),          // unspecified
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
}

// Guard decides which addresses and URLs a webhook may use.
type Guard struct {
	// Sandbox (the development and test environments) allows loopback
	// addresses and plain http, so a receiver on the developer's own
	// machine works; production and staging allow neither.
	Sandbox bool
	// Resolve looks a host's addresses up when an endpoint is saved
	// (net.DefaultResolver's when nil).
	Resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Bare is addr as the guard checks it: without its zone and, if it is
// IPv4-mapped, as the IPv4 address.
func Bare(addr netip.Addr) netip.Addr { return addr.WithZone("").Unmap() }

// Refused says why addr may not be reached ("" when it may). A zone does
// not change the answer: the address is checked without it.
func (g *Guard) Refused(addr netip.Addr) string {
	addr = Bare(addr)
	if g.Sandbox && addr.IsLoopback() {
		return ""
	}
	for _, p := range blockedPrefixes {
		if p.Contains(addr) {
			switch {
			case addr.IsLoopback():
				return "a loopback address"
			case addr.IsPrivate():
				return "a private address"
			case addr.IsLinkLocalUnicast():
				return "a link-local address (the cloud metadata service among them)"
			case addr.IsMulticast():
				return "a multicast address"
			default:
				return "a reserved address (" + p.String() + ")"
			}
		}
	}
	return ""
}

// CheckURL validates an endpoint's URL when it is saved: https (or, in a
// sandbox, http), a host, no user information, and a host whose every
// address may be reached. The reason is for the client.
func (g *Guard) CheckURL(ctx context.Context, raw string) (string, error) {
	if len(raw) > 2048 {
		return "longer than 2048 characters", nil
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return "not a URL", nil
	}
	switch {
	case u.Scheme != "https" && (u.Scheme != "http" || !g.Sandbox):
		if g.Sandbox {
			return "must be an http or https URL", nil
		}
		return "must be an https URL", nil
	case u.Hostname() == "":
		return "has no host", nil
	case u.User != nil:
		return "must not carry a user name or password (the signature authenticates the server)", nil
	case u.Fragment != "":
		return "must not have a fragment", nil
	case strings.Contains(u.Hostname(), "%"):
		// An IPv6 zone ("[::1%25lo]") names an interface of the server
		// itself; no public endpoint needs one.
		return "must not name an IPv6 zone (%25...): webhooks reach public addresses only", nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		resolve := g.Resolve
		if resolve == nil {
			resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
				return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			}
		}
		rctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		defer cancel()
		addrs, err = resolve(rctx, host)
		var dnsErr *net.DNSError
		switch {
		case errors.As(err, &dnsErr) && (dnsErr.IsNotFound || dnsErr.IsTimeout):
			return echo.Sprintf("its host %q does not resolve", host), nil
		case err != nil:
			return "", err
		}
	}
	for _, a := range addrs {
		if why := g.Refused(a); why != "" {
			return fmt.Sprintf("its host %s is %s, which webhooks may not reach", Bare(a), why), nil
		}
	}
	return "", nil
}

// RefusedError is a connection the guard refused, before any packet was
// sent: its message is the same whatever listens at the address (open,
// closed or filtered port), so a delivery's error tells its owner nothing
// about the server's own network.
type RefusedError struct {
	Addr   netip.Addr // without its zone
	Reason string
}

// RefusedMessage begins the message of every connection the guard refused.
const RefusedMessage = "refused by the address guard"

func (e *RefusedError) Error() string {
	if !e.Addr.IsValid() {
		return RefusedMessage + ": " + e.Reason
	}
	return fmt.Sprintf("%s: %s is %s, which webhooks may not reach", RefusedMessage, e.Addr, e.Reason)
}

// Client is the HTTP client of deliveries: it connects only to addresses
// the guard allows (checked on the connection itself), never through a
// proxy, follows no redirect (a 3xx is a failed attempt) and gives up
// after timeout.
func (g *Guard) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{
		Timeout: min(timeout, 5*time.Second),
		Control: func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return &RefusedError{Reason: "the address connected to is not an IP address"}
			}
			if why := g.Refused(ap.Addr()); why != "" {
				return &RefusedError{Addr: Bare(ap.Addr()), Reason: why}
			}
			return nil
		},
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   min(timeout, 5*time.Second),
		ResponseHeaderTimeout: timeout,
		MaxIdleConns:          100,
		MaxIdleConnsPerHost:   4,
		IdleConnTimeout:       90 * time.Second,
	}
	return &http.Client{
		Transport:     transport,
		Timeout:       timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}
