package tokens

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

type tamperCase struct {
	name  string
	token string
	want  string // substring of the error: proves the intended check fired
}

// tamperCorpus returns hostile tokens against iss (whose clock is t0). Each
// one differs from the control token (first entry, must verify) by a single
// deliberate defect, so each case shows one check doing its job.
func tamperCorpus(tb testing.TB, iss *Issuer, sk ed25519.PrivateKey) []tamperCase {
	tb.Helper()
	kid := iss.Keys.SigningKID()
	hdr := baseHeader(kid, Access)
	cl := baseClaims(Access, t0)
	sign := edSigner(sk)
	good := forge(tb, hdr, cl, sign)
	parts := splitToken(tb, good)
	leeway := 30 * time.Second

	randSig := func(n int) func(string) []byte {
		b := make([]byte, n)
		rand.Read(b)
		return fixedSig(b)
	}
	hmacSig := func(alg string, secret []byte) func(string) []byte {
		return func(in string) []byte {
			sig, err := jwt.GetSigningMethod(alg).Sign(in, secret)
			if err != nil {
				tb.Fatal(err)
			}
			return sig
		}
	}
	pubDER, err := x509.MarshalPKIXPublicKey(pub(sk))
	if err != nil {
		tb.Fatal(err)
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})

	// Bit flip inside the payload that keeps it valid JSON ("user-1" ->
	// "user-0"), so only the signature can catch it.
	payload := decodeSeg(tb, parts[1])
	at := strings.Index(string(payload), "user-1") + len("user-")
	payload[at] ^= 1
	flippedPayload := parts[0] + "." + b64(payload) + "." + parts[2]

	sig := decodeSeg(tb, parts[2])
	sig[10] ^= 0x01
	flippedSig := parts[0] + "." + parts[1] + "." + b64(sig)

	// Same signature bytes, but the last base64 character with a non-zero
	// trailing (unused) bit: decodes identically unless decoding is strict.
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	last := strings.IndexByte(alphabet, parts[2][len(parts[2])-1])
	trailingBits := parts[0] + "." + parts[1] + "." + parts[2][:len(parts[2])-1] + string(alphabet[last|1])

	// Header segment with base64 padding ('='): pad the header JSON with
	// spaces until its encoding is not a multiple of 4.
	rawHdr := `{"alg":"EdDSA","kid":"` + kid + `","typ":"at+jwt"}`
	for len(b64([]byte(rawHdr)))%4 == 0 {
		rawHdr += " "
	}
	paddedHdrInput := base64.URLEncoding.EncodeToString([]byte(rawHdr)) + "." + parts[1]
	paddedHeader := paddedHdrInput + "." + b64(sign(paddedHdrInput))

	other := newKey(tb)
	anyKid := func(k string) map[string]any { return with(hdr, "kid", k) }

	return []tamperCase{
		{"control", good, ""},

		// alg none in all spellings, unsigned and signed.
		{"alg none unsigned", forge(tb, with(hdr, "alg", "none"), cl, fixedSig(nil)), "segments"},
		{"alg None unsigned", forge(tb, with(hdr, "alg", "None"), cl, fixedSig(nil)), "segments"},
		{"alg NONE unsigned", forge(tb, with(hdr, "alg", "NONE"), cl, fixedSig(nil)), "segments"},
		{"alg nOnE unsigned", forge(tb, with(hdr, "alg", "nOnE"), cl, fixedSig(nil)), "segments"},
		{"alg none signed", forge(tb, with(hdr, "alg", "none"), cl, sign), "algorithm"},
		{"alg None signed", forge(tb, with(hdr, "alg", "None"), cl, sign), "algorithm"},
		{"alg NONE signed", forge(tb, with(hdr, "alg", "NONE"), cl, sign), "algorithm"},
		{"alg nOnE signed", forge(tb, with(hdr, "alg", "nOnE"), cl, sign), "algorithm"},
		{"alg none no sig no dot", seg(tb, with(hdr, "alg", "none")) + "." + seg(tb, cl), "segments"},

		// Algorithm confusion.
		{"HS256 pubkey secret", forge(tb, with(hdr, "alg", "HS256"), cl, hmacSig("HS256", pub(sk))), "signature"},
		{"HS256 pubkey PEM secret", forge(tb, with(hdr, "alg", "HS256"), cl, hmacSig("HS256", pubPEM)), "signature"},
		// HS512 signatures are 64 bytes like Ed25519 ones, so these get
		// past the length precheck and must be stopped by the alg pin.
		{"HS512 pubkey secret", forge(tb, with(hdr, "alg", "HS512"), cl, hmacSig("HS512", pub(sk))), "algorithm"},
		{"HS512 pubkey PEM secret", forge(tb, with(hdr, "alg", "HS512"), cl, hmacSig("HS512", pubPEM)), "algorithm"},
		{"RS256 header", forge(tb, with(hdr, "alg", "RS256"), cl, randSig(256)), "signature"},
		{"RS256 header 64-byte sig", forge(tb, with(hdr, "alg", "RS256"), cl, sign), "algorithm"},
		{"ES256 header", forge(tb, with(hdr, "alg", "ES256"), cl, randSig(64)), "algorithm"},
		{"alg Ed25519 (RFC 9864)", forge(tb, with(hdr, "alg", "Ed25519"), cl, sign), "algorithm"},
		{"alg eddsa lower case", forge(tb, with(hdr, "alg", "eddsa"), cl, sign), "algorithm"},
		{"alg missing", forge(tb, with(hdr, "alg", del), cl, sign), "algorithm"},
		{"alg not a string", forge(tb, with(hdr, "alg", 1), cl, sign), "algorithm"},

		// kid.
		{"unknown kid", forge(tb, anyKid(thumbprint(pub(other))), cl, sign), "unknown kid"},
		{"kid path traversal", forge(tb, anyKid("../../etc/passwd"), cl, sign), "unknown kid"},
		{"kid SQL injection", forge(tb, anyKid("' OR 1=1--"), cl, sign), "unknown kid"},
		{"kid 10 KB", forge(tb, anyKid(strings.Repeat("k", 10<<10)), cl, sign), "too long"},
		{"kid 129 chars", forge(tb, anyKid(strings.Repeat("k", 129)), cl, sign), "kid too long"},
		{"kid missing", forge(tb, with(hdr, "kid", del), cl, sign), "missing kid"},
		{"kid empty", forge(tb, anyKid(""), cl, sign), "missing kid"},
		{"kid not a string", forge(tb, with(hdr, "kid", 42), cl, sign), "missing kid"},

		// Time claims.
		{"exp missing", forge(tb, hdr, with(cl, "exp", del), sign), "missing required claim"},
		{"exp now-leeway-1s", forge(tb, hdr, with(cl, "exp", t0.Add(-leeway-time.Second).Unix()), sign), "expired"},
		{"exp not a number", forge(tb, hdr, with(cl, "exp", "tomorrow"), sign), "malformed"},
		{"nbf in the future", forge(tb, hdr, with(cl, "nbf", t0.Add(time.Hour).Unix()), sign), "not valid yet"},
		{"iat in the future", forge(tb, hdr, with(cl, "iat", t0.Add(time.Hour).Unix()), sign), "issued in the future"},

		// iss / aud.
		{"wrong iss", forge(tb, hdr, with(cl, "iss", "evil"), sign), "wrong issuer"},
		{"iss missing", forge(tb, hdr, with(cl, "iss", del), sign), "missing required claim"},
		{"wrong aud", forge(tb, hdr, with(cl, "aud", "evil/api"), sign), "wrong audience"},
		{"aud empty array", forge(tb, hdr, with(cl, "aud", []string{}), sign), "missing required claim"},
		{"aud missing", forge(tb, hdr, with(cl, "aud", del), sign), "missing required claim"},
		{"aud only foreign", forge(tb, hdr, with(cl, "aud", []string{"https://evil.example"}), sign), "wrong audience"},
		{"aud ours plus foreign", forge(tb, hdr, with(cl, "aud", []string{"wasteflow/api", "evil"}), sign), "wrong audience"},
		{"aud of refresh", forge(tb, hdr, with(cl, "aud", Refresh.audience(testIssuer)), sign), "wrong audience"},

		// typ.
		{"typ JWT", forge(tb, with(hdr, "typ", "JWT"), cl, sign), "wrong typ"},
		{"typ of refresh", forge(tb, with(hdr, "typ", "rt+jwt"), cl, sign), "wrong typ"},
		{"typ upper case", forge(tb, with(hdr, "typ", "AT+JWT"), cl, sign), "wrong typ"},
		{"typ missing", forge(tb, with(hdr, "typ", del), cl, sign), "wrong typ"},

		// Required private claims.
		{"sub missing", forge(tb, hdr, with(cl, "sub", del), sign), "missing sub"},
		{"jti missing", forge(tb, hdr, with(cl, "jti", del), sign), "missing jti"},
		{"prv missing", forge(tb, hdr, with(cl, "prv", del), sign), "missing prv"},
		{"prv empty", forge(tb, hdr, with(cl, "prv", ""), sign), "missing prv"},

		// Signature.
		{"1-bit flip in payload", flippedPayload, "bad signature"},
		{"1-bit flip in signature", flippedSig, "bad signature"},
		{"other key same kid", forge(tb, hdr, cl, edSigner(other)), "bad signature"},
		{"signature trailing bits", trailingBits, "malformed"},
		{"signature too short", parts[0] + "." + parts[1] + "." + parts[2][:85], "malformed signature"},

		// Shape and encoding.
		{"padded header", paddedHeader, "not base64url"},
		{"padded signature", good + "==", "not base64url"},
		{"std base64 alphabet", parts[0] + "." + parts[1] + "." + strings.NewReplacer("-", "+", "_", "/").Replace(parts[2]) + "+/", "not base64url"},
		{"leading space", " " + good, "not base64url"},
		{"Bearer prefix", "Bearer " + good, "not base64url"},
		{"crit header", forge(tb, with(hdr, "crit", []string{"exp"}), cl, sign), "crit"},
		{"crit null", forge(tb, with(hdr, "crit", nil), cl, sign), "crit"},
		{"4th segment", good + "." + parts[2], "segments"},
		{"empty 4th segment", good + ".", "segments"},
		{"2 segments", parts[0] + "." + parts[1], "segments"},
		{"1 segment", parts[0], "segments"},
		{"empty middle segment", parts[0] + ".." + parts[2], "segments"},
		{"empty first segment", "." + parts[1] + "." + parts[2], "segments"},
		{"empty string", "", "empty"},
		{"two dots", "..", "segments"},
		{"100,000 dots", strings.Repeat(".", 100_000), "too long"},
		{"4,000 dots", strings.Repeat(".", 4000), "segments"},
		{"1 MB", strings.Repeat("A", 1<<20), "too long"},
		{"4097 bytes", parts[0] + "." + parts[1] + strings.Repeat("A", 4097-len(good)) + "." + parts[2], "too long"},
		{"non-JSON header", forge(tb, "not json", cl, sign), "malformed"},
		{"JSON array header", forge(tb, `["EdDSA"]`, cl, sign), "malformed"},
		{"JSON null header", forge(tb, `null`, cl, sign), "algorithm"},
		{"non-JSON payload", forge(tb, hdr, "not json", sign), "malformed"},
		{"JSON array payload", forge(tb, hdr, `[1,2]`, sign), "malformed"},
		{"JSON null payload", forge(tb, hdr, `null`, sign), "missing required claim"},
		{"NUL bytes", "\x00.\x00.\x00", "not base64url"},
		{"invalid UTF-8", "\xff\xfe.\xff.\xff", "not base64url"},
	}
}

func TestTamperCorpus(t *testing.T) {
	iss, sk, _ := fixture(t)
	cases := tamperCorpus(t, iss, sk)
	if n := len(cases) - 1; n < 40 {
		t.Fatalf("only %d hostile cases", n)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("panic: %v", r)
				}
			}()
			c, err := iss.Verify(Access, tc.token)
			if tc.want == "" { // control
				if err != nil {
					t.Fatalf("control token rejected: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
			if c != nil {
				t.Errorf("claims returned alongside error")
			}
			msg := err.Error()
			if !strings.Contains(msg, tc.want) {
				t.Errorf("err = %q, want it to mention %q", msg, tc.want)
			}
			// The message is short and never echoes the token.
			if len(msg) > 80 || (len(tc.token) > 8 && strings.Contains(msg, tc.token)) {
				t.Errorf("message leaks input: %q", msg)
			}
			for _, kind := range []Kind{Refresh, Group} {
				if _, err := iss.Verify(kind, tc.token); !errors.Is(err, ErrInvalid) {
					t.Errorf("accepted as %v", kind)
				}
			}
		})
	}
}

// TestDotsRejectedCheaply: junk must not cost parsing work. The 100,000-dot
// token (and friends) are rejected without allocating and in well under 10 ms.
func TestDotsRejectedCheaply(t *testing.T) {
	iss, _, _ := fixture(t)
	for name, token := range map[string]string{
		"100,000 dots": strings.Repeat(".", 100_000),
		"4,000 dots":   strings.Repeat(".", 4000),
		"1 MB":         strings.Repeat("A", 1<<20),
	} {
		allocs := testing.AllocsPerRun(100, func() {
			if _, err := iss.Verify(Access, token); err == nil {
				t.Fatal("accepted")
			}
		})
		if allocs > 1 {
			t.Errorf("%s: %.1f allocations per rejection", name, allocs)
		}

		// Best of several rounds, so a scheduler hiccup cannot fail the test.
		best := time.Hour
		for range 5 {
			start := time.Now()
			for range 100 {
				_, _ = iss.Verify(Access, token)
			}
			best = min(best, time.Since(start)/100)
		}
		if best > time.Millisecond {
			t.Errorf("%s: %v per rejection", name, best)
		}
	}
}

func FuzzVerify(f *testing.F) {
	iss, sk, _ := fixture(f)
	for _, tc := range tamperCorpus(f, iss, sk) {
		if len(tc.token) <= maxTokenLen {
			f.Add(tc.token)
		}
	}
	f.Fuzz(func(t *testing.T, token string) {
		c, err := iss.Verify(Access, token)
		if err != nil {
			if !errors.Is(err, ErrInvalid) || c != nil {
				t.Fatalf("bad failure: %v, %v", c, err)
			}
			return
		}
		if c == nil || c.Subject == "" || c.ID == "" || c.Provider == "" {
			t.Fatalf("accepted incomplete claims %+v", c)
		}
	})
}
