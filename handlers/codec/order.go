package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// OrderProperties rewrites a JSON document (an OpenAPI description) so
// that every "properties" object whose schema carries "x-order" lists its
// properties in that order (the declaration's, which is the official
// form's), the properties x-order does not name after them; everything
// else keeps its order. encoding/json writes a map's keys sorted, which is
// how the description is first rendered.
func OrderProperties(doc []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.UseNumber()
	v, err := readOrdered(dec)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := writeOrdered(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// object is a JSON object with its keys in order.
type object struct {
	keys []string
	vals map[string]any
}

func readOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := &object{vals: map[string]any{}}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("codec: object key %v", kt)
				}
				v, err := readOrdered(dec)
				if err != nil {
					return nil, err
				}
				if _, dup := o.vals[k]; !dup {
					o.keys = append(o.keys, k)
				}
				o.vals[k] = v
			}
			_, err := dec.Token() // '}'
			reorder(o)
			return o, err
		case '[':
			var a []any
			for dec.More() {
				v, err := readOrdered(dec)
				if err != nil {
					return nil, err
				}
				a = append(a, v)
			}
			if a == nil {
				a = []any{}
			}
			_, err := dec.Token() // ']'
			return a, err
		}
		return nil, fmt.Errorf("codec: unexpected %v", t)
	default:
		return tok, nil
	}
}

// reorder orders o's "properties" by o's "x-order".
func reorder(o *object) {
	props, ok := o.vals["properties"].(*object)
	order, ok2 := o.vals["x-order"].([]any)
	if !ok || !ok2 {
		return
	}
	keys := make([]string, 0, len(props.keys))
	seen := map[string]bool{}
	for _, n := range order {
		if k, ok := n.(string); ok && !seen[k] {
			if _, has := props.vals[k]; has {
				keys = append(keys, k)
				seen[k] = true
			}
		}
	}
	for _, k := range props.keys {
		if !seen[k] {
			keys = append(keys, k)
		}
	}
	props.keys = keys
}

func writeOrdered(b *bytes.Buffer, v any) error {
	switch t := v.(type) {
	case *object:
		b.WriteByte('{')
		for i, k := range t.keys {
			if i > 0 {
				b.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			b.Write(kb)
			b.WriteByte(':')
			if err := writeOrdered(b, t.vals[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case []any:
		b.WriteByte('[')
		for i, e := range t {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeOrdered(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		vb, err := json.Marshal(t)
		if err != nil {
			return err
		}
		b.Write(vb)
	}
	return nil
}
