package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	toxiproxy "github.com/Shopify/toxiproxy/v2"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"
	"gorm.io/gorm"

	"github.com/wasteflow/wasteflow/configs"
	"github.com/wasteflow/wasteflow/models"
)

// TestDatabaseFaultsSuite is part of `make stress` (PostgreSQL's server
// binaries, HAProxy): two server processes behind HAProxy reach a
// PostgreSQL of the test's own through toxiproxy, under the crash suite's
// load with its long-poll readers and signing waits. The database's network
// fails in turn, over and over: 200 ms added each way; a failover
// (PostgreSQL crashed by an immediate shutdown, as a dying primary, and
// started again on another port, the proxy's upstream moved there);
// connections reset mid-transaction (a third of them, 20 ms after they
// next carry data); a black hole swallowing every packet for 10 s.
// Afterwards the crash suite's invariants hold (every acknowledged effect
// once, audit chains intact, deadlines and events consistent, every event
// delivered to each cursor once), every answer came within the request
// timeout plus a second and every 5xx carried Retry-After, and PostgreSQL
// holds no connection of the instances busy with nothing running and no
// more than their pools allow.
func TestDatabaseFaultsSuite(t *testing.T) {
	if os.Getenv("WASTEFLOW_STRESS") == "" {
		t.Skip("the database faults suite runs with WASTEFLOW_STRESS=1 (make stress)")
	}
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("the database faults suite needs HAProxy (Debian: apt-get install haproxy; .ci/run installs it)")
	}
	port := func(addr string) string { _, p, _ := net.SplitHostPort(addr); return p }
	pg := newPGCluster(t)
	ports := [2]string{port(freeAddr()), port(freeAddr())}
	pg.start(ports[0])

	proxy := toxiproxy.NewProxy(toxiproxy.NewServer(toxiproxy.NewMetricsContainer(prometheus.NewRegistry()), zerolog.Nop()),
		"postgres", "127.0.0.1:0", "127.0.0.1:"+ports[0])
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Stop)
	dsn := "postgres://postgres@" + proxy.Listen + "/postgres?sslmode=disable"
	db := configs.Database{URL: dsn, DSN: dsn, Driver: "postgres", MaxOpenConns: 4, MaxIdleConns: 4, ConnMaxLifetime: time.Hour}
	bin, env := stressSetupOn(t, db)
	const requestTimeout = 4 * time.Second
	const poolSize = 20
	env = append(env, "WASTEFLOW_REQUEST_TIMEOUT="+requestTimeout.String(), "WASTEFLOW_SWEEP_SCHEDULE=@every 2s",
		"WASTEFLOW_DB_MAX_OPEN_CONNS="+strconv.Itoa(poolSize))

	addrs := []string{freeAddr(), freeAddr()}
	procs := make([]*exec.Cmd, len(addrs))
	for i, a := range addrs {
		procs[i] = &exec.Cmd{Path: bin, Args: []string{bin, "serve"}, Env: append(env, "WASTEFLOW_ADDR="+a)}
		if err := procs[i].Start(); err != nil {
			t.Fatal(err)
		}
		waitHealthy("http://"+a, 10*time.Second)
	}
	defer func() {
		for _, p := range procs {
			_ = p.Process.Kill()
			_ = p.Wait()
		}
	}()
	front := freeAddr()
	startHAProxy(t, haproxy, front, addrs, "inter 500ms fall 2 rise 1")
	waitHealthy("http://"+front, 10*time.Second)

	toxic := func(body string) func() {
		w, err := proxy.Toxics.AddToxicJson(strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		return func() { _ = proxy.Toxics.RemoveToxic(context.Background(), w.Name) }
	}
	var latencies, resets, holes, failovers atomic.Int64
	var failoverTook []time.Duration
	upstream := 0
	faults := []func(){
		func() { // 200 ms added each way
			defer toxic(`{"name": "slow-up", "type": "latency", "stream": "upstream", "attributes": {"latency": 200}}`)()
			defer toxic(`{"name": "slow-down", "type": "latency", "stream": "downstream", "attributes": {"latency": 200}}`)()
			latencies.Add(1)
			time.Sleep(5 * time.Second)
		},
		func() { // a failover: the primary crashes, a server comes up on another port, the proxy follows it
			began := time.Now()
			pg.crash()
			upstream = 1 - upstream
			pg.start(ports[upstream])
			if err := proxy.Update(&toxiproxy.Proxy{Listen: proxy.Listen, Upstream: "127.0.0.1:" + ports[upstream], Enabled: true}); err != nil {
				t.Errorf("moving the proxy's upstream: %v", err)
			}
			failovers.Add(1)
			failoverTook = append(failoverTook, time.Since(began).Round(time.Millisecond))
		},
		func() { // a third of the connections reset 20 ms after they next carry data: mid-transaction
			defer toxic(`{"name": "reset", "type": "reset_peer", "stream": "upstream", "toxicity": 0.33, "attributes": {"timeout": 20}}`)()
			resets.Add(1)
			time.Sleep(5 * time.Second)
		},
		func() { // a black hole: every packet swallowed for 10 s
			defer toxic(`{"name": "hole", "type": "timeout", "stream": "upstream", "attributes": {"timeout": 0}}`)()
			holes.Add(1)
			time.Sleep(10 * time.Second)
		},
	}
	killer := func(ctx context.Context, n *atomic.Int64) {
		for i := 0; ; i++ {
			if sleepCtx(ctx, 3*time.Second) != nil {
				return
			}
			faults[i%len(faults)]()
			n.Add(1)
		}
	}
	crashLoad(t, crashRun{
		name: "database faults suite: 2 instances behind HAProxy, PostgreSQL behind toxiproxy", db: db, base: "http://" + front,
		killer: killer, longPolls: true, answerWithin: requestTimeout + time.Second,
		note: func() string {
			return fmt.Sprintf("%d latency, %d reset, %d black-hole phases, %d failovers (each %v)",
				latencies.Load(), resets.Load(), holes.Load(), failovers.Load(), failoverTook)
		},
	})

	// Nothing left behind: with the load over, no connection of the
	// instances stays in a transaction, and they hold no more than their
	// pools and listening connections allow.
	direct := pg.open(t, ports[upstream])
	var open, inTx int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		direct.Raw(`SELECT COUNT(*), COUNT(*) FILTER (WHERE state LIKE 'idle in transaction%' OR (state = 'active' AND query NOT ILIKE 'LISTEN%'))
			FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid() AND application_name <> 'wasteflow-test'`).Row().Scan(&open, &inTx)
		if inTx == 0 || time.Now().After(deadline) {
			break
		}
	}
	fmt.Printf("  %-36s %d open, %d busy (pools allow %d)\n", "connections afterwards", open, inTx, len(addrs)*(poolSize+1))
	if inTx > 0 || open > int64(len(addrs)*(poolSize+1)) {
		t.Fatalf("after the faults: %d connections open, %d of them busy with nothing running", open, inTx)
	}
}

// sleepCtx sleeps d or until ctx ends (then its error).
func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

// pgCluster is a PostgreSQL server of the test's own (initdb in a
// temporary directory, run as the postgres user when the test runs as
// root), to crash and to start on another port.
type pgCluster struct {
	t        *testing.T
	bin, dir string
	runAs    []string
	mu       sync.Mutex
}

func newPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	c := &pgCluster{t: t}
	if found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb"); len(found) > 0 {
		c.bin = filepath.Dir(found[len(found)-1])
	} else if p, err := exec.LookPath("initdb"); err == nil {
		c.bin = filepath.Dir(p)
	} else {
		t.Fatal("the database faults suite needs PostgreSQL's server binaries (initdb, pg_ctl; Debian: apt-get install postgresql)")
	}
	dir, err := os.MkdirTemp("", "wasteflow-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	c.dir = dir
	if os.Geteuid() == 0 { // initdb refuses root: the cluster belongs to postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal("running as root, the suite needs the postgres user to own its cluster")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.runAs = []string{"runuser", "-u", "postgres", "--"}
	}
	c.run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync")
	t.Cleanup(func() { c.pgCtl("-m", "immediate", "stop") })
	return c
}

func (c *pgCluster) run(name string, args ...string) {
	c.t.Helper()
	argv := append(append([]string{}, c.runAs...), append([]string{filepath.Join(c.bin, name)}, args...)...)
	if out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", strings.Join(argv, " "), err, out)
	}
}

func (c *pgCluster) pgCtl(args ...string) {
	argv := append(append([]string{}, c.runAs...), append([]string{filepath.Join(c.bin, "pg_ctl"), "-D", filepath.Join(c.dir, "data")}, args...)...)
	_ = exec.Command(argv[0], argv[1:]...).Run()
}

// start starts the server on port and waits until it accepts connections.
func (c *pgCluster) start(port string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-l", filepath.Join(c.dir, "log"), "-w", "-t", "60",
		"-o", "-p "+port+" -k "+c.dir+" -c listen_addresses=127.0.0.1 -c max_connections=100", "start")
}

// crash stops the server at once, as a dying primary: its connections
// break, what was committed survives (crash recovery at the next start).
func (c *pgCluster) crash() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.run("pg_ctl", "-D", filepath.Join(c.dir, "data"), "-m", "immediate", "-w", "stop")
}

// open connects to the server on port directly (not through the proxy).
func (c *pgCluster) open(t *testing.T, port string) *gorm.DB {
	dsn := "postgres://postgres@127.0.0.1:" + port + "/postgres?sslmode=disable&application_name=wasteflow-test"
	db, err := models.Open(context.Background(), configs.Database{URL: dsn, DSN: dsn, Driver: "postgres", MaxOpenConns: 1, MaxIdleConns: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = models.Close(db) })
	return db
}
