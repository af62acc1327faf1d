package tests

import (
	"bufio"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/stdlib"

	"github.com/wasteflow/wasteflow/models/dbtest"
)

// TestRegisterExportAtScale is make bench's register figure: an
// organisation's register of 100,000 documents exported on PostgreSQL as
// CSV and as XLSX through the job queue (pages of 500), beside the raw
// COPY ... TO of the same documents' rows (number, kind, state, version,
// creation, the aggregate's JSON) on the same database; the process's
// peak RSS growth during each export (the server runs in this process).
func TestRegisterExportAtScale(t *testing.T) {
	if os.Getenv("WASTEFLOW_BENCH") == "" {
		t.Skip("the register benchmark runs with WASTEFLOW_BENCH=1 (make bench)")
	}
	d := startDocs(t, dbtest.Postgres(t))
	dbtest.SkipAtEnd(d.db) // documents copied by SQL, without trails: the replay would fail them (and read a million)
	d.deps.Registers.PageSize = 500
	d.workJobs(t)
	nid := d.consented(t, shippable(3))
	d.ok(t, "alice", co+"CreateMovementTemplate", map[string]any{"notificationId": nid, "movementTemplate": template("2026-12-07", 40)})
	d.ok(t, "alice", co+"CreateAnnex7", map[string]any{"annex7": announcement()})
	for range 5 {
		d.submitted(t)
	}
	var base int64
	d.db.Raw("SELECT COUNT(*) FROM documents").Scan(&base)
	dbtest.CloneDocuments(t, d.db, int(100_000/base))
	d.db.Exec("ANALYZE")
	var n int64
	d.db.Raw("SELECT COUNT(DISTINCT document_id) FROM document_parties WHERE organisation_id = 'acme'").Scan(&n)

	copyStart := time.Now()
	sqlDB, _ := d.db.DB()
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var copied int64
	err = conn.Raw(func(dc any) error {
		tag, err := dc.(*stdlib.Conn).Conn().PgConn().CopyTo(context.Background(), io.Discard,
			`COPY (SELECT d.number, d.kind, d.state, d.version, d.created_at, d.data FROM documents d
			  WHERE d.provider_id = 'dev-1' AND d.id IN (SELECT document_id FROM document_parties WHERE organisation_id = 'acme')
			  ORDER BY d.created_at, d.id) TO STDOUT WITH (FORMAT csv)`)
		copied = tag.RowsAffected()
		return err
	})
	_ = conn.Close()
	if err != nil {
		t.Fatal(err)
	}
	copyTook := time.Since(copyStart)

	for _, format := range []string{"CSV", "XLSX"} {
		before := rssKiB(t)
		var peak atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				if r := rssKiB(t); r > peak.Load() {
					peak.Store(r)
				}
				select {
				case <-stop:
					return
				case <-time.After(50 * time.Millisecond):
				}
			}
		}()
		start := time.Now()
		id := d.okAs(t, "alice", co+"ExportRegister", map[string]any{"format": format})["exportId"].(string)
		for {
			var state string
			d.db.Raw("SELECT state FROM register_exports WHERE id = ?", id).Scan(&state)
			if state == "DONE" {
				break
			}
			if state == "FAILED" || time.Since(start) > 5*time.Minute {
				t.Fatalf("export %s: %s after %v", format, state, time.Since(start))
			}
			time.Sleep(20 * time.Millisecond)
		}
		took := time.Since(start)
		close(stop)
		wg.Wait()
		m := d.okAs(t, "alice", co+"GetRegisterExport", map[string]any{"exportId": id})
		file, _ := base64.StdEncoding.DecodeString(m["document"].(string))
		if m["rows"] != fmt.Sprint(n) {
			t.Errorf("%s: %v rows, want %d", format, m["rows"], n)
		}
		fmt.Printf("bench figure=register_export db=postgres format=%s documents=%d seconds=%.1f copy_rows=%d copy_seconds=%.2f ratio=%.1f rss_growth_mb=%.0f file_mb=%.1f\n",
			format, n, took.Seconds(), copied, copyTook.Seconds(), took.Seconds()/copyTook.Seconds(), float64(peak.Load()-before)/1024, float64(len(file))/(1<<20))
	}
}

// rssKiB is this process's resident set (VmRSS), in KiB.
func rssKiB(t *testing.T) int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		t.Skip("no /proc: RSS is read on Linux")
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}
