package models

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// flatJSON reads what Load aggregates: a JSON array of flat arrays
// whose values are strings, integers or null. It is a fraction of
// encoding/json's cost without reflection, and on a transition the
// deadlines were a fifth of the server's CPU.
type flatJSON struct {
	b []byte
	i int
}

// flatValue is one value: a string (unescaped), an integer or null.
type flatValue struct {
	str  string
	num  int64
	null bool
}

func (p *flatJSON) skipSpace() {
	for p.i < len(p.b) && (p.b[p.i] == ' ' || p.b[p.i] == '\n' || p.b[p.i] == '\t' || p.b[p.i] == '\r') {
		p.i++
	}
}

func (p *flatJSON) consume(c byte) bool {
	p.skipSpace()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *flatJSON) errorf(want string) error {
	return fmt.Errorf("aggregated JSON: want %s at offset %d", want, p.i)
}

func (p *flatJSON) str() (string, error) {
	p.skipSpace()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return "", p.errorf("a string")
	}
	start, escaped := p.i, false
	for p.i++; p.i < len(p.b); p.i++ {
		switch p.b[p.i] {
		case '\\':
			escaped = true
			p.i++
		case '"':
			p.i++
			if !escaped {
				return string(p.b[start+1 : p.i-1]), nil
			}
			var s string // escapes are rare: let encoding/json handle them
			err := json.Unmarshal(p.b[start:p.i], &s)
			return s, err
		}
	}
	return "", p.errorf("the end of a string")
}

func (p *flatJSON) value() (flatValue, error) {
	p.skipSpace()
	if p.i >= len(p.b) {
		return flatValue{}, p.errorf("a value")
	}
	switch c := p.b[p.i]; {
	case c == '"':
		s, err := p.str()
		return flatValue{str: s}, err
	case c == 'n' && len(p.b)-p.i >= 4 && string(p.b[p.i:p.i+4]) == "null":
		p.i += 4
		return flatValue{null: true}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		start := p.i
		for p.i++; p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9'; p.i++ {
		}
		n, err := strconv.ParseInt(string(p.b[start:p.i]), 10, 64)
		return flatValue{num: n}, err
	}
	return flatValue{}, p.errorf("a string, an integer or null")
}

// arrays calls field for each value of each array of the array (i its
// index), which must have n values, and done after each array.
func (p *flatJSON) arrays(n int, field func(i int, v flatValue) error, done func()) error {
	if !p.consume('[') {
		return p.errorf("[")
	}
	if p.consume(']') {
		return nil
	}
	for {
		if !p.consume('[') {
			return p.errorf("[")
		}
		for i := range n {
			if i > 0 && !p.consume(',') {
				return p.errorf(",")
			}
			v, err := p.value()
			if err != nil {
				return err
			}
			if err := field(i, v); err != nil {
				return fmt.Errorf("aggregated JSON: value %d: %w", i, err)
			}
		}
		if !p.consume(']') {
			return p.errorf(fmt.Sprintf("] after %d values", n))
		}
		done()
		if p.consume(',') {
			continue
		}
		if p.consume(']') {
			return nil
		}
		return p.errorf(", or ]")
	}
}

// parseDBTime reads a time as the databases render it in JSON:
// PostgreSQL's ISO 8601, or the text SQLite stores.
func parseDBTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02 15:04:05.999999999-07:00", "2006-01-02 15:04:05.999999999Z07:00", "2006-01-02 15:04:05.999999999"} {
		if v, err := time.Parse(layout, s); err == nil {
			return v.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q in an unknown format", s)
}
