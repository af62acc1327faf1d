package tokens

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

func TestKindString(t *testing.T) {
	for k, want := range map[Kind]string{Access: "access", Refresh: "refresh", Group: "group", 0: "Kind(0)", 9: "Kind(9)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d).String() = %q, want %q", int(k), got, want)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for _, kind := range allKinds {
		t.Run(kind.String(), func(t *testing.T) {
			iss, _, _ := fixture(t)
			in := sampleClaims()
			token, exp, err := iss.Sign(kind, in, 15*time.Minute)
			if err != nil {
				t.Fatal(err)
			}
			if want := t0.Add(15 * time.Minute); !exp.Equal(want) {
				t.Errorf("expiresAt = %v, want %v", exp, want)
			}

			got, err := iss.Verify(kind, token)
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if got.Issuer != testIssuer || got.Subject != in.Subject || got.Provider != in.Provider ||
				got.Organisation != in.Organisation || got.OrganisationKind != in.OrganisationKind ||
				!slices.Equal(got.Scopes, in.Scopes) || got.SessionID != in.SessionID || got.Generation != in.Generation {
				t.Errorf("claims changed in transit: %+v", got)
			}
			if !slices.Equal(got.Audience, []string{kind.audience(testIssuer)}) {
				t.Errorf("aud = %v", got.Audience)
			}
			if !got.IssuedAt.Equal(t0) || !got.ExpiresAt.Equal(exp) {
				t.Errorf("iat/exp = %v/%v", got.IssuedAt, got.ExpiresAt)
			}
			// 128 random bits, base64url without padding.
			if len(got.ID) != 22 {
				t.Errorf("jti %q: want 22 chars", got.ID)
			}

			var hdr map[string]any
			if err := json.Unmarshal(decodeSeg(t, splitToken(t, token)[0]), &hdr); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"alg": "EdDSA", "typ": kind.typ(), "kid": iss.Keys.SigningKID()}
			if fmt.Sprint(hdr) != fmt.Sprint(want) {
				t.Errorf("header = %v, want %v", hdr, want)
			}
		})
	}
}

func TestSignKeepsJTIAndOverridesReserved(t *testing.T) {
	iss, _, _ := fixture(t)
	c := sampleClaims()
	c.ID = "fixed-jti"
	c.Issuer = "evil"
	c.Audience = jwt.ClaimStrings{"evil/api"}
	c.ExpiresAt = jwt.NewNumericDate(t0.Add(100 * 365 * 24 * time.Hour))
	token, _, err := iss.Sign(Access, c, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	got, err := iss.Verify(Access, token)
	if err != nil {
		t.Fatal(err)
	}
	if got.ID != "fixed-jti" || got.Issuer != testIssuer || got.Audience[0] != "wasteflow/api" || !got.ExpiresAt.Equal(t0.Add(time.Minute)) {
		t.Errorf("got %+v", got.RegisteredClaims)
	}

	// Random jtis do not repeat.
	seen := map[string]bool{}
	for range 100 {
		token, _, err := iss.Sign(Access, sampleClaims(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		c, err := iss.Verify(Access, token)
		if err != nil {
			t.Fatal(err)
		}
		if seen[c.ID] {
			t.Fatalf("jti %q repeated", c.ID)
		}
		seen[c.ID] = true
	}
}

func TestSignRefuses(t *testing.T) {
	iss, _, _ := fixture(t)
	noSub, noPrv := sampleClaims(), sampleClaims()
	noSub.Subject, noPrv.Provider = "", ""
	cases := []struct {
		name string
		iss  *Issuer
		kind Kind
		c    Claims
		ttl  time.Duration
	}{
		{"zero kind", iss, 0, sampleClaims(), time.Minute},
		{"unknown kind", iss, 4, sampleClaims(), time.Minute},
		{"zero ttl", iss, Access, sampleClaims(), 0},
		{"negative ttl", iss, Access, sampleClaims(), -time.Minute},
		{"no sub", iss, Access, noSub, time.Minute},
		{"no prv", iss, Access, noPrv, time.Minute},
		{"nil issuer", nil, Access, sampleClaims(), time.Minute},
		{"no keys", &Issuer{Name: "x"}, Access, sampleClaims(), time.Minute},
		{"no name", &Issuer{Keys: iss.Keys}, Access, sampleClaims(), time.Minute},
		{"verify-only keys", &Issuer{Name: "x", Keys: NewKeys(nil, pub(newKey(t)))}, Access, sampleClaims(), time.Minute},
	}
	for _, tc := range cases {
		if token, _, err := tc.iss.Sign(tc.kind, tc.c, tc.ttl); err == nil || token != "" {
			t.Errorf("%s: Sign succeeded", tc.name)
		}
	}
}

// TestCrossKind: a token of one kind never passes as another, and that
// holds through each of the two independent checks (typ and aud) alone.
func TestCrossKind(t *testing.T) {
	iss, sk, _ := fixture(t)
	kid := iss.Keys.SigningKID()
	for _, signed := range allKinds {
		token, _, err := iss.Sign(signed, sampleClaims(), time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		for _, verified := range allKinds {
			_, err := iss.Verify(verified, token)
			if signed == verified {
				if err != nil {
					t.Errorf("%v as itself: %v", signed, err)
				}
				continue
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%v token accepted as %v", signed, verified)
			}

			// typ of the target kind, aud of the signed kind.
			onlyTyp := forge(t, baseHeader(kid, verified), baseClaims(signed, t0), edSigner(sk))
			if _, err := iss.Verify(verified, onlyTyp); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "audience") {
				t.Errorf("%v aud with %v typ: err = %v", signed, verified, err)
			}
			// aud of the target kind, typ of the signed kind.
			onlyAud := forge(t, baseHeader(kid, signed), baseClaims(verified, t0), edSigner(sk))
			if _, err := iss.Verify(verified, onlyAud); !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "typ") {
				t.Errorf("%v typ with %v aud: err = %v", signed, verified, err)
			}
		}
	}
}

func TestVerifyUnknownKindAndUnconfigured(t *testing.T) {
	iss, _, _ := fixture(t)
	token, _, err := iss.Sign(Access, sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		iss  *Issuer
		kind Kind
	}{
		{"kind 0", iss, 0},
		{"kind 4", iss, 4},
		{"nil issuer", nil, Access},
		{"nil keys", &Issuer{Name: testIssuer}, Access},
		{"empty name", &Issuer{Keys: iss.Keys}, Access},
	} {
		if c, err := tc.iss.Verify(tc.kind, token); !errors.Is(err, ErrInvalid) || c != nil {
			t.Errorf("%s: got %v, %v", tc.name, c, err)
		}
	}
}

func TestExpiryBoundaries(t *testing.T) {
	const ttl = 15 * time.Minute
	for _, leeway := range []time.Duration{0 /* default 30s */, 5 * time.Second} {
		effective := leeway
		if effective == 0 {
			effective = 30 * time.Second
		}
		for _, kind := range allKinds {
			t.Run(fmt.Sprintf("%v/leeway=%v", kind, effective), func(t *testing.T) {
				iss, _, now := fixture(t)
				iss.Leeway = leeway
				token, exp, err := iss.Sign(kind, sampleClaims(), ttl)
				if err != nil {
					t.Fatal(err)
				}
				for _, tc := range []struct {
					at time.Time
					ok bool
				}{
					{exp.Add(-time.Second), true},
					{exp, true},
					{exp.Add(effective - time.Second), true},
					{exp.Add(effective), false}, // exp+leeway is already past
					{exp.Add(effective + time.Second), false},
				} {
					*now = tc.at
					_, err := iss.Verify(kind, token)
					if tc.ok && err != nil {
						t.Errorf("at exp%+v: %v", tc.at.Sub(exp), err)
					}
					if !tc.ok {
						if !errors.Is(err, ErrInvalid) || !errors.Is(err, jwt.ErrTokenExpired) {
							t.Errorf("at exp%+v: err = %v, want expired", tc.at.Sub(exp), err)
						}
					}
				}
			})
		}
	}
}

func TestNegativeLeewayMeansNone(t *testing.T) {
	iss, _, now := fixture(t)
	iss.Leeway = -time.Hour
	token, exp, err := iss.Sign(Access, sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iss.Verify(Access, token); err != nil {
		t.Fatalf("fresh token: %v", err)
	}
	*now = exp
	if _, err := iss.Verify(Access, token); !errors.Is(err, ErrInvalid) {
		t.Fatal("accepted at exp with no leeway")
	}
}

func TestNotBefore(t *testing.T) {
	iss, _, now := fixture(t)
	c := sampleClaims()
	c.NotBefore = jwt.NewNumericDate(t0.Add(time.Hour))
	token, _, err := iss.Sign(Access, c, 2*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := iss.Verify(Access, token); !errors.Is(err, jwt.ErrTokenNotValidYet) {
		t.Errorf("before nbf: err = %v", err)
	}
	*now = t0.Add(time.Hour - 29*time.Second) // within leeway
	if _, err := iss.Verify(Access, token); err != nil {
		t.Errorf("nbf within leeway: %v", err)
	}
	*now = t0.Add(time.Hour)
	if _, err := iss.Verify(Access, token); err != nil {
		t.Errorf("at nbf: %v", err)
	}
}

func TestErrorUnwrapsLibraryCause(t *testing.T) {
	iss, _, now := fixture(t)
	token, _, err := iss.Sign(Access, sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	*now = t0.Add(time.Hour)
	_, err = iss.Verify(Access, token)
	if !errors.Is(err, ErrInvalid) || !errors.Is(err, jwt.ErrTokenExpired) {
		t.Fatalf("err = %v", err)
	}
	if err.Error() != "invalid token: expired" {
		t.Errorf("message %q", err.Error())
	}
}

// TestConcurrent lets the race detector see Sign and Verify shared across
// goroutines.
func TestConcurrent(t *testing.T) {
	iss, _, _ := fixture(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			kind := allKinds[g%len(allKinds)]
			for range 50 {
				token, _, err := iss.Sign(kind, sampleClaims(), time.Minute)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := iss.Verify(kind, token); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkSignAccess(b *testing.B) {
	iss, _, _ := fixture(b)
	c := sampleClaims()
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := iss.Sign(Access, c, 15*time.Minute); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkVerifyAccess(b *testing.B) {
	iss, _, _ := fixture(b)
	token, _, err := iss.Sign(Access, sampleClaims(), 15*time.Minute)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.Verify(Access, token); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRejectDots(b *testing.B) {
	iss, _, _ := fixture(b)
	dots := strings.Repeat(".", 100_000)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := iss.Verify(Access, dots); err == nil {
			b.Fatal("accepted")
		}
	}
}

// A token verified once is remembered, but only while it would verify: the
// time checks run on every use, the kind must match, and an issuer with
// other keys does not take it.
func TestRememberedTokensStillExpire(t *testing.T) {
	iss, _, now := fixture(t)
	tok, exp, err := iss.Sign(Access, sampleClaims(), time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		c, err := iss.Verify(Access, tok)
		if err != nil || c.Subject != "user-1" {
			t.Fatalf("verify: %v %v", c, err)
		}
	}
	if len(iss.verified) != 1 {
		t.Fatalf("%d tokens remembered, want 1", len(iss.verified))
	}
	if _, err := iss.Verify(Refresh, tok); err == nil {
		t.Fatal("an access token verified as a refresh token")
	}
	other := &Issuer{Keys: NewKeys(newKey(t)), Name: testIssuer, Now: iss.Now}
	other.verified = iss.verified // even sharing the memory, other keys do not take it
	if _, err := other.Verify(Access, tok); err == nil {
		t.Fatal("a token of other keys was taken from memory")
	}
	*now = exp.Add(iss.leeway())
	if _, err := iss.Verify(Access, tok); err == nil {
		t.Fatal("a remembered token verified after it expired")
	}
}
