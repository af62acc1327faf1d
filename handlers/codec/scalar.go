package codec

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/wasteflow/wasteflow/rules/echo"
)

// Scalar conversions shared by request bodies and query parameters. They
// return plain errors carrying only the reason; callers attach the field path.

// setFromString sets a scalar from its string form: a JSON string in a body,
// or a raw query parameter value (query selects the query bool syntax).
func setFromString(ti *typeInfo, v reflect.Value, s string, query bool) error {
	switch ti.kind {
	case kString:
		v.SetString(s)
	case kBool:
		switch s {
		case "true", "1":
			v.SetBool(true)
		case "false", "0":
			v.SetBool(false)
		default:
			return fmt.Errorf("invalid boolean %s", quoted(s))
		}
	case kInt, kInt64, kUint, kUint64:
		return setNumber(ti, v, s, true)
	case kFloat32, kFloat64:
		switch s { // the non-finite values only exist in string form
		case "NaN":
			v.SetFloat(math.NaN())
		case "Infinity":
			v.SetFloat(math.Inf(1))
		case "-Infinity":
			v.SetFloat(math.Inf(-1))
		default:
			return setNumber(ti, v, s, true)
		}
	case kEnum:
		if n, ok := ti.enumByName[s]; ok {
			v.SetInt(int64(n))
			return nil
		}
		if s != "" && (s[0] == '-' || s[0] >= '0' && s[0] <= '9') {
			return setNumber(ti, v, s, true)
		}
		return fmt.Errorf("unknown enum value %s for %s", quoted(s), ti.t.Name())
	case kBytes:
		b, err := decodeBytes(s)
		if err != nil {
			return err
		}
		v.SetBytes(b)
	case kTime:
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return fmt.Errorf("invalid RFC 3339 timestamp %s", quoted(s))
		}
		if t = t.UTC(); t.Year() < 1 { // google.protobuf.Timestamp starts at 0001
			return fmt.Errorf("timestamp %s is before 0001-01-01T00:00:00Z", quoted(s))
		}
		v.Set(reflect.ValueOf(t))
	default:
		return fmt.Errorf("cannot set %v from a string", ti.t)
	}
	return nil
}

// setNumber sets a numeric or enum field from JSON number text s. fromString
// says s came from a string, where the grammar has not been checked yet.
func setNumber(ti *typeInfo, v reflect.Value, s string, fromString bool) error {
	switch ti.kind {
	case kFloat32, kFloat64:
		if fromString && !validNumber(s) {
			return fmt.Errorf("invalid number %s", quoted(s))
		}
		bits := v.Type().Bits()
		f, err := strconv.ParseFloat(s, bits)
		if err != nil { // grammar is valid, so this is ErrRange
			return fmt.Errorf("value out of range for float%d", bits)
		}
		v.SetFloat(f)
	case kUint, kUint64:
		bits := v.Type().Bits()
		n, err := parseUint(s, bits)
		if err != nil {
			return err
		}
		v.SetUint(n)
	case kEnum: // enums are int32 on the wire, whatever the Go kind
		n, err := parseInt(s, 32)
		if err != nil {
			return err
		}
		if v.OverflowInt(n) {
			return fmt.Errorf("value out of range for %v", v.Kind())
		}
		v.SetInt(n)
	default:
		n, err := parseInt(s, v.Type().Bits())
		if err != nil {
			return err
		}
		v.SetInt(n)
	}
	return nil
}

func parseInt(s string, bits int) (int64, error) {
	mag, neg, err := integerMagnitude(s)
	if err != nil && err != errOverflow {
		return 0, err
	}
	limit := uint64(1) << (bits - 1) // |min|; max is limit-1
	if err != nil || neg && mag > limit || !neg && mag >= limit {
		return 0, fmt.Errorf("value out of range for int%d", bits)
	}
	if neg {
		return -int64(mag), nil // wraps correctly for mag == 1<<63
	}
	return int64(mag), nil
}

func parseUint(s string, bits int) (uint64, error) {
	mag, neg, err := integerMagnitude(s)
	if err != nil && err != errOverflow {
		return 0, err
	}
	if err != nil || neg && mag != 0 || bits < 64 && mag >= 1<<bits {
		return 0, fmt.Errorf("value out of range for uint%d", bits)
	}
	return mag, nil
}

// errOverflow reports a magnitude beyond uint64; callers turn it into a
// message naming their own type.
var errOverflow = errors.New("overflow")

// integerMagnitude parses JSON number text that must denote an integer, as
// protojson does: exponents and zero fractions are fine ("1e3", "1.0"), and
// "-0" is 0.
func integerMagnitude(s string) (mag uint64, neg bool, err error) {
	n, ok := splitNumber(s)
	if !ok {
		return 0, false, fmt.Errorf("invalid number %s", quoted(s))
	}
	digits, exp := n.intPart, 0
	if n.fracPart != "" || n.exp != 0 {
		// Slow path: normalise to digits * 10^exp without trailing zeros.
		digits = strings.TrimLeft(n.intPart+n.fracPart, "0")
		exp = n.exp - len(n.fracPart)
		for len(digits) > 0 && digits[len(digits)-1] == '0' {
			digits = digits[:len(digits)-1]
			exp++
		}
		if digits == "" {
			return 0, n.neg, nil
		}
		if exp < 0 {
			return 0, n.neg, errors.New("not an integer")
		}
		if len(digits)+exp > 20 { // more digits than any uint64
			return 0, n.neg, errOverflow
		}
		digits += strings.Repeat("0", exp)
	}
	mag, err = strconv.ParseUint(digits, 10, 64)
	if err != nil { // digits are valid, so this is ErrRange
		return 0, n.neg, errOverflow
	}
	return mag, n.neg, nil
}

type numberParts struct {
	neg               bool
	intPart, fracPart string
	exp               int // saturated to ±maxExp
}

const maxExp = 1 << 20

// splitNumber checks s against the JSON number grammar
// (-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?) and splits it. Strings in
// a body or query get the same strictness as JSON numbers, as in protojson.
func splitNumber(s string) (p numberParts, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		p.neg = true
		i++
	}
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	p.intPart = s[start:i]
	if p.intPart == "" || len(p.intPart) > 1 && p.intPart[0] == '0' {
		return p, false
	}
	if i < len(s) && s[i] == '.' {
		i++
		start = i
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if p.fracPart = s[start:i]; p.fracPart == "" {
			return p, false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		expNeg := false
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		start = i
		for ; i < len(s) && isDigit(s[i]); i++ {
			if p.exp < maxExp {
				p.exp = p.exp*10 + int(s[i]-'0')
			}
		}
		if i == start {
			return p, false
		}
		if expNeg {
			p.exp = -p.exp
		}
	}
	return p, i == len(s)
}

func validNumber(s string) bool { _, ok := splitNumber(s); return ok }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// decodeBytes accepts standard or URL-safe base64, padded or not, choosing
// the decoder exactly like protojson does.
func decodeBytes(s string) ([]byte, error) {
	enc := base64.StdEncoding
	if strings.ContainsAny(s, "-_") {
		enc = base64.URLEncoding
	}
	if len(s)%4 != 0 {
		enc = enc.WithPadding(base64.NoPadding)
	}
	b, err := enc.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("invalid base64 data: %v", err)
	}
	return b, nil
}

// quoted quotes a value the client sent for an error message, cut to its
// first echo.Max characters: an answer never echoes a large value back.
func quoted(s string) string { return echo.Quote(s) }
