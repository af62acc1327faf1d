package codec

// The gateway's JSON mapping through github.com/go-json-experiment/json,
// kept beside the codec as a measurement (issue 48 asked for the codec to
// move onto it): its options and per-type marshalers give the same bytes
// as Marshal for every field declared with a json tag, and
// BenchmarkMarshalGoJSONv2 / BenchmarkUnmarshalGoJSONv2 weigh it against
// Marshal and Unmarshal in make bench. It is compiled into the tests only.

import (
	"encoding/json"
	"math"
	"reflect"
	"strconv"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
)

func writeRaw(enc *jsontext.Encoder, b []byte) error { return enc.WriteValue(b) }

var goJSONv2Marshal = jsonv2.JoinOptions(
	jsonv2.Deterministic(true),
	jsontext.AllowInvalidUTF8(true),
	jsontext.EscapeForJS(true),
	jsonv2.WithMarshalers(jsonv2.JoinMarshalers(
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v int64) error {
			var a [24]byte
			return writeRaw(enc, append(strconv.AppendInt(append(a[:0], '"'), v, 10), '"'))
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v int) error {
			var a [24]byte
			return writeRaw(enc, append(strconv.AppendInt(append(a[:0], '"'), int64(v), 10), '"'))
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, v uint64) error {
			var a [24]byte
			return writeRaw(enc, append(strconv.AppendUint(append(a[:0], '"'), v, 10), '"'))
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, f float64) error {
			if math.IsNaN(f) || math.IsInf(f, 0) {
				return writeRaw(enc, appendFloat(nil, f, 64))
			}
			return jsonv2.SkipFunc
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, t time.Time) error {
			var a [40]byte
			b, err := appendTime(a[:0], t)
			if err != nil {
				return err
			}
			return writeRaw(enc, b)
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, r json.RawMessage) error {
			if len(r) == 0 {
				return enc.WriteToken(jsontext.Null)
			}
			return writeRaw(enc, r)
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, m map[string]any) error {
			if m == nil {
				return enc.WriteToken(jsontext.Null)
			}
			return jsonv2.SkipFunc
		}),
		jsonv2.MarshalToFunc(func(enc *jsontext.Encoder, e Enum) error {
			names := e.EnumNames()
			n := reflect.ValueOf(e).Elem().Int() // an interface marshaler is given a pointer
			if n >= 0 && n < int64(len(names)) {
				return enc.WriteToken(jsontext.String(names[n]))
			}
			return enc.WriteToken(jsontext.Int(n))
		}),
	)),
)

// MarshalGoJSONv2 is Marshal through go-json-experiment. Unlike Marshal
// it names a field without a json tag by its Go name and inlines an
// embedded struct (go-json-experiment's rules).
func MarshalGoJSONv2(v any) ([]byte, error) { return jsonv2.Marshal(v, goJSONv2Marshal) }

var goJSONv2Unmarshal = jsonv2.JoinOptions(jsonv2.WithUnmarshalers(jsonv2.JoinUnmarshalers(
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *int64) error {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(tok.String(), 10, 64)
		*v = n
		return err
	}),
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *int) error {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		n, err := strconv.ParseInt(tok.String(), 10, 64)
		*v = int(n)
		return err
	}),
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *uint64) error {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		n, err := strconv.ParseUint(tok.String(), 10, 64)
		*v = n
		return err
	}),
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v *time.Time) error {
		tok, err := dec.ReadToken()
		if err != nil || tok.Kind() == 'n' {
			return err
		}
		t, err := time.Parse(time.RFC3339Nano, tok.String())
		*v = t
		return err
	}),
	jsonv2.UnmarshalFromFunc(func(dec *jsontext.Decoder, v Enum) error {
		tok, err := dec.ReadToken()
		if err != nil {
			return err
		}
		for i, n := range v.EnumNames() {
			if n == tok.String() {
				reflect.ValueOf(v).Elem().SetInt(int64(i))
				return nil
			}
		}
		return nil
	}),
)))

// UnmarshalGoJSONv2 decodes through go-json-experiment with per-type
// unmarshalers for what the mapping needs beyond its defaults. It is a
// lower bound of the cost, not a replacement: go-json-experiment has no
// alias for a field (protojson's snake_case names), and this does not
// check limits, refuse NUL, keep a field given as null or name the field
// of an error as Unmarshal does.
func UnmarshalGoJSONv2(b []byte, v any) error { return jsonv2.Unmarshal(b, v, goJSONv2Unmarshal) }
