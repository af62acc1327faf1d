package printing_test

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/wasteflow/wasteflow/workflows/printing"
)

// measure renders f and says how long it took and how much it allocated.
func measure(t *testing.T, f *printing.Form) (time.Duration, uint64, []byte) {
	t.Helper()
	var m0, m1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	start := time.Now()
	pdf, err := printing.Render(f)
	took := time.Since(start)
	runtime.ReadMemStats(&m1)
	if err != nil {
		t.Fatal(err)
	}
	return took, m1.TotalAlloc - m0.TotalAlloc, pdf
}

// Issue 44.3: whatever a form holds (a 20 MB value stored before fields
// had lengths, 200,000 rows, 100,000 lines), a print draws within its
// bounds, says what it cut, and takes a bounded time and memory.
func TestPrintIsBounded(t *testing.T) {
	huge := strings.Repeat("x", 20<<20)
	rows := make([]printing.Row, 200_000)
	for i := range rows {
		rows[i] = printing.Row{Label: "field", Value: "a value"}
	}
	for name, f := range map[string]*printing.Form{
		"a 20 MB value":     {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "name", Value: huge}}}}},
		"a 20 MB number":    {Title: "T", Number: huge, Facts: []printing.Row{{Label: huge, Value: huge}}},
		"200,000 rows":      {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: rows}, {No: "2", Title: "c", Rows: rows}}},
		"100,000 lines":     {Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "l", Value: strings.Repeat("a\n", 100_000)}}}}},
		"German, cut":       {Title: "T", Number: "N-1", Labels: printing.German, Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "n", Value: huge}}}}},
		"labels of its own": {Title: "T", Number: "N-1", Labels: printing.Labels{Page: "p", Of: "/"}, Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "n", Value: huge}}}}},
	} {
		t.Run(name, func(t *testing.T) {
			took, alloc, pdf := measure(t, f)
			t.Logf("%s: %v, %d MB allocated, a PDF of %d KB", name, took.Round(time.Millisecond), alloc>>20, len(pdf)>>10)
			if took > 3*time.Second || alloc > 400<<20 {
				t.Errorf("%s: %v and %d MB: not bounded", name, took, alloc>>20)
			}
			b := printing.Bound(f)
			chars, lines, total := 0, 0, 0
			for _, bl := range b.Blocks {
				for _, r := range bl.Rows {
					chars += len([]rune(r.Value))
					lines += strings.Count(r.Value, "\n") + 1
					total++
				}
			}
			if chars > printing.MaxFormChars+500 || lines > printing.MaxFormLines+2 || len([]rune(b.Number)) > printing.MaxNumber {
				t.Errorf("%s: bound to %d characters, %d lines, number %d", name, chars, lines, len(b.Number))
			}
		})
	}
	b := printing.Bound(&printing.Form{Number: "N-1", Blocks: []printing.Block{{Rows: []printing.Row{{Label: "name", Value: huge}}}}})
	if v := b.Blocks[0].Rows[0].Value; len([]rune(v)) != printing.MaxValue || !strings.HasSuffix(v, "[…cut: 20971520 characters in all]") {
		t.Errorf("a cut value ends %q (%d characters)", v[len(v)-60:], len([]rune(v)))
	}
	b = printing.Bound(&printing.Form{Number: "N-1", Labels: printing.German, Blocks: []printing.Block{{Rows: rows}}})
	last := b.Blocks[len(b.Blocks)-1]
	if last.Title != "Nicht gedruckt" || !strings.HasPrefix(last.Rows[0].Value, "197000 weitere Felder") {
		t.Errorf("the rows left out: %+v", last)
	}
	small := &printing.Form{Title: "T", Number: "N-1", Blocks: []printing.Block{{No: "1", Title: "b", Rows: []printing.Row{{Label: "a", Value: "b\nc"}}}}}
	if b := printing.Bound(small); b.Blocks[0].Rows[0] != small.Blocks[0].Rows[0] || len(b.Blocks) != 1 {
		t.Errorf("a form within the bounds changed: %+v", b)
	}
}
