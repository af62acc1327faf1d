// Package credentials hashes passwords (argon2id) and keys the HMACs that
// stand in for high-entropy secrets (app tokens, client secrets) at rest.
package credentials

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/alexedwards/argon2id"
)

// PasswordParams are OWASP's argon2id minimum: 19 MiB, 2 passes, 1 lane
// (a copy: what a Hasher uses is its own).
func PasswordParams() argon2id.Params {
	return argon2id.Params{Memory: 19 * 1024, Iterations: 2, Parallelism: 1, SaltLength: 16, KeyLength: 32}
}

// Hasher hashes and verifies passwords with a cap on how many run at once,
// so a burst of logins cannot take all memory (each hash holds 19 MiB).
type Hasher struct {
	slots    chan struct{}
	verified atomic.Int64
	params   argon2id.Params
}

// ErrBusy means every hashing slot stayed taken while the caller waited.
var ErrBusy = errors.New("password hashing capacity exhausted")

// NewHasher allows at most concurrent hashes at a time.
func NewHasher(concurrent int) *Hasher {
	if concurrent < 1 {
		concurrent = 1
	}
	return &Hasher{slots: make(chan struct{}, concurrent), params: PasswordParams()}
}

// WithParams is h hashing new passwords with p instead of OWASP's minimum
// (a hash carries its parameters, so every hash verifies either way).
// Tests use it for speed: what they check is not the hash's cost.
func (h *Hasher) WithParams(p argon2id.Params) *Hasher {
	h.params = p
	return h
}

func (h *Hasher) acquire(ctx context.Context) error {
	select {
	case h.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%w: %v", ErrBusy, ctx.Err())
	}
}

func (h *Hasher) release() { <-h.slots }

// InUse is the number of hashes running now.
func (h *Hasher) InUse() int { return len(h.slots) }

// Hash returns the PHC string of password.
func (h *Hasher) Hash(ctx context.Context, password string) (string, error) {
	if err := h.acquire(ctx); err != nil {
		return "", err
	}
	defer h.release()
	return argon2id.CreateHash(password, &h.params)
}

// Verify reports whether password matches the PHC string hash.
func (h *Hasher) Verify(ctx context.Context, password, hash string) (bool, error) {
	if err := h.acquire(ctx); err != nil {
		return false, err
	}
	defer h.release()
	h.verified.Add(1)
	return argon2id.ComparePasswordAndHash(password, hash)
}

// Verifications is the number of hashes Verify has computed, so that a
// test can hold the paths of a login to the same work.
func (h *Hasher) Verifications() int64 { return h.verified.Load() }

// Keyring holds the server key that turns secrets into HMACs.
type Keyring struct {
	key []byte
}

// NewKeyring uses key (at least 32 bytes) directly.
func NewKeyring(key []byte) (*Keyring, error) {
	if len(key) < 32 {
		return nil, fmt.Errorf("server key must be at least 32 bytes, got %d", len(key))
	}
	return &Keyring{key: append([]byte(nil), key...)}, nil
}

// LoadKeyring reads the hex-encoded key from path. When the file does not
// exist and create is true, a new random key is written there (0600).
func LoadKeyring(path string, create bool) (*Keyring, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) && create {
		key := make([]byte, 32)
		if _, err := rand.Read(key); err != nil {
			return nil, err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return nil, fmt.Errorf("create server key: %w", err)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, os.ErrExist) { // another process won the race: use its key
			return LoadKeyring(path, false)
		}
		if err != nil {
			return nil, fmt.Errorf("create server key: %w", err)
		}
		_, werr := f.WriteString(hex.EncodeToString(key) + "\n")
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			return nil, fmt.Errorf("write server key: %w", werr)
		}
		return NewKeyring(key)
	}
	if err != nil {
		return nil, fmt.Errorf("read server key: %w", err)
	}
	key, err := hex.DecodeString(strings.TrimSpace(string(raw)))
	if err != nil {
		return nil, fmt.Errorf("server key %s: not hex: %w", path, err)
	}
	return NewKeyring(key)
}

// MAC returns the hex HMAC-SHA-256 of secret under the server key, labelled
// by purpose so a value of one kind never matches a value of another.
func (k *Keyring) MAC(purpose, secret string) string {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write([]byte(secret))
	return hex.EncodeToString(m.Sum(nil))
}

// Equal compares two MACs in constant time.
func Equal(a, b string) bool { return hmac.Equal([]byte(a), []byte(b)) }

// Purposes of MACs.
const (
	PurposeAppToken     = "app-token"
	PurposeClientSecret = "client-secret"
	PurposeGroupSecret  = "group-secret"
)

// Seal encrypts a secret the server must read again (a webhook's signing
// secret: an HMAC key, so it cannot be stored as a hash) under a key
// derived from the server key for purpose: AES-256-GCM, a random nonce,
// base64. Open reverses it.
func (k *Keyring) Seal(purpose, secret string) (string, error) {
	aead, err := k.aead(purpose)
	if err != nil {
		return "", err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawStdEncoding.EncodeToString(aead.Seal(nonce, nonce, []byte(secret), []byte(purpose))), nil
}

// Open decrypts what Seal sealed for the same purpose.
func (k *Keyring) Open(purpose, sealed string) (string, error) {
	aead, err := k.aead(purpose)
	if err != nil {
		return "", err
	}
	raw, err := base64.RawStdEncoding.DecodeString(sealed)
	if err != nil || len(raw) < aead.NonceSize() {
		return "", errors.New("sealed secret: not this server's form")
	}
	plain, err := aead.Open(nil, raw[:aead.NonceSize()], raw[aead.NonceSize():], []byte(purpose))
	if err != nil {
		return "", errors.New("sealed secret: sealed under another server key")
	}
	return string(plain), nil
}

func (k *Keyring) aead(purpose string) (cipher.AEAD, error) {
	m := hmac.New(sha256.New, k.key)
	m.Write([]byte("seal\x00" + purpose))
	block, err := aes.NewCipher(m.Sum(nil))
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}
