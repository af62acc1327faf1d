// Package tokens issues and verifies wasteflow's JWTs: access tokens
// (short-lived, carry scopes), refresh tokens (single-use and rotated; their
// state lives in the database elsewhere) and notifier group tokens. It owns
// the signing keys and publishes their public halves as a JWKS.
//
// Only EdDSA (Ed25519) is accepted, so algorithm-confusion attacks (alg
// "none", HMAC keyed with the public key) have nothing to work with. The three
// kinds differ both in the typ header and in the audience, so a token of one
// kind is never accepted as another even if one of the two checks were
// bypassed.
package tokens

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// Kind is the purpose of a token.
type Kind int

// The token kinds. The zero Kind is deliberately invalid so a forgotten
// argument cannot default to the most powerful token.
const (
	Access Kind = iota + 1
	Refresh
	Group
)

func (k Kind) String() string {
	switch k {
	case Access:
		return "access"
	case Refresh:
		return "refresh"
	case Group:
		return "group"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// typ is the JOSE typ header of the kind (RFC 8725 §3.11 explicit typing).
func (k Kind) typ() string {
	switch k {
	case Access:
		return "at+jwt"
	case Refresh:
		return "rt+jwt"
	case Group:
		return "gt+jwt"
	}
	return ""
}

// audience is the aud of the kind for the given issuer name.
func (k Kind) audience(issuer string) string {
	switch k {
	case Access:
		return issuer + "/api"
	case Refresh:
		return issuer + "/refresh"
	case Group:
		return issuer + "/notifier"
	}
	return ""
}

// Claims is the payload of every wasteflow token.
type Claims struct {
	jwt.RegisteredClaims          // iss, sub, aud, exp, nbf, iat, jti
	Provider             string   `json:"prv"`
	Organisation         string   `json:"org,omitempty"`
	OrganisationKind     string   `json:"okd,omitempty"` // company|authority
	Scopes               []string `json:"scp,omitempty"`
	SessionID            string   `json:"sid,omitempty"`
	Generation           int      `json:"gen,omitempty"` // refresh token generation within its session
}

// ErrInvalid is matched (errors.Is) by every error Verify returns.
var ErrInvalid = errors.New("invalid token")

// invalidError carries a short, fixed reason. Reasons never include the token
// or any header/claim value from it, so the message is safe to log and cannot
// be used for log injection. It also unwraps to the jwt library's error, if
// any, so callers can still tell e.g. jwt.ErrTokenExpired apart.
type invalidError struct {
	reason string
	cause  error
}

func (e *invalidError) Error() string { return ErrInvalid.Error() + ": " + e.reason }
func (e *invalidError) Unwrap() []error {
	if e.cause == nil {
		return []error{ErrInvalid}
	}
	return []error{ErrInvalid, e.cause}
}

func invalid(reason string) *invalidError { return &invalidError{reason: reason} }

// Expired tells an error of Verify for a token that is sound but past its
// exp: its holder should get a new one (refresh, log in), not give up.
func Expired(err error) bool {
	ie, ok := errors.AsType[*invalidError](err)
	return ok && ie.reason == reasonExpired
}

const reasonExpired = "expired"

// Pre-allocated so that rejecting junk before parsing allocates nothing.
var (
	errEmpty         = invalid("empty")
	errTooLong       = invalid("too long")
	errSegments      = invalid("not three non-empty segments")
	errCharset       = invalid("not base64url")
	errSigLength     = invalid("malformed signature")
	errNotConfigured = invalid("issuer not configured")
	errKind          = invalid("unknown token kind")
)

const (
	// maxTokenLen bounds all work done on untrusted input. Our own tokens
	// are well under 1 KiB even with many scopes.
	maxTokenLen = 4096
	// maxKIDLen is far above a thumbprint (43 chars) but stops absurd kids
	// from reaching map lookups or error paths.
	maxKIDLen = 128
	// sigLen is the base64url length of a 64-byte Ed25519 signature.
	sigLen         = (ed25519.SignatureSize*8 + 5) / 6
	defaultLeeway  = 30 * time.Second
	algEdDSA       = "EdDSA"
	jtiRandomBytes = 16 // 128 bits
)

// Issuer signs and verifies tokens. Set its fields before first use and do
// not change them afterwards; it is then safe for concurrent use.
type Issuer struct {
	Keys   *Keys
	Name   string           // iss, e.g. "wasteflow"
	Leeway time.Duration    // clock skew allowance; default 30s when zero, none when negative
	Now    func() time.Time // default time.Now when nil

	// verified remembers tokens whose signature and claims checked out, so
	// the next request with the same token skips the signature check; the
	// time checks run on every use (an entry is used only while its token
	// would verify now), and an entry belongs to the key set that verified
	// it. Revocation is not the token's business: sessions are checked by
	// the caller on every request.
	mu       sync.Mutex
	verified map[string]verifiedToken
}

type verifiedToken struct {
	keys   *Keys
	kind   Kind
	claims Claims
}

// maxVerified bounds the remembered tokens; when full the memory starts over.
const maxVerified = 10_000

// remembered returns the claims of token verified before for kind, if they
// are still valid at now.
func (i *Issuer) remembered(kind Kind, token string) (*Claims, bool) {
	i.mu.Lock()
	v, ok := i.verified[token]
	i.mu.Unlock()
	if !ok || v.keys != i.Keys || v.kind != kind {
		return nil, false
	}
	now, leeway := i.now(), max(i.leeway(), 0)
	c := v.claims
	switch {
	case c.ExpiresAt == nil || !now.Before(c.ExpiresAt.Add(leeway)):
		return nil, false // let the full check say why
	case c.NotBefore != nil && now.Add(leeway).Before(c.NotBefore.Time):
		return nil, false
	case c.IssuedAt != nil && now.Add(leeway).Before(c.IssuedAt.Time):
		return nil, false
	}
	return &c, true
}

func (i *Issuer) remember(kind Kind, token string, c *Claims) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.verified == nil || len(i.verified) >= maxVerified {
		i.verified = make(map[string]verifiedToken)
	}
	i.verified[token] = verifiedToken{keys: i.Keys, kind: kind, claims: *c}
}

func (i *Issuer) now() time.Time {
	if i.Now != nil {
		return i.Now()
	}
	return time.Now()
}

func (i *Issuer) leeway() time.Duration {
	switch {
	case i.Leeway == 0:
		return defaultLeeway
	case i.Leeway < 0:
		return 0
	}
	return i.Leeway
}

// Sign fills iss, aud (by kind), iat, exp (= now+ttl) and, when empty, a
// random 128-bit jti, then signs with the signing key; the header carries the
// kind's typ and the key's kid. Any iss/aud/iat/exp in c are overwritten.
// It refuses claims that Verify would reject (empty sub or prv), so a bad
// token is caught where it is made rather than where it is used.
// expiresAt is the exp written into the token (whole seconds).
func (i *Issuer) Sign(kind Kind, c Claims, ttl time.Duration) (token string, expiresAt time.Time, err error) {
	if i == nil || i.Keys == nil || i.Keys.signing == nil || i.Name == "" {
		return "", time.Time{}, errors.New("tokens: issuer has no signing key or name")
	}
	if kind.typ() == "" {
		return "", time.Time{}, fmt.Errorf("tokens: cannot sign %v", kind)
	}
	if ttl <= 0 {
		return "", time.Time{}, fmt.Errorf("tokens: ttl must be positive, got %v", ttl)
	}
	if c.Subject == "" || c.Provider == "" {
		return "", time.Time{}, errors.New("tokens: sub and prv are required")
	}

	now := i.now()
	c.Issuer = i.Name
	c.Audience = jwt.ClaimStrings{kind.audience(i.Name)}
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(now.Add(ttl))
	if c.ID == "" {
		c.ID = newJTI()
	}

	t := jwt.NewWithClaims(jwt.SigningMethodEdDSA, c)
	t.Header["typ"] = kind.typ()
	t.Header["kid"] = i.Keys.signingKID
	token, err = t.SignedString(i.Keys.signing)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("tokens: signing: %w", err)
	}
	return token, c.ExpiresAt.Time, nil
}

func newJTI() string {
	var b [jtiRandomBytes]byte
	rand.Read(b[:]) // never fails (crashes the program instead)
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Verify checks that token is a well-formed, correctly signed, unexpired
// token of the given kind from this issuer and returns its claims.
//
// Checked: length and shape before any decoding; header alg EdDSA only, no
// crit, kid known, typ of the kind; signature; exp present and not past,
// nbf and iat not in the future (all with Leeway); iss; aud exactly the
// kind's audience; sub, jti and prv present. Every failure wraps ErrInvalid
// and carries a short reason but never the token.
func (i *Issuer) Verify(kind Kind, token string) (*Claims, error) {
	// Cheap structural checks first: hostile input must cost next to nothing.
	if err := precheck(token); err != nil {
		return nil, err
	}
	if i == nil || i.Keys == nil || i.Name == "" {
		return nil, errNotConfigured
	}
	typ, aud := kind.typ(), kind.audience(i.Name)
	if typ == "" {
		return nil, errKind
	}
	if c, ok := i.remembered(kind, token); ok {
		return c, nil
	}

	// A parser per call: it is cheap next to the signature check, and
	// reading the Issuer's fields each time keeps Verify free of shared
	// mutable state.
	parser := jwt.NewParser(
		jwt.WithValidMethods([]string{algEdDSA}),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithIssuer(i.Name),
		jwt.WithAudience(aud),
		jwt.WithLeeway(i.leeway()),
		jwt.WithTimeFunc(i.now),
		// Reject non-zero trailing bits so that a token has exactly one
		// encoding (no malleable variants of a valid token).
		jwt.WithStrictDecoding(),
	)
	var c Claims
	parsed, err := parser.ParseWithClaims(token, &c, func(t *jwt.Token) (any, error) {
		return i.Keys.keyFor(t, typ)
	})
	if err != nil {
		return nil, classify(parsed, err)
	}

	// The library accepts any audience list that contains ours; we only
	// ever issue one audience, so anything else was not made by us.
	if len(c.Audience) != 1 || c.Audience[0] != aud {
		return nil, invalid("wrong audience")
	}
	switch {
	case c.Subject == "":
		return nil, invalid("missing sub")
	case c.ID == "":
		return nil, invalid("missing jti")
	case c.Provider == "":
		return nil, invalid("missing prv")
	}
	i.remember(kind, token, &c)
	return &c, nil
}

// precheck rejects, without allocating, anything that cannot be one of our
// tokens: empty, over maxTokenLen, not exactly three non-empty segments, any
// byte outside the base64url alphabet (this also refuses padding and
// whitespace), or a signature segment that is not 64 bytes long.
func precheck(token string) error {
	switch {
	case token == "":
		return errEmpty
	case len(token) > maxTokenLen:
		return errTooLong
	}
	dots, start, sigStart := 0, 0, 0
	for j := 0; j < len(token); j++ {
		switch b := token[j]; {
		case b == '.':
			if j == start { // empty segment
				return errSegments
			}
			dots++
			if dots > 2 {
				return errSegments
			}
			start = j + 1
			sigStart = start
		case 'A' <= b && b <= 'Z', 'a' <= b && b <= 'z', '0' <= b && b <= '9', b == '-', b == '_':
		default:
			return errCharset
		}
	}
	if dots != 2 || start == len(token) {
		return errSegments
	}
	if len(token)-sigStart != sigLen {
		return errSigLength
	}
	return nil
}

// keyFor checks the header and picks the key. It runs before the signature
// is checked, so it trusts nothing in the header beyond using kid as a map
// key.
func (k *Keys) keyFor(t *jwt.Token, typ string) (any, error) {
	// Belt and braces: WithValidMethods already pinned the algorithm.
	if t.Method != jwt.SigningMethodEdDSA {
		return nil, invalid("algorithm not allowed")
	}
	// RFC 7515 §4.1.11: a recipient must reject crit it does not implement,
	// and we implement none.
	if _, ok := t.Header["crit"]; ok {
		return nil, invalid("crit header not supported")
	}
	if got, _ := t.Header["typ"].(string); got != typ {
		return nil, invalid("wrong typ")
	}
	kid, ok := t.Header["kid"].(string)
	switch {
	case !ok || kid == "":
		return nil, invalid("missing kid")
	case len(kid) > maxKIDLen:
		return nil, invalid("kid too long")
	}
	pub, ok := k.lookup(kid)
	if !ok {
		return nil, invalid("unknown kid")
	}
	return pub, nil
}

// classify turns a parser error into our error: our own keyFor reasons pass
// through; the library's sentinels map to fixed reasons. The library's own
// messages are not used since some quote header values (e.g. the alg).
func classify(t *jwt.Token, err error) error {
	if ie, ok := errors.AsType[*invalidError](err); ok {
		return ie
	}
	reason := "invalid"
	switch {
	case t != nil && t.Method != nil && t.Method != jwt.SigningMethodEdDSA,
		errors.Is(err, jwt.ErrTokenUnverifiable):
		// Unknown, unspecified, or known-but-not-allowed alg.
		reason = "algorithm not allowed"
	case errors.Is(err, jwt.ErrTokenMalformed):
		reason = "malformed"
	case errors.Is(err, jwt.ErrTokenSignatureInvalid):
		reason = "bad signature"
	case errors.Is(err, jwt.ErrTokenExpired):
		reason = reasonExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet):
		reason = "not valid yet"
	case errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		reason = "issued in the future"
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		reason = "missing required claim"
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		reason = "wrong issuer"
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		reason = "wrong audience"
	case errors.Is(err, jwt.ErrTokenInvalidClaims):
		reason = "invalid claims"
	}
	return &invalidError{reason: reason, cause: err}
}
