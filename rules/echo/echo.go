// Package echo bounds what a message repeats of a value a client sent: an
// answer that quotes a value (an id, a code, a name) never carries more
// than Max characters of it, however long the value was, so a 100 KB id
// is not sent back in its 404, and a log or a screen that shows the
// message stays readable.
//
// Every message that quotes a value formats it with %q through Sprintf
// (status.New and status.Wrap, the business errors' Checker.Add do) or
// quotes it with Quote (the codec's reasons and field paths).
package echo

import (
	"fmt"
	"reflect"
	"strconv"
	"unicode/utf8"
)

// Max is the most characters of a value a message repeats.
const Max = 64

// Quote is strconv.Quote(s) for s of at most Max characters; a longer s
// is cut to its first Max characters, followed by "… (N characters)".
func Quote(s string) string {
	if len(s) <= Max { // never more runes than bytes
		return strconv.Quote(s)
	}
	n := utf8.RuneCountInString(s)
	if n <= Max {
		return strconv.Quote(s)
	}
	i := 0
	for range Max {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return strconv.Quote(s[:i]) + fmt.Sprintf("… (%d characters)", n)
}

// Sprintf is fmt.Sprintf, but a string argument formatted with %q is
// quoted by Quote. Other verbs format as fmt's do: %s and %v are for the
// server's own words (states, lists, reasons), %q for what a client sent.
// A string argument is also one of a named string type without methods of
// its own for fmt (a code, a path).
func Sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, cut(args)...)
}

// Errorf is fmt.Errorf with the arguments Sprintf cuts: %w wraps as fmt's.
func Errorf(format string, args ...any) error {
	return fmt.Errorf(format, cut(args)...)
}

// cut returns args with each long string argument made a value; the
// caller's slice stays as it was.
func cut(args []any) []any {
	wrapped := false
	for i, a := range args {
		s, ok := longString(a)
		if !ok {
			continue
		}
		if !wrapped {
			args = append([]any(nil), args...)
			wrapped = true
		}
		args[i] = value(s)
	}
	return args
}

func longString(a any) (string, bool) {
	switch v := a.(type) {
	case string:
		return v, len(v) > Max
	case fmt.Formatter, fmt.Stringer, error:
		return "", false
	}
	if rv := reflect.ValueOf(a); rv.Kind() == reflect.String && rv.Len() > Max {
		return rv.String(), true
	}
	return "", false
}

// value is a string argument that Sprintf quotes with Quote.
type value string

func (v value) Format(f fmt.State, verb rune) {
	if verb == 'q' && !f.Flag('#') && !f.Flag('+') {
		_, _ = f.Write([]byte(Quote(string(v))))
		return
	}
	_, _ = fmt.Fprintf(f, fmt.FormatString(f, verb), string(v))
}
