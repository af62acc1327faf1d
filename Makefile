# wasteflow: `make run` and `make test` are all a newcomer needs.
GO        ?= go
BIN       := bin/wasteflow
VERSION   ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2
BUF       := tools/buf/node_modules/.bin/buf

.PHONY: all build run test vet test-race test-short lint openapi-lint proto proto-check docs contract bench bench-load stress fmt clean kern

all: build

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/wasteflow

# Migrate, load the demo data into the embedded SQLite database, serve on
# 127.0.0.1:8080 (the deadline page at /ui/deadlines logs in with the demo
# app token). The demo step prints how to log in.
run: build
	./$(BIN) demo
	WASTEFLOW_UI_APP_TOKEN=demo-app-token-dev-1-0123456789abcdef WASTEFLOW_SIGNER_KEYS=./data/signer-keys ./$(BIN) serve

# Storage and end-to-end tests also run on PostgreSQL when
# WASTEFLOW_TEST_DATABASE_URL is set (.ci/run sets it; under CI it is required).
#
# make test runs its passes in two streams at once to stay within 10
# minutes on 2 cores (the end-to-end tests mostly wait: on servers,
# browsers, Node and timers, so two streams share the cores well; three
# slowed PostgreSQL's transactions enough that events waited for their
# positions past what the tests allow): pass 2 in one, passes 1 and 3 one
# after the other in the other.
#   1. every package but the end-to-end ones under the race detector;
#   2. the end-to-end packages (tests: the suite of every workflow through
#      the faces; handlers: the gateway's own; cmd/wasteflow: the binary
#      and the walk-throughs; real servers, Chromium, Prism) without it,
#      every test;
#   3. the end-to-end tests that run things at once (several instances,
#      concurrent clients on PostgreSQL, kills and faults, parallel
#      attempts, idempotency) again under the race detector: RACE_E2E
#      names them.
# Each stream writes its output to bin/test-<stream>.log (e2e, race),
# shown when it ends; make test fails if either does. Every test makes its own database
# (SQLite file or PostgreSQL schema), so the passes do not meet.
# make test-race runs everything under the race detector (about twice as long).
E2E_PKGS  := ./tests/ ./handlers/ ./cmd/wasteflow/
UNIT_PKGS  = $(shell $(GO) list ./... | grep -v -E '/(tests|handlers|cmd/wasteflow)$$')
RACE_E2E  := Concurren|OnPostgres|Instances|Kill|Fault|Parallel|Idempoten

test:
	$(MAKE) --no-print-directory -j3 openapi-lint proto-check vet
	@mkdir -p bin; rm -f bin/test-*.rc; \
	pass() { name=$$1; shift; ( began=$$(date +%s); "$$@" > bin/test-$$name.log 2>&1; echo $$? > bin/test-$$name.rc; \
		echo "=== make test: the $$name pass ended after $$(( $$(date +%s) - began )) s, exit $$(cat bin/test-$$name.rc):"; cat bin/test-$$name.log ) & }; \
	pass e2e $(GO) test -count=1 -parallel 6 -timeout 15m $(E2E_PKGS); \
	pass race sh -c '$(GO) test -race -count=1 -parallel 4 -timeout 15m $(UNIT_PKGS) && \
		$(GO) test -race -count=1 -parallel 4 -timeout 15m -run "$(RACE_E2E)" $(E2E_PKGS)'; \
	wait; for p in e2e race; do test "$$(cat bin/test-$$p.rc)" = 0 || { echo "make test: the $$p pass failed (bin/test-$$p.log)"; exit 1; }; done

vet:
	$(GO) vet ./...

test-race:
	$(GO) test -race -count=1 -parallel 4 -timeout 30m ./...
	$(GO) test -count=1 -run '^TestIntentMatrix$$' ./tests/

lint: openapi-lint proto-check
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# The OpenAPI description the server serves (wasteflow openapi) through a
# well-kept linter, @redocly/cli, pinned in tools/openapi-lint: an error
# fails the build, warnings are shown.
OPENAPI_LINT := tools/openapi-lint
openapi-lint: build
	@command -v npm >/dev/null || { echo "openapi-lint needs Node.js and npm: the linter is @redocly/cli ($(OPENAPI_LINT)/package.json)"; exit 1; }
	npm ci --prefix $(OPENAPI_LINT) --no-audit --no-fund --loglevel=error
	./$(BIN) openapi > bin/openapi.yaml
	$(OPENAPI_LINT)/node_modules/.bin/redocly lint bin/openapi.yaml --format=summary

# The .proto files of the gRPC face, derived from the operation table like
# the OpenAPI description (wasteflow proto keeps the committed field numbers).
proto: build
	./$(BIN) proto -dir proto
	npm ci --prefix tools/buf --no-audit --no-fund --loglevel=error
	rm -rf proto/gen && cd proto && ../$(BUF) generate

# The reference pages (docs/reference) generated from the code: the
# operation table, the business error catalogue, the workflow declarations,
# the settings, the event kinds, the commands. TestReferenceIsCurrent fails
# when they are not regenerated and committed.
docs: build
	./$(BIN) docs -dir docs/reference

# buf (pinned in tools/buf) over proto/: lint, and the files the code
# derives now against the committed ones: a change buf calls breaking
# fails unless its regenerated files are committed too (and a change not
# regenerated at all fails TestProtoFilesAreCurrent).
proto-check: build
	@command -v npm >/dev/null || { echo "proto-check needs Node.js and npm: buf comes from npm (tools/buf/package.json)"; exit 1; }
	npm ci --prefix tools/buf --no-audit --no-fund --loglevel=error
	$(BUF) lint proto
	rm -rf bin/_proto-now && mkdir -p bin && cp -r proto bin/_proto-now
	./$(BIN) proto -dir bin/_proto-now
	$(BUF) breaking bin/_proto-now --against proto
	rm -rf bin/_proto-now/gen && cd bin/_proto-now && ../../$(BUF) generate
	@diff -r proto/gen bin/_proto-now/gen >/dev/null || { echo "proto/gen is not what buf generates from proto/: run make proto and commit"; diff -r proto/gen bin/_proto-now/gen | head -20; exit 1; }

# The end-to-end flows through Stoplight Prism's validating proxy
# (tools/prism): any violation of the description fails. make test runs
# the same tests with the rest.
contract:
	$(GO) test -count=1 -v -run '^(TestContractThroughPrism|TestPrismHarnessCatchesViolations)$$' ./tests/

# Go benchmarks, then the load benchmark: every figure over real HTTP beside
# its raw baseline, on SQLite and (with WASTEFLOW_TEST_DATABASE_URL) on
# PostgreSQL; WASTEFLOW_BENCH_SECONDS sets each run's length (default 5).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestLoad$$' -count=1 -timeout 15m -v ./tests/
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestStoreAtScale$$' -count=1 -timeout 15m -v ./tests/
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestDocumentListsAtScale$$' -count=1 -timeout 15m -v ./tests/
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestRegisterExportAtScale$$' -count=1 -timeout 15m -v ./tests/
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestGetDocumentEncodingCost$$' -count=1 -timeout 15m -v ./tests/

# The crash suite (PostgreSQL: WASTEFLOW_TEST_DATABASE_URL, and the right to
# restart the local cluster with pg_ctlcluster): a server process under
# mixed load killed with SIGKILL every 300-800 ms, PostgreSQL restarted
# once, then the invariants; the cluster suite (the same load through
# HAProxy to three instances, one killed every 1-3 s, with long-polling
# readers); the soak (a server process under 64 clients'
# mixed load for 10 minutes: resident memory flat after the warm-up, no
# goroutine left behind, no failed request); 1,000 long polls over three
# instances (their idle cost in transactions, an event's p99 to reach them
# beside a floor's: bare handlers answering the same polls in the same run);
# what one server process costs PostgreSQL with no client and with 1,000
# waiting long polls (TestIdleCostsNothing: at most 2 transactions a second,
# and the waits add at most 1);
# failed logins of known and unknown usernames timed from outside (200
# each, in random order: the medians agree within the noise); and the fuzz
# targets for
# longer than make test runs their seeds. WASTEFLOW_STRESS_SECONDS sets the
# crash suite's load's length, WASTEFLOW_SOAK_SECONDS the soak's.
# make stress runs the model-based test of generated orders this long
# (seconds); make test runs it for 10.
MODEL_SECONDS ?= 600
stress:
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestCrashSuite$$' -count=1 -v -timeout 10m ./cmd/wasteflow/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestClusterSuite$$' -count=1 -v -timeout 10m ./cmd/wasteflow/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestDatabaseFaultsSuite$$' -count=1 -v -timeout 10m ./cmd/wasteflow/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestWebhooksSurviveKills$$' -count=1 -v -timeout 10m ./cmd/wasteflow/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestIdleCostsNothing$$' -count=1 -v -timeout 10m ./cmd/wasteflow/
	WASTEFLOW_SOAK=1 $(GO) test -run '^TestSoak$$' -count=1 -v -timeout 20m ./cmd/wasteflow/
	WASTEFLOW_VIEWS_ALL=1 $(GO) test -run 'InChromium$$' -count=1 -timeout 15m ./tests/
	WASTEFLOW_MODEL_SECONDS=$(MODEL_SECONDS) $(GO) test -run '^TestModelGeneratedOrders(Annex7)?$$' -count=1 -v -timeout 60m ./workflows/notifications/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestIdleWaitsCostNothing$$' -count=1 -v -timeout 5m ./tests/
	WASTEFLOW_STRESS=1 $(GO) test -run '^TestLoginTimingTellsNoUsername$$' -count=1 -v -timeout 5m ./cmd/wasteflow/
	$(GO) test -run '^$$' -fuzz '^FuzzParse$$' -fuzztime 60s ./workflows/bmu/
	$(GO) test -run '^$$' -fuzz '^FuzzUnmarshal$$' -fuzztime 60s ./handlers/codec/
	$(GO) test -run '^$$' -fuzz '^FuzzUnmarshalQuery$$' -fuzztime 30s ./handlers/codec/

# The load benchmark alone.
bench-load:
	WASTEFLOW_BENCH=1 $(GO) test -run '^TestLoad$$' -count=1 -timeout 15m -v ./tests/

# Vendor the KERN UX design system again (handlers/ui/kern, embedded).
kern:
	tools/kern/vendor.sh

fmt:
	gofmt -w $$(git ls-files '*.go')

clean:
	rm -rf bin
