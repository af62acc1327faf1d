package credentials_test

import (
	"bytes"
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/alexedwards/argon2id"

	"github.com/wasteflow/wasteflow/workflows/credentials"
)

func TestHashFormatAndVerify(t *testing.T) {
	h := credentials.NewHasher(1)
	hash, err := h.Hash(context.Background(), "correct-horse-battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(hash, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q is not argon2id with OWASP parameters", hash)
	}
	if ok, _ := h.Verify(context.Background(), "correct-horse-battery", hash); !ok {
		t.Fatal("right password refused")
	}
	if ok, _ := h.Verify(context.Background(), "correct-horse-batterY", hash); ok {
		t.Fatal("wrong password accepted")
	}
}

// A burst of logins never runs more hashes at once than the cap.
func TestHasherBoundsConcurrency(t *testing.T) {
	h := credentials.NewHasher(2)
	var peak atomic.Int64
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				if n := int64(h.InUse()); n > peak.Load() {
					peak.Store(n)
				}
			}
		}
	}()
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := h.Hash(context.Background(), "some-password-1"); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	close(done)
	if p := peak.Load(); p != 2 {
		t.Fatalf("peak concurrent hashes %d, want exactly the cap 2", p)
	}
}

func TestKeyringMACs(t *testing.T) {
	k, err := credentials.NewKeyring(bytes.Repeat([]byte{1}, 32))
	if err != nil {
		t.Fatal(err)
	}
	a := k.MAC(credentials.PurposeAppToken, "secret")
	if a == k.MAC(credentials.PurposeClientSecret, "secret") {
		t.Fatal("purposes share MACs")
	}
	if !credentials.Equal(a, k.MAC(credentials.PurposeAppToken, "secret")) || strings.Contains(a, "secret") {
		t.Fatal("MAC not stable or leaks the secret")
	}
	if _, err := credentials.NewKeyring([]byte("short")); err == nil {
		t.Fatal("short key accepted")
	}
	path := t.TempDir() + "/k"
	k1, err := credentials.LoadKeyring(path, true)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := credentials.LoadKeyring(path, false)
	if err != nil || k1.MAC("p", "s") != k2.MAC("p", "s") {
		t.Fatalf("reloaded key differs: %v", err)
	}
	if _, err := credentials.LoadKeyring(t.TempDir()+"/missing", false); err == nil {
		t.Fatal("missing key file accepted without create")
	}
}

// A Hasher hashes with OWASP's minimum unless it is given other
// parameters (its own, not the process's); a hash carries its parameters,
// so each verifies whatever hashed it.
func TestHasherParamsAreItsOwn(t *testing.T) {
	ctx := context.Background()
	cheap := credentials.NewHasher(1).WithParams(argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32})
	usual := credentials.NewHasher(1)
	a, err := cheap.Hash(ctx, "a-password-1")
	if err != nil {
		t.Fatal(err)
	}
	b, err := usual.Hash(ctx, "a-password-1")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(a, "m=64,t=1,p=1") || !strings.Contains(b, "m=19456,t=2,p=1") {
		t.Fatalf("the parameters: %s, %s", a, b)
	}
	for _, h := range []string{a, b} {
		if ok, err := usual.Verify(ctx, "a-password-1", h); err != nil || !ok {
			t.Fatalf("%s does not verify: %v", h, err)
		}
	}
}
