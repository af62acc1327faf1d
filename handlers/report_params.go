package handlers

import (
	"errors"
	"net/http"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/wasteflow/wasteflow/handlers/api"
	"github.com/wasteflow/wasteflow/handlers/codec"
	"github.com/wasteflow/wasteflow/rules/echo"
	"github.com/wasteflow/wasteflow/workflows/status"
)

// Parameter errors name the parameter as the client typed it. The codec
// and the query checks name a field by its lowerCamel path
// ("qpar.pageSize", "dueFrom"); a client may have sent the snake_case
// spelling ("qpar.page_size", "due_from"), which the gateway accepts as
// well. asSent wraps an operation so that its INVALID_ARGUMENT answers use
// the client's spelling, in fieldViolations[].field, their descriptions
// and the message. Only on such an answer does it read the request again,
// into a probe that keeps both spellings apart.

// asSent wraps o's Get: its INVALID_ARGUMENT errors name fields as sent.
func asSent(o api.Operation) api.Operation {
	p := newSpellingProbe(o.Request, o.Verb == http.MethodGet)
	return api.MapErrors(o, p.respell)
}

// spellingProbe decodes a request into a struct with one field per
// spelling of each top-level field of the request type: a query string
// into []string fields (a string takes any value), a body into free-form
// fields, which keep the nested objects' keys as sent.
type spellingProbe struct {
	t     reflect.Type
	names []string // the probe's JSON names, in field order
}

func newSpellingProbe(req reflect.Type, query bool) *spellingProbe {
	if req == nil || req.Kind() != reflect.Struct {
		return nil
	}
	valueType := reflect.TypeFor[any]()
	if query {
		valueType = reflect.TypeFor[[]string]()
	}
	p := &spellingProbe{}
	var fields []reflect.StructField
	add := func(name string) {
		for _, n := range p.names {
			if n == name {
				return
			}
		}
		p.names = append(p.names, name)
		fields = append(fields, reflect.StructField{
			Name: "F" + strconv.Itoa(len(fields)), Type: valueType, Tag: reflect.StructTag(`json:"` + name + `"`),
		})
	}
	for i := 0; i < req.NumField(); i++ {
		sf := req.Field(i)
		name, _, _ := strings.Cut(sf.Tag.Get("json"), ",")
		if !sf.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			r, n := utf8.DecodeRuneInString(sf.Name)
			name = string(unicode.ToLower(r)) + sf.Name[n:]
		}
		add(name)
		add(codec.SnakeCase(name))
	}
	p.t = reflect.StructOf(fields)
	return p
}

// read decodes the request into the probe: the top-level fields sent, by
// the key sent, with their values (a query's values as a list).
func (p *spellingProbe) read(decode func(any) error) map[string]any {
	v := reflect.New(p.t)
	_ = decode(v.Interface()) // the probe takes any value; what it could not read stays unset
	sent := map[string]any{}
	for i, name := range p.names {
		switch f := v.Elem().Field(i).Interface().(type) {
		case []string:
			if len(f) > 0 {
				list := make([]any, len(f))
				for j, s := range f {
					list[j] = s
				}
				sent[name] = list
			}
		case nil:
		default:
			sent[name] = f
		}
	}
	return sent
}

// respell renames the fields of an INVALID_ARGUMENT error as sent.
func (p *spellingProbe) respell(decode func(any) error, err error) error {
	if p == nil || status.CodeOf(err) != status.InvalidArgument {
		return err
	}
	var sent map[string]any
	return renameViolations(err, func(field, description string) (string, string) {
		if sent == nil {
			sent = p.read(decode)
		}
		return spell(field, description, sent)
	})
}

var pathSegment = regexp.MustCompile(`^([A-Za-z0-9_]+)((?:\[[0-9]+\])*)$`)

// spell follows field (a dotted path such as "qpar.filter[0].operands[1]")
// through what was sent and writes each name as the client did; names of
// the object the violation is about are written so in description too.
func spell(field, description string, sent map[string]any) (string, string) {
	if field == "" {
		return field, description
	}
	var node any = sent
	renames := map[string]string{}
	segments := strings.Split(field, ".")
	for i, seg := range segments {
		m := pathSegment.FindStringSubmatch(seg)
		if m == nil {
			break // not a plain name: the rest stays as it is
		}
		name, key := m[1], m[1]
		obj, _ := node.(map[string]any)
		if _, ok := obj[name]; !ok {
			if s := codec.SnakeCase(name); s != name {
				if _, ok := obj[s]; ok {
					key = s
				}
			}
		}
		node = obj[key]
		if key != name {
			renames[name] = key
			segments[i] = key + m[2]
		}
		for _, idx := range strings.Split(strings.Trim(m[2], "[]"), "][") {
			if idx == "" {
				continue
			}
			j, _ := strconv.Atoi(idx)
			if list, ok := node.([]any); ok && j < len(list) {
				node = list[j]
			} else {
				node = nil
			}
		}
	}
	// "enum field "state" takes s, not nInt32" of {"n_int32": 3}
	if obj, ok := node.(map[string]any); ok {
		for key := range obj {
			if c := lowerCamel(key); c != key {
				if _, both := obj[c]; !both {
					renames[c] = key
				}
			}
		}
	}
	for canonical, key := range renames {
		description = replaceWord(description, canonical, key)
	}
	return strings.Join(segments, "."), description
}

// renameViolations rewrites the field violations of a code-3 error with
// rename, and its message with them; other errors pass unchanged.
func renameViolations(err error, rename func(field, description string) (string, string)) error {
	var se *status.Error
	if !errors.As(err, &se) || se.Code != status.InvalidArgument {
		return err
	}
	out := *se
	out.Details = make([]any, 0, len(se.Details))
	changed := false
	for _, d := range se.Details {
		br, ok := d.(status.BadRequest)
		if !ok {
			out.Details = append(out.Details, d)
			continue
		}
		nb := status.BadRequestOf()
		for _, v := range br.FieldViolations {
			field, description := rename(v.Field, v.Description)
			if field != v.Field || description != v.Description {
				changed = true
				out.Message = strings.Replace(out.Message, echo.Sprintf("field %q", v.Field), echo.Sprintf("field %q", field), 1)
				out.Message = strings.Replace(out.Message, v.Description, description, 1)
			}
			nb.FieldViolations = append(nb.FieldViolations, status.FieldViolation{Field: field, Description: description})
		}
		out.Details = append(out.Details, nb)
	}
	if !changed {
		return err
	}
	return &out
}

// replaceWord replaces the whole-word occurrences of old in s.
func replaceWord(s, old, repl string) string {
	word := func(b byte) bool { return b == '_' || '0' <= b && b <= '9' || 'a' <= b|0x20 && b|0x20 <= 'z' }
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		whole := (i == 0 || !word(s[i-1])) && (end == len(s) || !word(s[end]))
		b.WriteString(s[:i])
		if whole {
			b.WriteString(repl)
		} else {
			b.WriteString(old)
		}
		s = s[end:]
	}
}

// lowerCamel is the field name a snake_case key stands for.
func lowerCamel(s string) string {
	parts := strings.Split(s, "_")
	for i := 1; i < len(parts); i++ {
		if r, n := utf8.DecodeRuneInString(parts[i]); n > 0 {
			parts[i] = string(unicode.ToUpper(r)) + parts[i][n:]
		}
	}
	return strings.Join(parts, "")
}
