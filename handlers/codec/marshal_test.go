package codec_test

import (
	"encoding/json"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

func TestMarshal(t *testing.T) {
	base := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"zero message emits every field", Rich{}, richZeroJSON},
		{"pointer to message", &Rich{}, richZeroJSON},
		{"nil message pointer", (*Rich)(nil), `{}`},

		{"int64 as string", w[int64]{-9223372036854775808}, `{"v":"-9223372036854775808"}`},
		{"uint64 as string", w[uint64]{math.MaxUint64}, `{"v":"18446744073709551615"}`},
		{"int as string", w[int]{5}, `{"v":"5"}`},
		{"uint as string", w[uint]{5}, `{"v":"5"}`},
		{"named int64 as string", w[time.Duration]{3}, `{"v":"3"}`},
		{"int32 as number", w[int32]{-2147483648}, `{"v":-2147483648}`},
		{"uint32 as number", w[uint32]{math.MaxUint32}, `{"v":4294967295}`},
		{"int8 as number", w[int8]{-3}, `{"v":-3}`},
		{"uint8 as number", w[uint8]{255}, `{"v":255}`},

		{"float64", w[float64]{1.5}, `{"v":1.5}`},
		{"float64 integral", w[float64]{100}, `{"v":100}`},
		{"float64 large uses exponent", w[float64]{1e21}, `{"v":1e+21}`},
		{"float64 below 1e21 stays plain", w[float64]{1e20}, `{"v":100000000000000000000}`},
		{"float64 small uses exponent", w[float64]{1e-7}, `{"v":1e-7}`},
		{"float64 negative zero", w[float64]{math.Copysign(0, -1)}, `{"v":-0}`},
		{"float32 shortest", w[float32]{0.1}, `{"v":0.1}`},
		{"NaN", w[float64]{math.NaN()}, `{"v":"NaN"}`},
		{"+Inf", w[float64]{math.Inf(1)}, `{"v":"Infinity"}`},
		{"-Inf", w[float32]{float32(math.Inf(-1))}, `{"v":"-Infinity"}`},

		{"bool", w[bool]{true}, `{"v":true}`},
		{"string no HTML escaping", w[string]{"<a&b>"}, `{"v":"<a&b>"}`},
		{"string escapes", w[string]{"q\"b\\\n\t\r\b\f\x01\x7f"}, `{"v":"q\"b\\\n\t\r\b\f\u0001` + "\x7f" + `"}`},
		{"string line separators", w[string]{"a\u2028b\u2029"}, `{"v":"a\u2028b\u2029"}`},
		{"string invalid UTF-8", w[string]{"a\xffb"}, `{"v":"a\ufffdb"}`},
		{"string unicode kept", w[string]{"héllo ✓"}, `{"v":"héllo ✓"}`},

		{"bytes standard padded base64", w[[]byte]{[]byte("hi?>")}, `{"v":"aGk/Pg=="}`},
		{"nil bytes", w[[]byte]{}, `{"v":""}`},

		{"enum name", w[State]{StateActive}, `{"v":"ACTIVE"}`},
		{"enum zero name", w[State]{}, `{"v":"STATE_UNSPECIFIED"}`},
		{"enum unknown number", w[State]{7}, `{"v":7}`},
		{"enum negative number", w[State]{-1}, `{"v":-1}`},
		{"enum slice", w[[]State]{[]State{2, 0}}, `{"v":["ARCHIVED","STATE_UNSPECIFIED"]}`},

		{"time no fraction", w[time.Time]{base}, `{"v":"2024-01-02T03:04:05Z"}`},
		{"time millis", w[time.Time]{base.Add(120 * time.Millisecond)}, `{"v":"2024-01-02T03:04:05.120Z"}`},
		{"time micros", w[time.Time]{base.Add(1 * time.Microsecond)}, `{"v":"2024-01-02T03:04:05.000001Z"}`},
		{"time nanos", w[time.Time]{base.Add(1)}, `{"v":"2024-01-02T03:04:05.000000001Z"}`},
		{"time converted to UTC", w[time.Time]{time.Date(2024, 1, 2, 5, 4, 5, 0, time.FixedZone("", 7200))}, `{"v":"2024-01-02T03:04:05Z"}`},
		{"zero time is null", w[time.Time]{}, `{"v":null}`},
		{"nil time pointer", w[*time.Time]{}, `{"v":null}`},
		{"time pointer", w[*time.Time]{&base}, `{"v":"2024-01-02T03:04:05Z"}`},
		{"time in map (not addressable)", w[map[string]time.Time]{map[string]time.Time{"a": base}}, `{"v":{"a":"2024-01-02T03:04:05Z"}}`},

		{"raw as-is", w[json.RawMessage]{json.RawMessage(`{"a": [1, 2]}`)}, `{"v":{"a": [1, 2]}}`},
		{"empty raw is null", w[json.RawMessage]{}, `{"v":null}`},
		{"any via encoding/json", w[any]{map[string]any{"b": 1, "a": "<x>"}}, `{"v":{"a":"<x>","b":1}}`},
		{"any int64 is a plain number", w[any]{int64(5)}, `{"v":5}`},
		{"nil any", w[any]{}, `{"v":null}`},
		{"map[string]any via encoding/json", w[map[string]any]{map[string]any{"x": []int{1}}}, `{"v":{"x":[1]}}`},
		{"nil map[string]any is null", w[map[string]any]{}, `{"v":null}`},

		{"map sorted keys", w[map[string]int32]{map[string]int32{"b": 2, "a": 1, "c": 3}}, `{"v":{"a":1,"b":2,"c":3}}`},
		{"map int64 values are strings", w[map[string]int64]{map[string]int64{"a": 1}}, `{"v":{"a":"1"}}`},
		{"map keys escaped", w[map[string]bool]{map[string]bool{"a\"b": true}}, `{"v":{"a\"b":true}}`},
		{"nil map", w[map[string]string]{}, `{"v":{}}`},
		{"nil slice", w[[]string]{}, `{"v":[]}`},
		{"empty slice", w[[]string]{[]string{}}, `{"v":[]}`},
		{"slice of int64", w[[]int64]{[]int64{1, -2}}, `{"v":["1","-2"]}`},
		{"slice of pointers with nil", w[[]*Ref]{[]*Ref{nil, {ID: "x"}}}, `{"v":[null,{"id":"x"}]}`},
		{"nil struct pointer", w[*Ref]{}, `{"v":null}`},
		{"nil scalar pointer", w[*int64]{}, `{"v":null}`},
		{"scalar pointer", w[*int64]{ptr(int64(9))}, `{"v":"9"}`},
		{"nested struct", w[Ref]{Ref{ID: "x"}}, `{"v":{"id":"x"}}`},
		{"untagged field lower-camel, skipped fields absent", struct {
			PageSize int32
			Skip     string `json:"-"`
			hidden   int
		}{PageSize: 1}, `{"pageSize":1}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := codec.Marshal(tc.in)
			if err != nil {
				t.Fatalf("Marshal: %v", err)
			}
			if string(got) != tc.want {
				t.Errorf("Marshal\n got: %s\nwant: %s", got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("output is not valid JSON: %s", got)
			}
		})
	}
}

func TestMarshalErrors(t *testing.T) {
	type cyclic struct {
		Next *cyclic `json:"next"`
	}
	loop := &cyclic{}
	loop.Next = loop
	tests := []struct {
		name    string
		in      any
		wantErr string
	}{
		{"nil", nil, "struct or pointer to struct"},
		{"not a struct", 5, "struct or pointer to struct"},
		{"slice top level", []Ref{}, "struct or pointer to struct"},
		{"time.Time top level", time.Now(), "message struct"},
		{"chan field", w[chan int]{}, "unsupported type chan int"},
		{"func field", w[func()]{}, "unsupported type func()"},
		{"non-string map key", w[map[int]string]{}, "keys must be strings"},
		{"non-empty interface", w[error]{}, "unsupported interface"},
		{"array", w[[4]byte]{}, "unsupported type [4]uint8"},
		{"pointer to pointer", w[**int32]{}, "pointer-to-pointer"},
		{"duplicate JSON names", struct {
			X string // untagged: "x"
			Y string `json:"x"`
		}{}, `two fields named "x"`},
		{"invalid raw", w[json.RawMessage]{json.RawMessage(`{`)}, "invalid json.RawMessage"},
		{"time beyond year 9999", w[time.Time]{time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, "RFC 3339 range"},
		{"time before year 1", w[time.Time]{time.Date(0, 12, 31, 0, 0, 0, 0, time.UTC)}, "RFC 3339 range"},
		{"pointer cycle", loop, "maximum nesting depth"},
		{"any with unencodable value", w[any]{make(chan int)}, "unsupported type"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := codec.Marshal(tc.in)
			if err == nil {
				t.Fatalf("Marshal succeeded with %s, want error containing %q", out, tc.wantErr)
			}
			if !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %q does not contain %q", err, tc.wantErr)
			}
			if _, isClientErr := err.(*codec.Error); isClientErr {
				t.Errorf("programmer mistakes must not be *codec.Error: %v", err)
			}
		})
	}
}

func TestMarshalSample(t *testing.T) {
	got, err := codec.Marshal(sampleRich())
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`"u32":4000000000`, `"i64":"-4611686018427387904"`, `"u64":"18446744073709551615"`, `"int":"42"`,
		`"f32":0.25`, `"f64":1.5e-7`, `"s":"héllo <world> \"q\"\n"`, `"data":"AAEC+/8="`,
		`"state":"ACTIVE"`, `"states":["ARCHIVED","STATE_UNSPECIFIED"]`, `"statePtr":"ARCHIVED"`,
		`"at":"2024-05-06T07:08:09.120Z"`, `"atPtr":"2024-05-06T07:08:09.120001Z"`,
		`"raw":{"free":[1,"two",null]}`, `"any":["x",1.5,true]`, `"meta":{"k":"v","n":3}`,
		`"labels":{"app":"wasteflow","env":"prod"}`, `"counts":{"big":"1152921504606846976"}`,
		`"qpar":{"pageSize":50,"pageStart":"tok","filter":[{"field":"status","op":"eq","value":"open"},`,
		`"templateId":{"id":"tpl-1"}`, `"nums":["1","-2","3"]`, `"opt":7`, `"docXml":"<doc/>"`,
		`"noTag":"nt"`, `"anon":{"x":9}`, `"next":{"b":false,`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("output lacks %s\nfull: %s", want, got)
		}
	}
}

// TestConcurrentFirstUse races the per-type cache on a type never seen before.
func TestConcurrentFirstUse(t *testing.T) {
	type fresh struct {
		A    int64            `json:"a"`
		Kids []*fresh         `json:"kids"`
		M    map[string]fresh `json:"m"`
	}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			out, err := codec.Marshal(fresh{A: 1, Kids: []*fresh{{A: 2}}})
			if err != nil || string(out) != `{"a":"1","kids":[{"a":"2","kids":[],"m":{}}],"m":{}}` {
				t.Errorf("Marshal = %s, %v", out, err)
			}
			var back fresh
			if err := codec.Unmarshal(out, &back); err != nil || back.Kids[0].A != 2 {
				t.Errorf("Unmarshal = %+v, %v", back, err)
			}
		})
	}
	wg.Wait()
}
