package documents

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
)

type decodeInner struct {
	Questions []string `json:"questions"`
	Complete  bool     `json:"complete"`
}

type decodeEmbedded struct {
	Note string `json:"note"`
}

type decodeData struct {
	decodeEmbedded
	ID       string                 `json:"id"`
	At       time.Time              `json:"at"`
	Due      *time.Time             `json:"due,omitempty"`
	Requests []decodeInner          `json:"requests"`
	ByCode   map[string]decodeInner `json:"byCode"`
	Amount   float64                `json:"amount"`
	Count    int64                  `json:"count,string"`
	Extra    any                    `json:"extra"`
	Skip     string                 `json:"-"`
}

// TestStoredAggregatesReadAsEncodingJSONReadsThem: the faster decoder
// reads what encoding/json wrote exactly as encoding/json does (embedded
// structs inlined, times, pointers, lists, maps, quoted numbers, free
// values, names in another case); what it refuses (a name twice, invalid
// UTF-8) encoding/json reads.
func TestStoredAggregatesReadAsEncodingJSONReadsThem(t *testing.T) {
	k := &Kind{Def: nil, NewData: func() any { return new(decodeData) }}
	// the oracle the end-to-end tests (tests/) inject too: encoding/json, which wrote
	// the aggregate, reads the same
	k.decodeCheck = func(kind string, raw []byte, data any) error {
		want := k.NewData()
		if err := json.Unmarshal(raw, want); err != nil || !reflect.DeepEqual(want, data) {
			return fmt.Errorf("%s aggregate: encoding/json/v2 reads it otherwise than v1 (v1's error: %v)", kind, err)
		}
		return nil
	}
	for name, raw := range map[string]string{
		"typical": `{"note":"n","id":"ntf_1","at":"2026-11-25T10:00:00.123456789Z","due":"2026-12-01T00:00:00Z",
			"requests":[{"questions":["a","b"],"complete":true},{"questions":null}],"byCode":{"A1010":{"complete":false}},
			"amount":12.5,"count":"42","extra":{"x":[1,"y",null,true]},"Skip":"kept out"}`,
		"empty and null":           `{"requests":[],"byCode":null,"due":null,"extra":null}`,
		"names in another case":    `{"ID":"ntf_2","Note":"n"}`,
		"unknown names":            `{"id":"x","gone":{"deep":[1,2]}}`,
		"a name twice (v1 reads)":  `{"id":"first","id":"second"}`,
		"invalid UTF-8 (v1 reads)": "{\"id\":\"\xff\"}",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := k.decode(strings.ReplaceAll(raw, "\n", "")); err != nil {
				t.Fatal(err)
			}
		})
	}
	got, _ := k.decode(`{"id":"first","id":"second"}`)
	if got.(*decodeData).ID != "second" {
		t.Fatalf("a name twice: %q, encoding/json reads the last", got.(*decodeData).ID)
	}
	if _, err := k.decode(`{"id":`); err == nil {
		t.Fatal("malformed JSON decoded")
	}
}
