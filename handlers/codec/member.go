package codec

// UnmarshalMember decodes the member of the JSON object raw that pick
// chooses, straight from raw: pick sees the key of each member whose value
// is not null, in order, and returns the target to decode it into (a
// pointer to a struct the codec describes) or nil to skip it; an error
// from pick stops the walk and is returned as is. Errors of the decoding
// name the field below the key ("annex7.carriers[0]").
//
// raw must be a json.RawMessage the codec decoded (a field of a request):
// valid JSON and valid UTF-8, which is not checked again. So a
// SetByIntent's document is read once, where pickDocument unmarshalled it
// into a map and then the member again.
func UnmarshalMember(raw []byte, pick func(key string) (any, error)) error {
	r := reader{data: raw}
	if c := r.peek(); c != '{' {
		return &Error{Reason: "expected a JSON object, got " + jsonType(c)}
	}
	r.pos++
	for r.more() {
		key := string(r.key())
		if r.peek() == 'n' {
			r.skip()
			continue
		}
		into, err := pick(key)
		if err != nil {
			return err
		}
		if into == nil {
			r.skip()
			continue
		}
		rv, ti, err := target(into)
		if err != nil {
			return err
		}
		if r.peek() != '{' {
			return &Error{Field: key, Reason: "expected a JSON object, got " + jsonType(r.peek())}
		}
		r.pos++
		d := decoder{r: r, strict: IsStrict(rv.Type()), path: []pathSeg{{name: key, index: -1}}}
		if err := d.object(ti, rv, nil); err != nil {
			return err
		}
		r = d.r
	}
	return nil
}

// Member returns the value of the top-level member key of the JSON object
// raw (as UnmarshalMember takes it), nil when it has none; the other
// members are skipped, not decoded.
func Member(raw []byte, key string) []byte {
	r := reader{data: raw}
	if r.peek() != '{' {
		return nil
	}
	r.pos++
	for r.more() {
		if string(r.key()) == key {
			return r.rawValue()
		}
		r.skip()
	}
	return nil
}
