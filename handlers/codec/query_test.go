package codec_test

import (
	"errors"
	"math"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

func TestUnmarshalQuery(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name  string
		query string
		dst   any
		want  any
	}{
		{"nested dotted path", "qpar.pageSize=20&qpar.pageStart=p2", new(Rich), Rich{Qpar: QueryParams{PageSize: 20, PageStart: "p2"}}},
		{"snake_case segments", "qpar.page_size=20&template_id.id=abc", new(Rich), Rich{Qpar: QueryParams{PageSize: 20}, TemplateID: &Ref{ID: "abc"}}},
		{"pointer message allocated", "templateId.id=abc", new(Rich), Rich{TemplateID: &Ref{ID: "abc"}}},
		{"repeated scalar", "ids=a&ids=b&ids=", new(Rich), Rich{IDs: []string{"a", "b", ""}}},
		{"repeated int64", "nums=1&nums=-2e1", new(Rich), Rich{Nums: []int64{1, -20}}},
		{"repeated enum mixed", "states=ARCHIVED&states=1", new(Rich), Rich{States: []State{StateArchived, StateActive}}},
		{"repeated time", "times=2024-01-02T04:04:05%2B01:00", new(Rich), Rich{Times: []time.Time{at}}},
		{"non-repeated last wins", "s=a&s=b", new(Rich), Rich{S: "b"}},
		{"bool true", "b=true", new(Rich), Rich{B: true}},
		{"bool 1", "b=1", new(Rich), Rich{B: true}},
		{"bool false", "b=false", &Rich{B: true}, Rich{}},
		{"bool 0", "b=0", &Rich{B: true}, Rich{}},
		{"ints from strings", "i8=-8&nInt32=32&u32=4000000000&i64=-64&u64=64&int=7", new(Rich),
			Rich{I8: -8, NInt32: 32, U32: 4000000000, I64: -64, U64: 64, Int: 7}},
		{"floats", "f32=0.5&f64=-Infinity", new(Rich), Rich{F32: 0.5, F64: math.Inf(-1)}},
		{"enum by name", "state=ACTIVE", new(Rich), Rich{State: StateActive}},
		{"enum by number", "state=2", new(Rich), Rich{State: StateArchived}},
		{"enum pointer", "statePtr=ARCHIVED", new(Rich), Rich{StatePtr: ptr(StateArchived)}},
		{"bytes url-safe unpadded", "data=aGk_Pg", new(Rich), Rich{Data: []byte("hi?>")}},
		{"bytes std padded", "data=aGk%2FPg%3D%3D", new(Rich), Rich{Data: []byte("hi?>")}},
		{"timestamp", "at=2024-01-02T03:04:05Z", new(Rich), Rich{At: at}},
		{"timestamp pointer", "atPtr=2024-01-02T03:04:05Z", new(Rich), Rich{AtPtr: &at}},
		{"scalar pointer", "opt=3", new(Rich), Rich{Opt: ptr(int32(3))}},
		{"untagged field", "noTag=x", new(Rich), Rich{NoTag: "x"}},
		{"deep recursion", "next.next.s=deep", new(Rich), Rich{Next: &Rich{Next: &Rich{S: "deep"}}}},
		{"anonymous struct", "anon.x=4", new(Rich), Rich{Anon: struct {
			X int32 `json:"x"`
		}{4}}},
		{"unknown paths ignored without allocating", "bogus=1&qpar.bogus=2&templateId.bogus=3&next.next.bogus=4&=5&a..b=6", new(Rich), Rich{}},
		{"case-sensitive", "S=1&QPAR.pageSize=3", new(Rich), Rich{}},
		{"skipped fields", "skip=1&hidden=2", new(Rich), Rich{}},
		{"empty query", "", new(Rich), Rich{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			if err := codec.UnmarshalQuery(q, tc.dst); err != nil {
				t.Fatalf("UnmarshalQuery(%s): %v", tc.query, err)
			}
			if got := reflect.ValueOf(tc.dst).Elem().Interface(); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("UnmarshalQuery(%s)\n got: %#v\nwant: %#v", tc.query, got, tc.want)
			}
		})
	}
}

func TestUnmarshalQueryNaN(t *testing.T) {
	var r Rich
	if err := codec.UnmarshalQuery(url.Values{"f64": {"NaN"}}, &r); err != nil || !math.IsNaN(r.F64) {
		t.Errorf("f64=NaN: got %v, %v", r.F64, err)
	}
}

func TestUnmarshalQueryErrors(t *testing.T) {
	tests := []struct {
		name   string
		query  string
		field  string
		reason string
	}{
		{"path through scalar", "qpar.pageSize.x=1", "qpar.pageSize", `cannot set "x": field is not a message`},
		{"path through scalar list", "ids.x=1", "ids", "field is not a message"},
		{"repeated message as path", "qpar.filter.op=eq", "qpar.filter", "repeated message fields"},
		{"repeated message as value", "qpar.filter=x", "qpar.filter", "repeated message fields"},
		{"message as value", "qpar=1", "qpar", "message fields cannot be set"},
		{"message pointer as value", "templateId=1", "templateId", "message fields cannot be set"},
		{"map as path", "labels.env=prod", "labels", "map fields cannot be set"},
		{"map as value", "labels=prod", "labels", "map fields cannot be set"},
		{"free-form", "meta=1", "meta", "free-form fields"},
		{"raw", "raw=1", "raw", "free-form fields"},
		{"snake path normalised in error", "qpar.page_size=abc", "qpar.pageSize", `invalid number "abc"`},
		{"int32 overflow", "qpar.pageSize=99999999999", "qpar.pageSize", "value out of range for int32"},
		{"int fraction", "nInt32=1.5", "nInt32", "not an integer"},
		{"uint negative", "u64=-1", "u64", "value out of range for uint64"},
		{"empty int", "nInt32=", "nInt32", "invalid number"},
		{"bad bool", "b=yes", "b", `invalid boolean "yes"`},
		{"bad bool case", "b=TRUE", "b", "invalid boolean"},
		{"unknown enum", "state=NOPE", "state", `unknown enum value "NOPE" for State`},
		{"enum out of range", "state=-2147483649", "state", "value out of range for int32"},
		{"bad float", "f64=1,5", "f64", "invalid number"},
		{"bad bytes", "data=***", "data", "invalid base64"},
		{"bad time", "at=yesterday", "at", "invalid RFC 3339 timestamp"},
		{"bad repeated element", "nums=1&nums=x", "nums[1]", `invalid number "x"`},
		{"bad repeated enum", "states=ACTIVE&states=NOPE", "states[1]", "unknown enum value"},
		{"nested bad value", "next.qpar.pageSize=x", "next.qpar.pageSize", "invalid number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			q, err := url.ParseQuery(tc.query)
			if err != nil {
				t.Fatal(err)
			}
			err = codec.UnmarshalQuery(q, new(Rich))
			var ce *codec.Error
			if !errors.As(err, &ce) {
				t.Fatalf("UnmarshalQuery(%s) error = %v (%T), want *codec.Error", tc.query, err, err)
			}
			if ce.Field != tc.field {
				t.Errorf("Field = %q, want %q", ce.Field, tc.field)
			}
			if !strings.Contains(ce.Reason, tc.reason) {
				t.Errorf("Reason = %q, want it to contain %q", ce.Reason, tc.reason)
			}
		})
	}
}

func TestUnmarshalQueryBadTarget(t *testing.T) {
	err := codec.UnmarshalQuery(url.Values{"a": {"1"}}, Rich{})
	var ce *codec.Error
	if err == nil || errors.As(err, &ce) {
		t.Errorf("error = %v, want a plain error", err)
	}
}
