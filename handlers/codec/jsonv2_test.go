package codec_test

import (
	"strings"
	"testing"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// TestGoJSONv2MarshalsTheSameBytes: the go-json-experiment mapping that
// BenchmarkMarshalGoJSONv2 weighs writes what Marshal writes, but for the
// one field Rich declares without a json tag.
func TestGoJSONv2MarshalsTheSameBytes(t *testing.T) {
	for _, v := range []*Rich{sampleRich(), {}} {
		want, err := codec.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := codec.MarshalGoJSONv2(v)
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.ReplaceAll(string(got), `"NoTag":`, `"noTag":`); s != string(want) {
			t.Errorf("go-json-experiment wrote\n%s\nMarshal\n%s", got, want)
		}
	}
}

func BenchmarkMarshalGoJSONv2(b *testing.B) {
	msg := sampleRich()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codec.MarshalGoJSONv2(msg); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUnmarshalGoJSONv2(b *testing.B) {
	body, err := codec.Marshal(sampleRich())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var r Rich
		if err := codec.UnmarshalGoJSONv2(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}
