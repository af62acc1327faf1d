package codec_test

import (
	"bytes"
	"errors"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/wasteflow/wasteflow/handlers/codec"
)

// FuzzUnmarshal: any input either decodes or fails with *codec.Error, never
// panics, and whatever decodes re-encodes stably.
func FuzzUnmarshal(f *testing.F) {
	sample, err := codec.Marshal(sampleRich())
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{
		string(sample), richZeroJSON, ``, ` `, `null`, `{}`, `[]`, `"x"`, `1`, `{`, `}`, `{"s":}`, `{"s":"a",}`,
		`{"s":"a"} x`, "\xef\xbb\xbf{}", "{\"s\":\"\xff\"}", `{"s":"\ud800"}`,
		`{"qpar":{"page_size":"1e3","filter":[{"op":"eq"},null]}}`, `{"i64":"-0","u64":1e19,"nInt32":2147483648}`,
		`{"f64":"NaN","f32":"-Infinity","state":"ARCHIVED","states":[1,"ACTIVE",99]}`,
		`{"data":"aGk_Pg","at":"2024-01-02T03:04:05.123456789+05:30","atPtr":null}`,
		`{"raw":{"a":[1,{}]},"any":[1,"2",null],"meta":{"x":{"y":1}},"labels":{"a":"b"},"refs":{"k":{"id":"v"}}}`,
		`{"next":{"next":{"next":{"s":"deep"}}}}`, `{"zz":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`,
		`{"counts":{"a":"9223372036854775808"}}`, `{"at":"0001-01-01T00:00:00Z","times":["9999-12-31T23:59:59.999999999Z"]}`,
		`{"b":true,"b":"true","opt":"7","statePtr":"-1"}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var r Rich
		err := codec.Unmarshal(data, &r)
		if err != nil {
			var ce *codec.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, want *codec.Error: %v", err, err)
			}
			return
		}
		out, err := codec.Marshal(&r)
		if err != nil {
			t.Fatalf("Marshal after successful Unmarshal: %v", err)
		}
		var back Rich
		if err := codec.Unmarshal(out, &back); err != nil {
			t.Fatalf("Unmarshal of own output: %v\n%s", err, out)
		}
		again, err := codec.Marshal(&back)
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(out) {
			t.Fatalf("unstable re-encoding\nfirst:  %s\nsecond: %s", out, again)
		}
	})
}

func BenchmarkMarshal(b *testing.B) { benchMarshal(b, sampleRich()) }

// benchMarshal times Marshal of msg, its bytes per second beside.
func benchMarshal(b *testing.B, msg any) {
	out, _ := codec.Marshal(msg)
	b.SetBytes(int64(len(out)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := codec.Marshal(msg); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshalLarge: an answer of a thousand entries (a notification
// listing its movements), where the output buffer's growth shows.
func BenchmarkMarshalLarge(b *testing.B) {
	type many struct {
		Entries []Rich `json:"entries"`
	}
	msg := &many{Entries: make([]Rich, 1000)}
	for i := range msg.Entries {
		msg.Entries[i] = *sampleRich()
	}
	benchMarshal(b, msg)
}

func BenchmarkUnmarshal(b *testing.B) {
	body, err := codec.Marshal(sampleRich())
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		var r Rich
		if err := codec.Unmarshal(body, &r); err != nil {
			b.Fatal(err)
		}
	}
}

// FuzzUnmarshalQuery: any query string either decodes into a request or
// fails with *codec.Error, never panics (GET operations' decoder).
func FuzzUnmarshalQuery(f *testing.F) {
	for _, seed := range []string{
		"", "s=a", "qpar.pageSize=10&qpar.mask=doc.number", "i64=-9223372036854775808&u64=18446744073709551615", "state=ARCHIVED&states=1&states=ACTIVE",
		"at=2024-01-02T03:04:05Z", "next.next.s=deep", "labels[a]=b", "qpar.filter=x", "%zz", "data=aGk_Pg", "b=maybe", "opt=7&opt=8",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		var r Rich
		if err := codec.UnmarshalQuery(q, &r); err != nil {
			var ce *codec.Error
			if !errors.As(err, &ce) {
				t.Fatalf("error is %T, want *codec.Error: %v", err, err)
			}
		}
	})
}

// Answers encoded at once are each their own bytes: Marshal's buffers are
// shared between calls, the answers it returns never are.
func TestMarshalAtOnce(t *testing.T) {
	type many struct {
		Entries []Rich `json:"entries"`
	}
	msgs := make([]*many, 8)
	want := make([][]byte, 8)
	for i := range msgs {
		msgs[i] = &many{Entries: make([]Rich, i*10)}
		for j := range msgs[i].Entries {
			msgs[i].Entries[j] = *sampleRich()
			msgs[i].Entries[j].S = strings.Repeat("x", i)
		}
		var err error
		if want[i], err = codec.Marshal(msgs[i]); err != nil {
			t.Fatal(err)
		}
	}
	got := make([][][]byte, 8)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range 20 {
				out, err := codec.Marshal(msgs[(g+k)%8])
				if err != nil {
					t.Error(err)
					return
				}
				got[g] = append(got[g], out)
			}
		}()
	}
	wg.Wait()
	for g := range got { // checked after all ended: a buffer handed out twice shows here
		for k, out := range got[g] {
			if !bytes.Equal(out, want[(g+k)%8]) {
				t.Fatalf("goroutine %d, answer %d: %d bytes, not the %d expected", g, k, len(out), len(want[(g+k)%8]))
			}
		}
	}
}
