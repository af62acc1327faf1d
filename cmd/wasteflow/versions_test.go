package main

// A client sends the version of the document it read with every intent
// (DocumentRef.version is required, issue 44.12): the load tests track it
// from each answer and, when another party or the sweep changed the
// document meanwhile (409, code 10), take the version the refusal names
// and try again, as a client that reads the document again would.

// docVersion is the version of the document an answer carries (a kind's
// "document", or an acknowledged movement's "movement"); "" when none.
func docVersion(m map[string]any) string {
	for _, k := range []string{"document", "movement"} {
		if d, ok := m[k].(map[string]any); ok {
			if v, ok := d["version"].(string); ok {
				return v
			}
		}
	}
	return ""
}

// currentVersion is the version a stale request's refusal (409, code 10,
// ErrorInfo VERSION_MISMATCH) says the document is at; "" for any other
// answer.
func currentVersion(m map[string]any) string {
	if c, _ := m["code"].(float64); c != 10 {
		return ""
	}
	details, _ := m["details"].([]any)
	for _, x := range details {
		d, _ := x.(map[string]any)
		if md, ok := d["metadata"].(map[string]any); ok {
			if v, ok := md["currentVersion"].(string); ok {
				return v
			}
		}
	}
	return ""
}
