package codec

import (
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// reader walks JSON text that encoding/json has already validated (and that
// is valid UTF-8). Because the structure is known to be well formed, commas
// and colons carry no information and are skipped like whitespace, and no
// method needs to report syntax errors. It replaces json.Decoder.Token,
// which boxes every token and was roughly 5x slower on typical bodies.
type reader struct {
	data []byte
	pos  int
}

// peek skips whitespace and separators and returns the first byte of the
// next value, or 0 at the end of the input.
func (r *reader) peek() byte {
	for ; r.pos < len(r.data); r.pos++ {
		switch c := r.data[r.pos]; c {
		case ' ', '\t', '\r', '\n', ',', ':':
		default:
			return c
		}
	}
	return 0
}

// more reports whether the current object or array has another member, and
// consumes the closing delimiter when it has not.
func (r *reader) more() bool {
	if c := r.peek(); c == '}' || c == ']' || c == 0 {
		r.pos++
		return false
	}
	return true
}

// literal consumes a number, true, false or null and returns its text.
func (r *reader) literal() []byte {
	start := r.pos
	for ; r.pos < len(r.data); r.pos++ {
		switch r.data[r.pos] {
		case ' ', '\t', '\r', '\n', ',', ':', '}', ']':
			return r.data[start:r.pos]
		}
	}
	return r.data[start:]
}

// key consumes a string and returns its unescaped bytes. Without escapes it
// returns a sub-slice of the input, so looking a field up allocates nothing.
func (r *reader) key() []byte {
	r.peek()
	start := r.pos + 1
	escaped := false
	i := start
	for ; r.data[i] != '"'; i++ {
		if r.data[i] == '\\' {
			escaped = true
			i++ // skip the escaped byte, which may be a quote
		}
	}
	r.pos = i + 1
	if !escaped {
		return r.data[start:i]
	}
	return unescape(r.data[start:i])
}

// str consumes a string value.
func (r *reader) str() string { return string(r.key()) }

// rawValue consumes the next value and returns its text.
func (r *reader) rawValue() []byte {
	r.peek()
	start := r.pos
	r.skip()
	return r.data[start:r.pos]
}

// skip consumes the next value without decoding it.
func (r *reader) skip() {
	switch r.peek() {
	case '"':
		r.key()
	case '{', '[':
		depth := 0
		for ; r.pos < len(r.data); r.pos++ {
			switch r.data[r.pos] {
			case '"':
				r.key()
				r.pos-- // the loop increment steps past the closing quote
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					r.pos++
					return
				}
			}
		}
	default:
		r.literal()
	}
}

// unescape decodes the escapes of a valid JSON string body exactly like
// encoding/json, including its treatment of unpaired surrogates (U+FFFD).
func unescape(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		c := b[i]
		if c != '\\' {
			out = append(out, c)
			i++
			continue
		}
		switch e := b[i+1]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r1 := hex4(b[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r1) {
				if i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
					if dec := utf16.DecodeRune(r1, hex4(b[i+2:i+6])); dec != unicode.ReplacementChar {
						out = utf8.AppendRune(out, dec)
						i += 6
						continue
					}
				}
				r1 = unicode.ReplacementChar
			}
			out = utf8.AppendRune(out, r1)
			continue
		default: // '"', '\\', '/'
			out = append(out, e)
		}
		i += 2
	}
	return out
}

func hex4(b []byte) rune {
	var r rune
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			c -= '0'
		case c >= 'a' && c <= 'f':
			c -= 'a' - 10
		default: // 'A'-'F'; validation guarantees a hex digit
			c -= 'A' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}
