package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/alexedwards/argon2id"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/wasteflow/wasteflow/handlers"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/workflows/documents"
)

// TestMain hashes passwords with argon2id's smallest parameters: every
// test server applies the fixture's dozen accounts and every test logs in
// several of them, and what these tests check is the HTTP face, not the
// hash's cost (workflows/credentials tests the production parameters,
// which the PHC strings carry, so a stored hash verifies either way).
//
// Every gRPC answer is also checked against the JSON detour's (wireOracle),
// every stored aggregate's decoding against encoding/json's (decodeOracle):
// the test servers inject both (withOracle, checked).
//
// The load benchmark (WASTEFLOW_BENCH) measures the server as it runs:
// production hashing (its login figure is the argon2id cost), no check.
func TestMain(m *testing.M) {
	bench := os.Getenv("WASTEFLOW_BENCH") != ""
	checkWire = !bench
	hashCheaply = !bench
	code := m.Run()
	// Every business error the tests met was declared by the intent that
	// reported it, so the reference lists the operations that raise it.
	if u := undeclared.list(); len(u) > 0 && code == 0 {
		fmt.Fprintf(os.Stderr, "business error codes reported but not declared in the intent's Errors (kind intent code):\n  %s\n", strings.Join(u, "\n  "))
		code = 1
	}
	os.Exit(code)
}

// hashCheaply: the test servers hash passwords with argon2id's smallest
// parameters (cheapHashes).
var hashCheaply bool

var cheapHashes = argon2id.Params{Memory: 64, Iterations: 1, Parallelism: 1, SaltLength: 16, KeyLength: 32}

// checkWire: the test servers inject wireOracle (not when the load
// benchmark measures the server as it runs).
var checkWire bool

// wireOracle is Deps.WireCheck for the tests: the answer written straight
// from its Go value (wire.go) must be the message the JSON detour gives
// (the REST answer read by protojson into a dynamic message).
func wireOracle(op string, md protoreflect.MessageDescriptor, value any, wire []byte) error {
	js, err := codec.Marshal(value)
	if err != nil {
		return err
	}
	want, got := dynamicpb.NewMessage(md), dynamicpb.NewMessage(md)
	if err := protojson.Unmarshal(js, want); err != nil {
		return fmt.Errorf("%s: the JSON detour: %w", op, err)
	}
	if err := proto.Unmarshal(wire, got); err != nil {
		return fmt.Errorf("%s: the direct encoding does not parse: %w", op, err)
	}
	if !proto.Equal(want, got) {
		wj, _ := protojson.Marshal(want)
		gj, _ := protojson.Marshal(got)
		return fmt.Errorf("%s: the direct encoding differs from the JSON detour:\nwant %s\ngot  %s", op, wj, gj)
	}
	return nil
}

// withOracle is deps with the test servers' oracle, when they check.
func withOracle(deps handlers.Deps) handlers.Deps {
	if checkWire {
		deps.WireCheck = wireOracle
	}
	return deps
}

// decodeOracle is the runners' decoding check for the tests: encoding/json,
// which wrote a stored aggregate, reads it as the faster decoder did.
func decodeOracle(kind string, raw []byte, data any) error {
	want := reflect.New(reflect.TypeOf(data).Elem()).Interface()
	if err := json.Unmarshal(raw, want); err != nil || !reflect.DeepEqual(want, data) {
		return fmt.Errorf("%s aggregate: encoding/json/v2 reads it otherwise than v1 (v1's error: %v)", kind, err)
	}
	return nil
}

// checked is r with the tests' decoding check, when they check, and
// the business error codes its intents report without declaring them
// collected (TestMain fails on one).
func checked(r *documents.Runner) *documents.Runner {
	if checkWire {
		r.Kinds.CheckDecoding(decodeOracle)
	}
	r.Kinds.OnUndeclared(undeclared.add)
	return r
}

// undeclared collects "KIND INTENT CODE" of every business error an intent
// reported without declaring it in its Errors.
var undeclared codeSet

type codeSet struct {
	mu  sync.Mutex
	set map[string]bool
}

func (c *codeSet) add(kind, intent, code string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.set == nil {
		c.set = map[string]bool{}
	}
	c.set[kind+" "+intent+" "+code] = true
}

func (c *codeSet) list() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]string, 0, len(c.set))
	for k := range c.set {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
