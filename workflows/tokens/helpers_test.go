package tokens

import (
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// t0 is the fixed "now" of the tests; far from the real clock so that a
// forgotten clock injection shows up as a failure.
var t0 = time.Date(2031, 5, 6, 7, 8, 9, 0, time.UTC)

const testIssuer = "wasteflow"

// fixture returns an issuer with a fresh key and a settable clock.
func fixture(tb testing.TB) (iss *Issuer, sk ed25519.PrivateKey, now *time.Time) {
	tb.Helper()
	sk = newKey(tb)
	clock := t0
	return &Issuer{
		Keys: NewKeys(sk),
		Name: testIssuer,
		Now:  func() time.Time { return clock },
	}, sk, &clock
}

func newKey(tb testing.TB) ed25519.PrivateKey {
	tb.Helper()
	_, sk, err := ed25519.GenerateKey(nil)
	if err != nil {
		tb.Fatal(err)
	}
	return sk
}

func pub(sk ed25519.PrivateKey) ed25519.PublicKey { return sk.Public().(ed25519.PublicKey) }

func sampleClaims() Claims {
	return Claims{
		Provider:         "local",
		Organisation:     "org-42",
		OrganisationKind: "company",
		Scopes:           []string{"shipments:read", "shipments:write"},
		SessionID:        "sess-1",
		Generation:       3,
		RegisteredClaims: jwt.RegisteredClaims{Subject: "user-1"},
	}
}

var allKinds = []Kind{Access, Refresh, Group}

// --- hand-made tokens -----------------------------------------------------

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// seg encodes a string as raw JSON text, anything else via json.Marshal.
func seg(tb testing.TB, v any) string {
	tb.Helper()
	if s, ok := v.(string); ok {
		return b64([]byte(s))
	}
	out, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b64(out)
}

// forge builds header.claims.signature where sign gets the signing input.
func forge(tb testing.TB, header, claims any, sign func(input string) []byte) string {
	tb.Helper()
	input := seg(tb, header) + "." + seg(tb, claims)
	return input + "." + b64(sign(input))
}

func edSigner(sk ed25519.PrivateKey) func(string) []byte {
	return func(in string) []byte { return ed25519.Sign(sk, []byte(in)) }
}

func fixedSig(b []byte) func(string) []byte { return func(string) []byte { return b } }

// with returns a copy of m with key set to v, or deleted when v is del.
func with(m map[string]any, kv ...any) map[string]any {
	out := maps.Clone(m)
	for i := 0; i+1 < len(kv); i += 2 {
		k := kv[i].(string)
		if kv[i+1] == del {
			delete(out, k)
		} else {
			out[k] = kv[i+1]
		}
	}
	return out
}

type deleted struct{}

var del = deleted{}

func baseHeader(kid string, kind Kind) map[string]any {
	return map[string]any{"alg": "EdDSA", "typ": kind.typ(), "kid": kid}
}

func baseClaims(kind Kind, now time.Time) map[string]any {
	return map[string]any{
		"iss": testIssuer,
		"sub": "user-1",
		"aud": kind.audience(testIssuer),
		"iat": now.Unix(),
		"exp": now.Add(10 * time.Minute).Unix(),
		"jti": "jti-1",
		"prv": "local",
	}
}

// splitToken is strings.Split for a token the test itself made.
func splitToken(tb testing.TB, token string) []string {
	tb.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		tb.Fatalf("want 3 segments, got %d", len(parts))
	}
	return parts
}

func decodeSeg(tb testing.TB, s string) []byte {
	tb.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
