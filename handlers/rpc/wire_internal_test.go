package rpc

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// TestLengthsWrittenInPlace: a length-delimited field written in place
// (openBytes, content, closeBytes) is byte for byte the field written
// from a copy of its content, at every size where the length's varint
// grows, and nested, where an inner field's length moves the outer one's
// content.
func TestLengthsWrittenInPlace(t *testing.T) {
	for _, n := range []int{0, 1, 126, 127, 128, 129, 16382, 16383, 16384, 2097151, 2097152} {
		content := bytes.Repeat([]byte{'x'}, n)
		prefix := []byte("before")

		want := protowire.AppendBytes(protowire.AppendTag(append([]byte(nil), prefix...), 7, protowire.BytesType), content)
		got, at := openBytes(append([]byte(nil), prefix...), 7)
		got = closeBytes(append(got, content...), at)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: in place %x…, copied %x…", n, got[:min(len(got), 12)], want[:min(len(want), 12)])
		}

		inner := protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), content)
		want = protowire.AppendBytes(protowire.AppendTag(append([]byte(nil), prefix...), 1, protowire.BytesType), append(inner, 'z'))
		got, outer := openBytes(append([]byte(nil), prefix...), 1)
		got, at = openBytes(got, 2)
		got = closeBytes(append(got, content...), at)
		got = closeBytes(append(got, 'z'), outer)
		if !bytes.Equal(got, want) {
			t.Fatalf("%d bytes nested: in place and copied differ", n)
		}
		if _, m := protowire.ConsumeBytes(got[len(prefix)+1:]); m != len(got)-len(prefix)-1 {
			t.Fatalf("%d bytes nested: the outer length does not cover its content", n)
		}
	}
}
