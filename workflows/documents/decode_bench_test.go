package documents

import (
	"encoding/json"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/wasteflow/wasteflow/models"
	n "github.com/wasteflow/wasteflow/rules/notification"
)

// BenchmarkDecodeAggregate decodes the stored aggregate of a notification
// with a long history (50 requests for information of 20 replies each, as
// the load benchmark's history figure: 75 KB here) as a Get does, beside
// encoding/json: what a stored form that decodes less (issue 49.2) starts
// from. Allowing duplicate names and invalid UTF-8 (no tracking of the
// names seen) made no difference here on 2026-11-29: 0.56 ms either way.
func BenchmarkDecodeAggregate(b *testing.B) {
	var d n.Notification
	at := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for range 50 {
		r := n.InformationRequestRecord{Authority: "org_0123456789abcdef", At: at, Questions: []string{"the analysis"}, ReturnState: "ACKNOWLEDGED"}
		for j := range 19 {
			r.Replies = append(r.Replies, n.Reply{At: at, Answers: []string{"attached"}, Complete: j == 18})
		}
		d.InformationRequests = append(d.InformationRequests, r)
	}
	raw, err := json.Marshal(&d)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("stored", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var x n.Notification
			if err := jsonv2.Unmarshal(raw, &x, decodeOptions); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			var x n.Notification
			if err := json.Unmarshal(raw, &x); err != nil {
				b.Fatal(err)
			}
		}
	})
	// The stored form (exchanges.go): what an act adds to split the
	// whole it encoded into the row's data and archive, and a read to join
	// them back; beside them, decoding the row's data alone (a Get) and
	// encoding the whole (every act does).
	cuts := []models.ArchiveCut{{List: "informationRequests", N: 40}}
	hot, archive, _, err := models.SplitArchive(raw, cuts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("split", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, _, _, err := models.SplitArchive(raw, cuts); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("join", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := models.JoinArchive(string(hot), archive); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("hot", func(b *testing.B) {
		b.SetBytes(int64(len(hot)))
		for b.Loop() {
			var x n.Notification
			if err := jsonv2.Unmarshal(hot, &x, decodeOptions); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for b.Loop() {
			if _, err := json.Marshal(&d); err != nil {
				b.Fatal(err)
			}
		}
	})
}
