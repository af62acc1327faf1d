package bmu

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/beevik/etree"

	"github.com/wasteflow/wasteflow/rules/bmu"
)

// bigNote is a consignment note of about 21 MB: five layers, each setting
// the 100,000 acceptance-note numbers of a collection run and its fields.
func bigNote(tb testing.TB) []byte {
	tb.Helper()
	var layers []*bmu.Layer
	types := []bmu.LayerType{bmu.LayerErzeuger, bmu.LayerBefoerderer, bmu.LayerBefoerderer, bmu.LayerEntsorger, bmu.LayerErgaenzung}
	for i, t := range types {
		l := bmu.NewLayer(i+1, t, bmu.RoleFor(t))
		if t == bmu.LayerErgaenzung {
			l.Role = bmu.RoleENT
		}
		l.Values["vermerke"] = fmt.Sprintf("layer %d", i+1)
		for j := range bmu.MaxListLength {
			l.Values[fmt.Sprintf("unsNrn[%d]", j)] = fmt.Sprintf("116815%08d", j+i)
		}
		l.Lengths["unsNrn"] = bmu.MaxListLength
		layers = append(layers, l)
	}
	d, err := Ours{}.New(&bmu.Note{Type: bmu.TypeBGS, Layers: layers})
	if err != nil {
		tb.Fatal(err)
	}
	x, err := d.Bytes()
	if err != nil {
		tb.Fatal(err)
	}
	return x
}

// peakHeap runs fn and reports the highest heap in use above what was in
// use before, sampled every millisecond.
func peakHeap(fn func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapAlloc
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapAlloc > base && m.HeapAlloc-base > peak.Load() {
				peak.Store(m.HeapAlloc - base)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	fn()
	close(done)
	wg.Wait()
	return peak.Load()
}

// BenchmarkLargeNote runs GetDocument and UpdateDocument over a 21 MB note
// beside their baselines, the library calls they wrap (an encoding/xml
// token pass, an etree parse and write), reporting the peak heap as a
// multiple of the XML's size.
func BenchmarkLargeNote(b *testing.B) {
	x := bigNote(b)
	s := &Service{Mapping: Ours{}, Trust: &Trust{}, CheckDigit: mustCheckDigit(b)}
	upd := &bmu.Document{Bgs: &bmu.Bgs{Vermerke: bmu.Text{Value: "checked", Meta: bmu.FieldMeta{InLayer: true}}}}
	report := func(b *testing.B, fn func() error) {
		b.SetBytes(int64(len(x)))
		var peak uint64
		for b.Loop() {
			var err error
			if p := peakHeap(func() { err = fn() }); p > peak {
				peak = p
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(x))/1e6, "xml-MB")
		b.ReportMetric(float64(peak)/float64(len(x)), "peak-heap/xml")
	}
	b.Run("GetDocument", func(b *testing.B) {
		report(b, func() error { _, err := s.Get(x); return err })
	})
	b.Run("UpdateDocument", func(b *testing.B) {
		report(b, func() error {
			_, err := s.Update(x, upd, &bmu.XMLOptions{Validation: bmu.ValidationNone})
			return err
		})
	})
	b.Run("baseline-xml-tokens", func(b *testing.B) {
		report(b, func() error {
			dec := xml.NewDecoder(bytes.NewReader(x))
			for {
				if _, err := dec.RawToken(); err == io.EOF {
					return nil
				} else if err != nil {
					return err
				}
			}
		})
	})
	b.Run("baseline-etree-parse-write", func(b *testing.B) {
		report(b, func() error {
			t := etree.NewDocument()
			if err := t.ReadFromBytes(x); err != nil {
				return err
			}
			_, err := t.WriteToBytes()
			return err
		})
	})
}

func mustCheckDigit(tb testing.TB) bmu.CheckDigit {
	cd, err := bmu.CheckDigitMethod(bmu.DefaultCheckDigit)
	if err != nil {
		tb.Fatal(err)
	}
	return cd
}
