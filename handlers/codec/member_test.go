package codec_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

type memberDoc struct {
	ID    string   `json:"id"`
	Count int32    `json:"count"`
	Tags  []string `json:"tags"`
}

func TestUnmarshalMember(t *testing.T) {
	var seen []string
	var got memberDoc
	err := codec.UnmarshalMember([]byte(`{"other": {"x": [1, {"y": "}"}]}, "none": null, "doc": {"id": "a", "count": 3, "tags": ["t"]}, "after": 1}`),
		func(key string) (any, error) {
			seen = append(seen, key)
			if key == "doc" {
				return &got, nil
			}
			return nil, nil
		})
	if err != nil || got.ID != "a" || got.Count != 3 || len(got.Tags) != 1 {
		t.Fatalf("decoded %+v, %v", got, err)
	}
	if want := "other,doc,after"; strings.Join(seen, ",") != want { // a null member is not offered
		t.Fatalf("keys offered: %s, want %s", strings.Join(seen, ","), want)
	}

	// A decoding error names the field below the member's key.
	var bad memberDoc
	err = codec.UnmarshalMember([]byte(`{"doc": {"count": "three"}}`), func(string) (any, error) { return &bad, nil })
	var ce *codec.Error
	if !errors.As(err, &ce) || ce.Field != "doc.count" {
		t.Fatalf("a bad field: %v", err)
	}
	err = codec.UnmarshalMember([]byte(`{"doc": "text"}`), func(string) (any, error) { return &bad, nil })
	if !errors.As(err, &ce) || ce.Field != "doc" {
		t.Fatalf("a member that is no object: %v", err)
	}
	err = codec.UnmarshalMember([]byte(`[1]`), func(string) (any, error) { return &bad, nil })
	if !errors.As(err, &ce) || ce.Field != "" {
		t.Fatalf("an array: %v", err)
	}

	// pick's error stops the walk.
	stop := errors.New("stop")
	n := 0
	err = codec.UnmarshalMember([]byte(`{"a": 1, "b": 2}`), func(string) (any, error) { n++; return nil, stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("pick's error: %v after %d keys", err, n)
	}

	if v := string(codec.Member([]byte(`{"id": {"k": "}"}, "kind": "ANNEX_VII"}`), "kind")); v != `"ANNEX_VII"` {
		t.Fatalf("Member: %s", v)
	}
	if v := codec.Member([]byte(`{"id": 1}`), "kind"); v != nil {
		t.Fatalf("Member of a missing key: %s", v)
	}
}
