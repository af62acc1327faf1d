package tokens

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// Keys holds one Ed25519 signing key and every key that may verify a token
// (the signing key's public half plus old keys kept during rotation). A Keys
// is immutable once built, so it is safe for concurrent use; rotating means
// building a new Keys and swapping it into the Issuer.
type Keys struct {
	signing    ed25519.PrivateKey // nil when no usable signing key was given
	signingKID string
	verify     map[string]ed25519.PublicKey // by kid, includes the signing key
	jwks       []byte                       // rendered once: the key set never changes
}

// NewKeys builds a key set from a signing key and extra verification keys.
// Keys of the wrong length cannot sign or verify anything, so they are left
// out rather than panicking: with no usable signing key Sign fails and
// SigningKID is empty. A verification key equal to the signing key, or
// given twice, is kept once.
func NewKeys(signing ed25519.PrivateKey, verify ...ed25519.PublicKey) *Keys {
	k := &Keys{verify: make(map[string]ed25519.PublicKey, len(verify)+1)}
	if len(signing) == ed25519.PrivateKeySize {
		// Copy so a caller reusing its slice cannot change our key.
		k.signing = slices.Clone(signing)
		pub := k.signing.Public().(ed25519.PublicKey)
		k.signingKID = thumbprint(pub)
		k.verify[k.signingKID] = pub
	}
	for _, pub := range verify {
		if len(pub) != ed25519.PublicKeySize {
			continue
		}
		k.verify[thumbprint(pub)] = slices.Clone(pub)
	}
	k.jwks = k.renderJWKS()
	return k
}

// SigningKID is the kid that Sign puts in token headers.
func (k *Keys) SigningKID() string {
	if k == nil {
		return ""
	}
	return k.signingKID
}

// JWKS returns the public key set as a JSON Web Key Set: the signing key
// first, then the verification-only keys sorted by kid, so the document is
// byte-for-byte stable across restarts and caches/ETags stay valid. The
// caller gets its own copy.
func (k *Keys) JWKS() []byte {
	if k == nil {
		return []byte(`{"keys":[]}`)
	}
	return bytes.Clone(k.jwks)
}

// lookup returns the verification key for kid.
func (k *Keys) lookup(kid string) (ed25519.PublicKey, bool) {
	pub, ok := k.verify[kid]
	return pub, ok
}

// jwk is one entry of the JWKS; field order is the output order.
type jwk struct {
	Kty string `json:"kty"`
	Crv string `json:"crv"`
	X   string `json:"x"`
	Kid string `json:"kid"`
	Alg string `json:"alg"`
	Use string `json:"use"`
}

func (k *Keys) renderJWKS() []byte {
	kids := make([]string, 0, len(k.verify))
	for kid := range k.verify {
		if kid != k.signingKID {
			kids = append(kids, kid)
		}
	}
	slices.Sort(kids)
	if k.signingKID != "" {
		kids = slices.Insert(kids, 0, k.signingKID)
	}
	set := struct {
		Keys []jwk `json:"keys"`
	}{Keys: make([]jwk, 0, len(kids))}
	for _, kid := range kids {
		set.Keys = append(set.Keys, jwk{
			Kty: "OKP",
			Crv: "Ed25519",
			X:   base64.RawURLEncoding.EncodeToString(k.verify[kid]),
			Kid: kid,
			Alg: "EdDSA",
			Use: "sig",
		})
	}
	out, err := json.Marshal(set)
	if err != nil {
		// Only strings go in; json.Marshal cannot fail on them.
		panic("tokens: rendering JWKS: " + err.Error())
	}
	return out
}

// thumbprint is the RFC 7638 JWK thumbprint of an Ed25519 public key
// (SHA-256, base64url without padding), used as its kid. Deriving the kid
// from the key means every process that loads the same key file agrees on
// the kid without coordination, and a kid can never be reused for a
// different key.
func thumbprint(pub ed25519.PublicKey) string {
	// RFC 7638 §3.2: required members only, lexicographic order, no spaces.
	canonical := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	sum := sha256.Sum256([]byte(canonical))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// LoadKeys reads a PKCS#8 PEM Ed25519 private key from signingFile. When the
// file is missing and create is true it generates a key and writes it with
// mode 0600 (creating the directory with 0700). Creation is race-safe: the
// key is published under its final name atomically and only if no file is
// there yet; a process that loses the race reads the winner's key, so all
// replicas starting together end up with the same key.
//
// verifyFiles are extra PEM files, each holding an Ed25519 public key (PKIX
// "PUBLIC KEY") or private key (PKCS#8 "PRIVATE KEY"); they verify tokens but
// never sign. This is how an old signing key stays trusted during rotation.
func LoadKeys(signingFile string, verifyFiles []string, create bool) (*Keys, error) {
	signing, err := loadSigningKey(signingFile, create)
	if err != nil {
		return nil, err
	}
	verify := make([]ed25519.PublicKey, 0, len(verifyFiles))
	for _, name := range verifyFiles {
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("tokens: reading verification key: %w", err)
		}
		pub, err := parseVerifyPEM(data)
		if err != nil {
			return nil, fmt.Errorf("tokens: verification key %s: %w", name, err)
		}
		verify = append(verify, pub)
	}
	return NewKeys(signing, verify...), nil
}

func loadSigningKey(name string, create bool) (ed25519.PrivateKey, error) {
	data, err := os.ReadFile(name)
	if err == nil {
		return parseSigningFile(name, data)
	}
	if !errors.Is(err, fs.ErrNotExist) || !create {
		return nil, fmt.Errorf("tokens: reading signing key: %w", err)
	}

	_, key, err := ed25519.GenerateKey(nil) // nil: the secure system source
	if err != nil {
		return nil, fmt.Errorf("tokens: generating signing key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("tokens: encoding signing key: %w", err)
	}
	encoded := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})

	if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
		return nil, fmt.Errorf("tokens: creating key directory: %w", err)
	}
	switch err := createExclusive(name, encoded); {
	case err == nil:
		return key, nil
	case errors.Is(err, fs.ErrExist):
		// Another process won the race; its key is complete (see
		// createExclusive), so use it instead of ours.
		data, err := os.ReadFile(name)
		if err != nil {
			return nil, fmt.Errorf("tokens: reading signing key: %w", err)
		}
		return parseSigningFile(name, data)
	default:
		return nil, fmt.Errorf("tokens: writing signing key: %w", err)
	}
}

// createExclusive writes data to name with mode 0600, failing with an error
// matching fs.ErrExist if name already exists.
//
// A plain O_EXCL create of name would let a concurrent reader see the file
// after it is created but before it is written, and fail on an empty key.
// So the data is written and synced to a private temporary file first and
// then hard-linked to name: link(2) is atomic and, like O_EXCL, refuses an
// existing target, so name appears only with its full content. On file
// systems without hard links it falls back to O_EXCL on name itself.
func createExclusive(name string, data []byte) error {
	dir, base := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp-*") // O_EXCL, mode 0600
	if err != nil {
		return err
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName)
	if err := writeSyncClose(tmp, data); err != nil {
		return err
	}
	linkErr := os.Link(tmpName, name)
	if linkErr == nil || errors.Is(linkErr, fs.ErrExist) {
		return linkErr
	}

	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if err := writeSyncClose(f, data); err != nil {
		// Never leave a truncated key behind for the next start to choke on.
		os.Remove(name)
		return err
	}
	return nil
}

func writeSyncClose(f *os.File, data []byte) error {
	_, err := f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func parseSigningFile(name string, data []byte) (ed25519.PrivateKey, error) {
	key, err := parseSigningPEM(data)
	if err != nil {
		return nil, fmt.Errorf("tokens: signing key %s: %w", name, err)
	}
	return key, nil
}

// parseSigningPEM accepts exactly a PKCS#8 Ed25519 private key. Errors name
// what was found but never echo key material.
func parseSigningPEM(data []byte) (ed25519.PrivateKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	if block.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("PEM block is %q, want \"PRIVATE KEY\" (PKCS#8 Ed25519)", block.Type)
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing PKCS#8 private key: %w", err)
	}
	key, ok := parsed.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("not an Ed25519 key (got %T)", parsed)
	}
	return key, nil
}

// parseVerifyPEM accepts a PKIX Ed25519 public key or a PKCS#8 Ed25519
// private key, of which only the public half is kept.
func parseVerifyPEM(data []byte) (ed25519.PublicKey, error) {
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, errors.New("no PEM block found")
	}
	switch block.Type {
	case "PUBLIC KEY":
		parsed, err := x509.ParsePKIXPublicKey(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parsing PKIX public key: %w", err)
		}
		pub, ok := parsed.(ed25519.PublicKey)
		if !ok {
			return nil, fmt.Errorf("not an Ed25519 key (got %T)", parsed)
		}
		return pub, nil
	case "PRIVATE KEY":
		key, err := parseSigningPEM(data)
		if err != nil {
			return nil, err
		}
		return key.Public().(ed25519.PublicKey), nil
	default:
		return nil, fmt.Errorf("PEM block is %q, want \"PUBLIC KEY\" or \"PRIVATE KEY\" (Ed25519)", block.Type)
	}
}
