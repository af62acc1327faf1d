package codec_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

func TestUnmarshal(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 500_000_000, time.UTC)
	tests := []struct {
		name string
		body string
		dst  any // pointer to a fresh (or pre-populated) value
		want any // expected value pointed to by dst
	}{
		{"int32 number", `{"v":7}`, new(w[int32]), w[int32]{7}},
		{"int32 string", `{"v":"-7"}`, new(w[int32]), w[int32]{-7}},
		{"int32 min", `{"v":-2147483648}`, new(w[int32]), w[int32]{math.MinInt32}},
		{"int exponent number", `{"v":1e3}`, new(w[int32]), w[int32]{1000}},
		{"int exponent string", `{"v":"1e3"}`, new(w[int64]), w[int64]{1000}},
		{"int integral fraction", `{"v":1.0}`, new(w[int32]), w[int32]{1}},
		{"int fraction with exponent", `{"v":"1.5e1"}`, new(w[int32]), w[int32]{15}},
		{"int negative zero", `{"v":-0}`, new(w[int32]), w[int32]{0}},
		{"int negative zero string", `{"v":"-0.0"}`, new(w[uint32]), w[uint32]{0}},
		{"int64 max string", `{"v":"9223372036854775807"}`, new(w[int64]), w[int64]{math.MaxInt64}},
		{"int64 min string", `{"v":"-9223372036854775808"}`, new(w[int64]), w[int64]{math.MinInt64}},
		{"int64 as number", `{"v":12345678901}`, new(w[int64]), w[int64]{12345678901}},
		{"go int", `{"v":"5"}`, new(w[int]), w[int]{5}},
		{"uint64 max", `{"v":"18446744073709551615"}`, new(w[uint64]), w[uint64]{math.MaxUint64}},
		{"uint8 max", `{"v":255}`, new(w[uint8]), w[uint8]{255}},
		{"named int64", `{"v":"3"}`, new(w[time.Duration]), w[time.Duration]{3}},

		{"float number", `{"v":1.5}`, new(w[float64]), w[float64]{1.5}},
		{"float string", `{"v":"-2.5e3"}`, new(w[float64]), w[float64]{-2500}},
		{"float Infinity", `{"v":"Infinity"}`, new(w[float64]), w[float64]{math.Inf(1)}},
		{"float -Infinity", `{"v":"-Infinity"}`, new(w[float32]), w[float32]{float32(math.Inf(-1))}},
		{"float underflow is zero", `{"v":1e-400}`, new(w[float64]), w[float64]{0}},
		{"float32", `{"v":0.1}`, new(w[float32]), w[float32]{0.1}},

		{"bool", `{"v":true}`, new(w[bool]), w[bool]{true}},
		{"string", `{"v":"h\u00e9\"llo"}`, new(w[string]), w[string]{"hé\"llo"}},

		{"enum name", `{"v":"ARCHIVED"}`, new(w[State]), w[State]{StateArchived}},
		{"enum number", `{"v":1}`, new(w[State]), w[State]{StateActive}},
		{"enum numeric string", `{"v":"2"}`, new(w[State]), w[State]{StateArchived}},
		{"enum unknown in-range number", `{"v":99}`, new(w[State]), w[State]{99}},
		{"enum negative number", `{"v":-3}`, new(w[State]), w[State]{-3}},
		{"enum pointer", `{"v":"ACTIVE"}`, new(w[*State]), w[*State]{ptr(StateActive)}},
		{"enum list", `{"v":["ACTIVE",2]}`, new(w[[]State]), w[[]State]{[]State{1, 2}}},

		{"bytes std padded", `{"v":"aGk/Pg=="}`, new(w[[]byte]), w[[]byte]{[]byte("hi?>")}},
		{"bytes std unpadded", `{"v":"aGk/Pg"}`, new(w[[]byte]), w[[]byte]{[]byte("hi?>")}},
		{"bytes url padded", `{"v":"aGk_Pg=="}`, new(w[[]byte]), w[[]byte]{[]byte("hi?>")}},
		{"bytes url unpadded", `{"v":"aGk_Pg"}`, new(w[[]byte]), w[[]byte]{[]byte("hi?>")}},
		{"bytes empty", `{"v":""}`, new(w[[]byte]), w[[]byte]{[]byte{}}},

		{"time UTC", `{"v":"2024-01-02T03:04:05.5Z"}`, new(w[time.Time]), w[time.Time]{at}},
		{"time offset stored as UTC", `{"v":"2024-01-02T05:04:05.500+02:00"}`, new(w[time.Time]), w[time.Time]{at}},
		{"time pointer", `{"v":"2024-01-02T03:04:05.5Z"}`, new(w[*time.Time]), w[*time.Time]{&at}},

		{"null leaves scalar untouched", `{"v":null}`, &w[int32]{5}, w[int32]{5}},
		{"null leaves list untouched", `{"v":null}`, &w[[]string]{[]string{"a"}}, w[[]string]{[]string{"a"}}},
		{"null leaves pointer nil", `{"v":null}`, new(w[*Ref]), w[*Ref]{}},
		{"null map value is zero", `{"v":{"a":null}}`, new(w[map[string]int32]), w[map[string]int32]{map[string]int32{"a": 0}}},
		{"absent field untouched", `{}`, &w[string]{"keep"}, w[string]{"keep"}},

		{"list", `{"v":[1,2,3]}`, new(w[[]int32]), w[[]int32]{[]int32{1, 2, 3}}},
		{"empty list", `{"v":[]}`, new(w[[]int32]), w[[]int32]{[]int32{}}},
		{"list replaces", `{"v":["x"]}`, &w[[]string]{[]string{"a", "b"}}, w[[]string]{[]string{"x"}}},
		{"list of messages", `{"v":[{"id":"a"},null,{}]}`, new(w[[]*Ref]), w[[]*Ref]{[]*Ref{{ID: "a"}, nil, {}}}},
		{"list of time", `{"v":["2024-01-02T03:04:05.5Z"]}`, new(w[[]time.Time]), w[[]time.Time]{[]time.Time{at}}},
		{"map", `{"v":{"b":"2","a":"1"}}`, new(w[map[string]int64]), w[map[string]int64]{map[string]int64{"a": 1, "b": 2}}},
		{"map of messages", `{"v":{"k":{"id":"x"}}}`, new(w[map[string]*Ref]), w[map[string]*Ref]{map[string]*Ref{"k": {ID: "x"}}}},
		{"map replaces", `{"v":{"b":"y"}}`, &w[map[string]string]{map[string]string{"a": "x"}}, w[map[string]string]{map[string]string{"b": "y"}}},
		{"pointer to message allocated", `{"v":{"id":"x"}}`, new(w[*Ref]), w[*Ref]{&Ref{ID: "x"}}},

		{"raw kept verbatim", `{"v": {"a": [1, 2]} }`, new(w[json.RawMessage]), w[json.RawMessage]{json.RawMessage(`{"a": [1, 2]}`)}},
		{"raw null stays nil", `{"v":null}`, new(w[json.RawMessage]), w[json.RawMessage]{}},
		{"any generic with json.Number", `{"v":{"n":1,"l":[true,"s"]}}`, new(w[any]),
			w[any]{map[string]any{"n": json.Number("1"), "l": []any{true, "s"}}}},
		{"any scalar", `{"v":"s"}`, new(w[any]), w[any]{"s"}},
		{"map[string]any", `{"v":{"x":1.5}}`, new(w[map[string]any]), w[map[string]any]{map[string]any{"x": json.Number("1.5")}}},
		{"map[string]any null untouched", `{"v":null}`, new(w[map[string]any]), w[map[string]any]{}},
		{"raw pointer", `{"v":[1]}`, new(w[*json.RawMessage]), w[*json.RawMessage]{ptr(json.RawMessage(`[1]`))}},

		{"snake_case alias", `{"page_size":5,"page_start":"p"}`, new(QueryParams), QueryParams{PageSize: 5, PageStart: "p"}},
		{"snake_case with digits", `{"n_int32":4,"doc_xml":"x"}`, new(Rich), Rich{NInt32: 4, DocXML: "x"}},
		{"untagged field", `{"noTag":"a"}`, new(Rich), Rich{NoTag: "a"}},
		{"case-sensitive names", `{"PageSize":5,"PAGESIZE":6,"pagesize":7}`, new(QueryParams), QueryParams{}},
		{"skipped fields not settable", `{"skip":"x","Skip":"x","hidden":"x","-":"x"}`, new(Rich), Rich{}},
		{"unknown fields at every depth", `{"x":{"y":[1,{"z":null}]},"qpar":{"bogus":[{}],"pageSize":3},"templateId":{"nope":1}}`,
			new(Rich), Rich{Qpar: QueryParams{PageSize: 3}, TemplateID: &Ref{}}},
		{"duplicate key last wins", `{"pageSize":1,"pageSize":2}`, new(QueryParams), QueryParams{PageSize: 2}},
		{"alias then camel", `{"page_size":1,"pageSize":2}`, new(QueryParams), QueryParams{PageSize: 2}},
		{"camel then alias", `{"pageSize":2,"page_size":1}`, new(QueryParams), QueryParams{PageSize: 1}},
		{"duplicate message replaces", `{"qpar":{"pageSize":1},"qpar":{"pageStart":"x"}}`, new(Rich), Rich{Qpar: QueryParams{PageStart: "x"}}},
		{"nested", `{"qpar":{"filter":[{"field":"f","op":"eq","value":"1"}]},"next":{"next":{"s":"deep"}}}`, new(Rich),
			Rich{Qpar: QueryParams{Filter: []Filter{{"f", "eq", "1"}}}, Next: &Rich{Next: &Rich{S: "deep"}}}},
		{"anonymous struct", `{"anon":{"x":3}}`, new(Rich), Rich{Anon: struct {
			X int32 `json:"x"`
		}{3}}},

		{"empty body untouched", ``, &w[int32]{5}, w[int32]{5}},
		{"whitespace body untouched", " \r\n\t ", &w[int32]{5}, w[int32]{5}},
		{"top-level null untouched", ` null `, &w[int32]{5}, w[int32]{5}},
		{"whitespace around object", "\n {\"v\":1} \n", new(w[int32]), w[int32]{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := codec.Unmarshal([]byte(tc.body), tc.dst); err != nil {
				t.Fatalf("Unmarshal(%s): %v", tc.body, err)
			}
			if got := reflect.ValueOf(tc.dst).Elem().Interface(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Unmarshal(%s)\n got: %#v\nwant: %#v", tc.body, got, tc.want)
			}
		})
	}
}

func TestUnmarshalNaN(t *testing.T) {
	for _, body := range []string{`{"v":"NaN"}`} {
		var f w[float64]
		if err := codec.Unmarshal([]byte(body), &f); err != nil || !math.IsNaN(f.V) {
			t.Errorf("Unmarshal(%s) = %v, %v; want NaN", body, f.V, err)
		}
		var f32 w[float32]
		if err := codec.Unmarshal([]byte(body), &f32); err != nil || !math.IsNaN(float64(f32.V)) {
			t.Errorf("Unmarshal(%s) float32 = %v, %v; want NaN", body, f32.V, err)
		}
	}
}

// TestUnmarshalErrors checks that client mistakes are *codec.Error with the
// right field path and reason.
func TestUnmarshalErrors(t *testing.T) {
	tests := []struct {
		name   string
		body   string
		dst    any
		field  string
		reason string // substring of Reason
	}{
		{"int32 overflow", `{"qpar":{"pageSize":2147483648}}`, new(Rich), "qpar.pageSize", "value out of range for int32"},
		{"int32 overflow via snake path", `{"qpar":{"page_size":"1e10"}}`, new(Rich), "qpar.pageSize", "value out of range for int32"},
		{"int8 overflow", `{"i8":128}`, new(Rich), "i8", "value out of range for int8"},
		{"uint32 negative", `{"u32":-1}`, new(Rich), "u32", "value out of range for uint32"},
		{"uint64 overflow", `{"u64":"18446744073709551616"}`, new(Rich), "u64", "value out of range for uint64"},
		{"int64 overflow", `{"i64":"9223372036854775808"}`, new(Rich), "i64", "value out of range for int64"},
		{"int64 huge exponent", `{"i64":1e400}`, new(Rich), "i64", "value out of range for int64"},
		{"int64 enormous exponent", `{"i64":"1e99999999999999"}`, new(Rich), "i64", "value out of range for int64"},
		{"int fraction", `{"nInt32":1.5}`, new(Rich), "nInt32", "not an integer"},
		{"int tiny exponent", `{"nInt32":"1e-1"}`, new(Rich), "nInt32", "not an integer"},
		{"int garbage string", `{"nInt32":"abc"}`, new(Rich), "nInt32", `invalid number "abc"`},
		{"int leading space", `{"nInt32":" 1"}`, new(Rich), "nInt32", "invalid number"},
		{"int plus sign", `{"nInt32":"+1"}`, new(Rich), "nInt32", "invalid number"},
		{"int leading zero", `{"nInt32":"01"}`, new(Rich), "nInt32", "invalid number"},
		{"int hex", `{"nInt32":"0x10"}`, new(Rich), "nInt32", "invalid number"},
		{"int empty string", `{"nInt32":""}`, new(Rich), "nInt32", "invalid number"},
		{"int bool", `{"nInt32":true}`, new(Rich), "nInt32", "expected integer, got boolean"},
		{"int array", `{"nInt32":[1]}`, new(Rich), "nInt32", "expected integer, got array"},
		{"int object", `{"i64":{}}`, new(Rich), "i64", "expected integer, got object"},
		{"float overflow", `{"f64":1e309}`, new(Rich), "f64", "value out of range for float64"},
		{"float32 overflow", `{"f32":1e39}`, new(Rich), "f32", "value out of range for float32"},
		{"float lowercase nan", `{"f64":"nan"}`, new(Rich), "f64", `invalid number "nan"`},
		{"float Inf spelling", `{"f64":"Inf"}`, new(Rich), "f64", "invalid number"},
		{"float bare NaN token", `{"f64":NaN}`, new(Rich), "", "malformed JSON"},
		{"bool from string", `{"b":"true"}`, new(Rich), "b", "expected boolean, got string"},
		{"bool from number", `{"b":1}`, new(Rich), "b", "expected boolean, got number"},
		{"string from number", `{"s":5}`, new(Rich), "s", "expected string, got number"},
		{"string from object", `{"s":{}}`, new(Rich), "s", "expected string, got object"},
		{"enum unknown name", `{"state":"active"}`, new(Rich), "state", `unknown enum value "active" for State`},
		{"enum out of int32", `{"state":2147483648}`, new(Rich), "state", "value out of range for int32"},
		{"enum fraction", `{"state":1.5}`, new(Rich), "state", "not an integer"},
		{"enum bool", `{"state":true}`, new(Rich), "state", "expected enum name or number, got boolean"},
		{"enum list element", `{"states":["ACTIVE","NOPE"]}`, new(Rich), "states[1]", `unknown enum value "NOPE"`},
		{"bytes bad", `{"data":"!!!!"}`, new(Rich), "data", "invalid base64"},
		{"bytes mixed alphabets", `{"data":"a+b_"}`, new(Rich), "data", "invalid base64"},
		{"bytes number", `{"data":5}`, new(Rich), "data", "expected base64 string, got number"},
		{"time not RFC 3339", `{"at":"2024-01-02"}`, new(Rich), "at", "invalid RFC 3339 timestamp"},
		{"time without zone", `{"at":"2024-01-02T03:04:05"}`, new(Rich), "at", "invalid RFC 3339 timestamp"},
		{"time year zero", `{"at":"0000-06-01T00:00:00Z"}`, new(Rich), "at", "before 0001-01-01"},
		{"time number", `{"atPtr":1}`, new(Rich), "atPtr", "expected RFC 3339 timestamp string, got number"},
		{"list from object", `{"ids":{}}`, new(Rich), "ids", "expected array, got object"},
		{"list from string", `{"ids":"a"}`, new(Rich), "ids", "expected array, got string"},
		{"list element", `{"nums":["1","x"]}`, new(Rich), "nums[1]", `invalid number "x"`},
		{"message from array", `{"qpar":[]}`, new(Rich), "qpar", "expected object, got array"},
		{"message pointer from string", `{"templateId":"x"}`, new(Rich), "templateId", "expected object, got string"},
		{"map from array", `{"labels":[]}`, new(Rich), "labels", "expected object, got array"},
		{"map value", `{"labels":{"env":1}}`, new(Rich), `labels["env"]`, "expected string, got number"},
		{"map of messages value", `{"refs":{"a.b":{"id":2}}}`, new(Rich), `refs["a.b"].id`, "expected string, got number"},
		{"map[string]any from array", `{"meta":[1]}`, new(Rich), "meta", "expected object, got array"},
		{"map[string]any from bool", `{"meta":true}`, new(Rich), "meta", "expected object, got boolean"},
		{"deep path", `{"qpar":{"filter":[{},{"op":5}]}}`, new(Rich), "qpar.filter[1].op", "expected string, got number"},
		{"recursive path", `{"next":{"next":{"qpar":{"pageSize":"x"}}}}`, new(Rich), "next.next.qpar.pageSize", "invalid number"},

		{"top-level array", `[]`, new(Rich), "", "expected a JSON object, got array"},
		{"top-level string", `"x"`, new(Rich), "", "expected a JSON object, got string"},
		{"top-level number", `1`, new(Rich), "", "expected a JSON object, got number"},
		{"trailing garbage", `{"s":"a"} x`, new(Rich), "", "malformed JSON at offset 10: invalid character 'x' after top-level value"},
		{"two objects", `{}{}`, new(Rich), "", "malformed JSON at offset 2: invalid character '{' after top-level value"},
		{"trailing after null", `null null`, new(Rich), "", "after top-level value"},
		{"truncated", `{"s":"a"`, new(Rich), "", "unexpected end of JSON input"},
		{"truncated after colon", `{"s":`, new(Rich), "", "unexpected end of JSON input"},
		{"truncated in unknown", `{"zz":[1,`, new(Rich), "", "unexpected end of JSON input"},
		{"missing value", `{"s":}`, new(Rich), "", "malformed JSON at offset 5"},
		{"trailing comma", `{"s":"a",}`, new(Rich), "", "malformed JSON"},
		{"trailing comma in list", `{"ids":["a",]}`, new(Rich), "", "malformed JSON"},
		{"missing comma", `{"s":"a" "b":1}`, new(Rich), "", "malformed JSON"},
		{"single quotes", `{'s':'a'}`, new(Rich), "", "malformed JSON"},
		{"malformed unknown value", `{"zz":[1 2]}`, new(Rich), "", "malformed JSON"},
		{"BOM", "\xef\xbb\xbf{}", new(Rich), "", "byte order mark"},
		{"invalid UTF-8 in string", "{\"s\":\"a\xffb\"}", new(Rich), "", "invalid UTF-8 at offset 7"},
		{"invalid UTF-8 in unknown field", "{\"zz\":\"\xc3\"}", new(Rich), "", "invalid UTF-8 at offset 7"},
		{"deep unknown nesting", `{"zz":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, new(Rich), "", "exceeded max depth"},
		{"deep recursive message", strings.Repeat(`{"next":`, 10001) + `{}` + strings.Repeat(`}`, 10001), new(Rich), "", "exceeded max depth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := codec.Unmarshal([]byte(tc.body), tc.dst)
			var ce *codec.Error
			if !errors.As(err, &ce) {
				t.Fatalf("Unmarshal(%.80s) error = %v (%T), want *codec.Error", tc.body, err, err)
			}
			if ce.Field != tc.field {
				t.Errorf("Field = %q, want %q (reason %q)", ce.Field, tc.field, ce.Reason)
			}
			if !strings.Contains(ce.Reason, tc.reason) {
				t.Errorf("Reason = %q, want it to contain %q", ce.Reason, tc.reason)
			}
		})
	}
}

func TestUnmarshalPrettyPrinted(t *testing.T) {
	compact, err := codec.Marshal(sampleRich())
	if err != nil {
		t.Fatal(err)
	}
	for _, indent := range []string{"  ", "\t"} {
		var pretty bytes.Buffer
		if err := json.Indent(&pretty, compact, "\r\n", indent); err != nil {
			t.Fatal(err)
		}
		var r Rich
		if err := codec.Unmarshal(pretty.Bytes(), &r); err != nil {
			t.Fatalf("indent %q: %v", indent, err)
		}
		again, err := codec.Marshal(&r)
		if err != nil {
			t.Fatal(err)
		}
		// Raw values keep their inner whitespace, so compare after compacting.
		var got bytes.Buffer
		if err := json.Compact(&got, again); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(compact) {
			t.Errorf("indent %q: pretty-printed body decoded differently\n got: %s\nwant: %s", indent, got.String(), compact)
		}
	}
}

func TestRawMessageDoesNotAliasInput(t *testing.T) {
	body := []byte(`{"v":[1,2]}`)
	var r w[json.RawMessage]
	if err := codec.Unmarshal(body, &r); err != nil {
		t.Fatal(err)
	}
	copy(body, `{"v":[9,9]}`) // callers reuse request buffers
	if string(r.V) != `[1,2]` {
		t.Errorf("raw = %s after the input buffer changed", r.V)
	}
}

// TestDeepButLegal decodes and re-encodes a recursive message just inside
// encoding/json's nesting limit, which also bounds our recursion.
func TestDeepButLegal(t *testing.T) {
	const depth = 9998
	body := strings.Repeat(`{"next":`, depth) + `{"s":"leaf"}` + strings.Repeat(`}`, depth)
	var r Rich
	if err := codec.Unmarshal([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	n := 0
	for p := &r; p.Next != nil; p = p.Next {
		n++
	}
	if n != depth {
		t.Fatalf("decoded depth %d, want %d", n, depth)
	}
	if _, err := codec.Marshal(&r); err != nil {
		t.Fatalf("Marshal: %v", err)
	}
}

func TestErrorString(t *testing.T) {
	var r Rich
	err := codec.Unmarshal([]byte(`{"qpar":{"pageSize":"99999999999"}}`), &r)
	if got, want := err.Error(), `invalid value for field "qpar.pageSize": value out of range for int32`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	err = codec.Unmarshal([]byte(`[]`), &r)
	if got, want := err.Error(), "invalid request body: expected a JSON object, got array"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestUnmarshalBadTarget(t *testing.T) {
	for name, dst := range map[string]any{
		"nil":              nil,
		"non-pointer":      Rich{},
		"nil pointer":      (*Rich)(nil),
		"pointer to int":   new(int),
		"pointer to time":  new(time.Time),
		"unsupported type": new(w[chan int]),
	} {
		err := codec.Unmarshal([]byte(`{}`), dst)
		var ce *codec.Error
		if err == nil || errors.As(err, &ce) {
			t.Errorf("%s: error = %v, want a plain (non-*codec.Error) error", name, err)
		}
	}
}

func TestRoundTrip(t *testing.T) {
	for name, in := range map[string]*Rich{"sample": sampleRich(), "zero": {}} {
		t.Run(name, func(t *testing.T) {
			out, err := codec.Marshal(in)
			if err != nil {
				t.Fatal(err)
			}
			var back Rich
			if err := codec.Unmarshal(out, &back); err != nil {
				t.Fatalf("Unmarshal(own output): %v\n%s", err, out)
			}
			again, err := codec.Marshal(&back)
			if err != nil {
				t.Fatal(err)
			}
			if string(again) != string(out) {
				t.Errorf("re-encoding differs\nfirst:  %s\nsecond: %s", out, again)
			}
			if name != "sample" {
				return
			}
			// Typed fields come back identical; generic ones (any, map[string]any)
			// hold json.Number instead of float64, and [] decodes to an empty
			// rather than nil list, so those are covered by the re-encoding check.
			for _, c := range []struct {
				field     string
				got, want any
			}{
				{"b", back.B, in.B}, {"i8", back.I8, in.I8}, {"nInt32", back.NInt32, in.NInt32}, {"u32", back.U32, in.U32},
				{"i64", back.I64, in.I64}, {"u64", back.U64, in.U64}, {"int", back.Int, in.Int},
				{"f32", back.F32, in.F32}, {"f64", back.F64, in.F64}, {"s", back.S, in.S}, {"data", back.Data, in.Data},
				{"state", back.State, in.State}, {"states", back.States, in.States}, {"statePtr", back.StatePtr, in.StatePtr},
				{"at", back.At, in.At}, {"atPtr", back.AtPtr, in.AtPtr}, {"times", back.Times, in.Times},
				{"raw", back.Raw, in.Raw}, {"labels", back.Labels, in.Labels}, {"refs", back.Refs, in.Refs},
				{"counts", back.Counts, in.Counts}, {"qpar", back.Qpar, in.Qpar}, {"templateId", back.TemplateID, in.TemplateID},
				{"ids", back.IDs, in.IDs}, {"nums", back.Nums, in.Nums}, {"opt", back.Opt, in.Opt},
				{"docXml", back.DocXML, in.DocXML}, {"noTag", back.NoTag, in.NoTag}, {"anon", back.Anon, in.Anon},
				{"next.s", back.Next.S, in.Next.S},
			} {
				if !reflect.DeepEqual(c.got, c.want) {
					t.Errorf("%s: got %#v, want %#v", c.field, c.got, c.want)
				}
			}
		})
	}
}
