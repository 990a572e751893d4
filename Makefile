# catalogd — run `make help` for the targets.
GO        ?= go
BIN       := bin
MYSQL     ?= mysql
DEMO_HOST ?= 127.0.0.1
DEMO_PORT ?= 3306
DEMO_USER ?= root
DEMO_DB   ?= wp_demo
DEMO_DSN  ?= $(DEMO_USER)@tcp($(DEMO_HOST):$(DEMO_PORT))/$(DEMO_DB)
MYSQL_CMD := $(MYSQL) --protocol=tcp -h$(DEMO_HOST) -P$(DEMO_PORT) -u$(DEMO_USER)

EMBEDDED_ADDR ?= 127.0.0.1:3307
# More flags for the embedded server (its tests log the statements it gets).
EMBEDDED_FLAGS ?=

# The version and commit --version prints (internal/buildinfo); a build
# outside git falls back to what the go command recorded.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null)
COMMIT  ?= $(shell git rev-parse HEAD 2>/dev/null)
LDFLAGS := -X catalogd/internal/buildinfo.version=$(VERSION) -X catalogd/internal/buildinfo.commit=$(COMMIT)

# Where the demo serves: DEMO_LISTEN (default: CATALOG_LISTEN when set, else
# 127.0.0.1:8080), e.g. make demo DEMO_LISTEN=:8510; its admin listener
# (/readyz, /metrics) on DEMO_ADMIN_LISTEN (CATALOG_ADMIN_LISTEN, else
# 127.0.0.1:9090). The site URL the API's links and images carry, and the
# URLs printed, follow its port. The demo has no WordPress to serve a
# sitemap, so it links none (DEMO_SITEMAP_URL). It waits DEMO_WAIT seconds
# at most for catalogd to be ready.
DEMO_LISTEN       ?= $(if $(CATALOG_LISTEN),$(CATALOG_LISTEN),127.0.0.1:8080)
DEMO_ADMIN_LISTEN ?= $(if $(CATALOG_ADMIN_LISTEN),$(CATALOG_ADMIN_LISTEN),127.0.0.1:9090)
DEMO_HTTP_PORT    := $(lastword $(subst :, ,$(DEMO_LISTEN)))
DEMO_SITE_URL     ?= http://localhost:$(DEMO_HTTP_PORT)
DEMO_SITEMAP_URL  ?= none
DEMO_BASE         := http://127.0.0.1:$(DEMO_HTTP_PORT)/wp-json/shop/v1
DEMO_WAIT         ?= 120

.PHONY: help build install demo-build demo-serve test test-busy test-mysql8 test-embedded test-checks monitoring fuzz soak soak-ci lint lint-openapi vet fmt-check bench bench-1m bench-append bench-deps demo demo-mariadb demo-embedded demo-load seed clean

help:
	@echo "make build   build catalogd and catalogctl into $(BIN)/"
	@echo "make install go install catalogd and catalogctl into \$$GOBIN (default \$$GOPATH/bin), on your PATH"
	@echo "make test    vet, gofmt check, and every test with -race (needs MariaDB; see README),"
	@echo "             then the read path in MySQL 8's sql_mode (make test-mysql8)"
	@echo "make test-busy  the timing-sensitive packages' tests with $(BUSY_HOGS) CPU hogs beside them"
	@echo "make demo    load the demo shop into database $(DEMO_DB) and serve it on $(DEMO_LISTEN)"
	@echo "             (DEMO_LISTEN=:8510 for another port, DEMO_ADMIN_LISTEN for the admin one; no MariaDB/MySQL answering:"
	@echo "             an embedded in-memory server holds the shop instead)"
	@echo "make bench   load the demo shop, seed 10k and 100k shops, measure catalogd, write docs/benchmarks.md"
	@echo "make bench-1m  opt-in: seed a 1 000 000-product shop (wp_bench_1m) once and measure catalogd on it"
	@echo "make seed    regenerate deploy/seed/demo.sql from internal/demoshop"
	@echo "make fuzz    run every fuzz target for FUZZTIME (default 30s) each"
	@echo "make soak    loopback load with database faults for SOAK_DURATION (default 3m)"
	@echo "make monitoring  regenerate deploy/monitoring's dashboard and PrometheusRule from their sources"
	@echo "make lint    staticcheck"
	@echo "make lint-openapi  httpapi/openapi.json through Redocly's and Spectral's recommended rules (needs npm)"

build:
	$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/...

# Puts catalogd and catalogctl on PATH: go install writes them to $GOBIN,
# or $GOPATH/bin (go env GOPATH; ~/go/bin by default), with the version
# stamped as make build does.
install:
	$(GO) install -trimpath -ldflags '$(LDFLAGS)' ./cmd/catalogd ./cmd/catalogctl
	@dir=$$($(GO) env GOBIN); gopath=$$($(GO) env GOPATH); [ -n "$$dir" ] || dir=$${gopath%%:*}/bin; \
	echo "installed catalogd and catalogctl in $$dir"; \
	case ":$$PATH:" in *":$$dir:"*) ;; *) echo "  $$dir is not on your PATH: add it (export PATH=\"$$dir:\$$PATH\")";; esac

# Vet once: go test's own vet is off below (-vet=off), as it would only
# repeat a subset of this one on every package. vet builds without -race,
# as the process tests' catalogd and catalogctl binaries (proctest.Build)
# and test-mysql8 do, so its compile of the dependencies (the binlog
# library's SQL parser is the largest) is theirs too; the -race run is
# the other build. go vet's 11 minutes on a busy cold machine (issue 24)
# were that compile, cold, not vet's own work.
vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

test: vet fmt-check test-embedded test-checks
	$(GO) test -race -vet=off -count=1 ./...
	$(MAKE) --no-print-directory test-mysql8

# The read path once more in MySQL 8.0's default sql_mode (ONLY_FULL_GROUP_BY,
# NO_ZERO_DATE, strict...), which many shops run and MariaDB's default is not:
# catalogd's session gets it, the fixtures load as WordPress writes them.
# Without -race: the first run covers races, this one only the SQL; its
# packages are compiled as vet compiled them.
test-mysql8:
	CATALOG_TEST_SQL_MODE=mysql8 $(GO) test -vet=off -count=1 ./wpdb/... ./catalog/

# No test may depend on how fast the machine is: the packages whose tests
# wait on processes, pollers, deadlines and clocks run with BUSY_HOGS busy
# loops beside them (the issue-24 machine: 2 cores, and the poll test
# failed every second run with six). The hogs end with the target, however
# it ends.
BUSY_HOGS ?= 3
BUSY_PKGS ?= ./cmd/catalogctl ./cmd/catalogd ./wpdb/... ./catalog ./httpapi
test-busy:
	@hogs=""; trap 'kill $$hogs 2>/dev/null' EXIT INT TERM; \
	for i in $$(seq 1 $(BUSY_HOGS)); do sh -c 'while :; do :; done' & hogs="$$hogs $$!"; done; \
	echo "test-busy: $(BUSY_HOGS) CPU hogs (pids$$hogs) beside go test $(BUSY_PKGS)"; \
	$(GO) test -race -vet=off -count=1 $(BUSY_PKGS)

# The embedded demo server is its own module (kept out of catalogd's
# dependency graph): vet and test it on its own, vet once.
test-embedded:
	cd deploy/embedded && $(GO) vet ./... && $(GO) test -vet=off -count=1 ./...

# The deploy files read by the libraries that read them (compose-go,
# Kubernetes' strict decoder, kustomize), the dashboard and the
# PrometheusRule built from their sources, every PromQL expression parsed
# by Prometheus's parser: a module of its own (deploy/checks), so that
# none of these libraries enters catalogd's dependencies. The rules' own
# tests (promtool) and the alert fired on a real Prometheus are
# deploy/monitoring's, in the go test ./... above.
test-checks:
	cd deploy/checks && $(GO) vet ./... && $(GO) test -vet=off -count=1 ./...

# Writes deploy/monitoring's dashboard and PrometheusRule from their
# sources (deploy/checks/monitoring's rows, catalogd.rules.yml).
monitoring:
	cd deploy/checks && $(GO) run ./cmd/monitoring-gen -dir ../monitoring

# Loads the demo shop and seeds the two reference shops once (wpseed reuses
# them when present), measures catalogd against the three (BENCH_SIZES), and
# writes docs/benchmarks.md: the summary table, each figure the median of three
# runs with its spread. The cached throughput is compared with a static
# server by wrk when it is installed, by catalogbench's own client otherwise.
BENCH_DSN   ?= root@tcp(127.0.0.1:3306)/
BENCH_SIZES ?= demo,10k,100k
# The start-up is also timed with the server's InnoDB buffer pool resized to
# hold each shop a pool as found does not (given back after; cmd/catalogbench
# pool.go says why). BENCH_FIT_POOL= measures the pool as found only.
BENCH_FIT_POOL ?= -fit-buffer-pool
bench: build demo-load bench-deps
	$(BIN)/wpseed -dsn '$(BENCH_DSN)' -db wp_bench_10k -products 10000
	$(BIN)/wpseed -dsn '$(BENCH_DSN)' -db wp_bench_100k -products 100000
	$(BIN)/catalogbench -catalogd $(BIN)/catalogd -dsn '$(BENCH_DSN)' -demo-db $(DEMO_DB) \
	  -sizes $(BENCH_SIZES) -wpseed $(BIN)/wpseed $(BENCH_FIT_POOL) -out docs/benchmarks.md
	mkdir -p $(BIN)/bench
	$(GO) test -run '^$$' -bench . -benchmem -count 3 ./httpapi/ > $(BIN)/bench/httpapi.txt; s=$$?; cat $(BIN)/bench/httpapi.txt; exit $$s
	# A first request's garbage and a collector cycle's cost with a
	# 100 000-product snapshot live (issue 25's first-request p99); finding
	# products (search, sorts, filters, facets) on the bench shop and on one
	# whose every product has its own excerpt, and what it adds to memory.
	$(GO) test -run '^$$' -bench '^Benchmark(FirstRequest|CollectorCycle|Find|FindMemory)$$' -benchmem -count 3 ./catalog/ > $(BIN)/bench/catalog.txt; s=$$?; cat $(BIN)/bench/catalog.txt; exit $$s
	# The poll source on the seeded shops (issue 23): a cheap round's, the
	# UPDATE_TIME gate's and a scan's database time, and an isolated edit's
	# commit-to-change latency with the database time it cost a second.
	# (catalogbench measures the cheap round and the scan; at 100 000
	# products the bank a quiet start holds pays one isolated edit's scan.)
	$(GO) test -run '^$$' -bench '^BenchmarkPollGate$$' -benchtime 5x -count 3 ./wpdb/poll/ > $(BIN)/bench/poll.txt; s=$$?; cat $(BIN)/bench/poll.txt; exit $$s
	$(GO) test -run '^$$' -bench '^BenchmarkPollIsolatedEdit$$/^10k$$' -benchtime 5x -count 3 ./wpdb/poll/ > $(BIN)/bench/poll-edit.txt; s=$$?; cat $(BIN)/bench/poll-edit.txt; exit $$s
	$(GO) test -run '^$$' -bench '^BenchmarkPollIsolatedEdit$$/^100k$$' -benchtime 1x -count 3 ./wpdb/poll/ >> $(BIN)/bench/poll-edit.txt; s=$$?; cat $(BIN)/bench/poll-edit.txt; exit $$s
	# Polling at size (issue 33): a catalog following the poller, a trickle
	# of price edits (one every 3 s for 2 minutes), a burst of 500 in 10 s,
	# and the database time quiet and under the trickle, each with stock
	# indexes and with the owner's index on post_modified_gmt (added to the
	# seeded shop and taken away after); at 1m too where make bench-1m
	# seeded it. About 25 minutes.
	$(GO) test -run '^$$' -bench '^BenchmarkPollTrickle$$' -benchtime 1x -timeout 2h ./wpdb/poll/ > $(BIN)/bench/poll-trickle.txt; s=$$?; cat $(BIN)/bench/poll-trickle.txt; exit $$s
	# A whole load (issue 25): read, build, the heap's peak and the
	# snapshot's steady heap, three times each, at catalogd's GOGC.
	GOGC=50 $(GO) test -run '^$$' -bench '^BenchmarkLoadShop$$/^(10k|100k)$$' -benchtime 1x -count 3 ./wpdb/ > $(BIN)/bench/load.txt; s=$$?; cat $(BIN)/bench/load.txt; exit $$s
	$(MAKE) --no-print-directory bench-append OUT=docs/benchmarks.md FILES='$(BIN)/bench/load.txt $(BIN)/bench/httpapi.txt $(BIN)/bench/catalog.txt $(BIN)/bench/poll.txt $(BIN)/bench/poll-edit.txt $(BIN)/bench/poll-trickle.txt'
	# The fleet (issue 32): three catalogd behind one Varnish, two of them
	# reading a database replica, scaled 1 -> 3 -> 1 while the shop is
	# edited: freshness at the edge, the hit ratio across a scale-up, what
	# stays stale after replicas leave, 5xx.
	$(GO) test -run '^TestFleet$$' -count=1 -v ./deploy/varnish/ > $(BIN)/bench/fleet.txt; s=$$?; \
	  { printf '\n## The fleet (deploy/varnish TestFleet; load average %s)\n\n```\n' "$$(cut -d' ' -f1-3 /proc/loadavg)"; \
	    grep -o 'fleet: .*' $(BIN)/bench/fleet.txt; printf '```\n'; } >> docs/benchmarks.md; cat $(BIN)/bench/fleet.txt | grep -o 'fleet: .*'; exit $$s

# benchstat (pinned) summarises the Go benchmarks' three runs each (the
# median, their spread) at the end of the report: one table per file.
BENCHSTAT := golang.org/x/perf/cmd/benchstat@v0.0.0-20260908200009-22c9c6c9d4da
bench-append:
	@for f in $(FILES); do \
	  printf '\n## Go benchmarks: %s (medians of 3, by benchstat; load average %s)\n\n```\n' \
	    "$$(basename $$f .txt)" "$$(cut -d' ' -f1-3 /proc/loadavg)"; \
	  $(GO) run $(BENCHSTAT) $$f; \
	  printf '```\n'; \
	done >> $(OUT)

# The cached throughput is compared with a static server by wrk, and the
# edge's freshness measured through Varnish with xkey (Debian's packages):
# installed here when missing and this is a Debian machine.
bench-deps:
	@for pkg in wrk:/usr/bin/wrk varnish:/usr/sbin/varnishd varnish-modules:/usr/lib/$$(uname -m)-linux-gnu/varnish/vmods/libvmod_xkey.so; do \
	  [ -e "$${pkg#*:}" ] && continue; \
	  echo "make bench: installing $${pkg%%:*} (Debian package)"; \
	  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$${pkg%%:*}" >/dev/null 2>&1 || \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$${pkg%%:*}" >/dev/null; } || \
	  echo "make bench: $${pkg%%:*} could not be installed; its figures are left out"; \
	done

# Opt-in (not in make bench, not in CI): a shop of a million products,
# seeded into wp_bench_1m once (wpseed reuses it when present; seeding takes
# about ten times the 100k shop's minute, and 7.5 GB of disk), measured by
# catalogbench alone (ready, RSS, snapshot build, list and single p99), the
# change feed left out, then a whole load's heap peak (BenchmarkLoadShop)
# and polling at that size (BenchmarkPollTrickle, which make bench also
# runs once the shop is seeded); the report goes to $(BENCH_1M_OUT), not to
# docs/benchmarks.md.
BENCH_1M_OUT ?= docs/benchmarks-1m.md
bench-1m: build
	$(BIN)/wpseed -dsn '$(BENCH_DSN)' -db wp_bench_1m -products 1000000
	$(BIN)/catalogbench -catalogd $(BIN)/catalogd -dsn '$(BENCH_DSN)' -sizes 1m -changes-sizes '' \
	  -ready-timeout 15m -out $(BENCH_1M_OUT)
	mkdir -p $(BIN)/bench
	GOGC=50 $(GO) test -run '^$$' -bench '^BenchmarkLoadShop$$/^1m$$' -benchtime 1x -timeout 30m ./wpdb/ > $(BIN)/bench/load-1m.txt; s=$$?; cat $(BIN)/bench/load-1m.txt; exit $$s
	$(GO) test -run '^$$' -bench '^BenchmarkPollTrickle$$/^1m$$' -benchtime 1x -timeout 1h ./wpdb/poll/ > $(BIN)/bench/poll-trickle-1m.txt; s=$$?; cat $(BIN)/bench/poll-trickle-1m.txt; exit $$s
	$(MAKE) --no-print-directory bench-append OUT=$(BENCH_1M_OUT) FILES='$(BIN)/bench/load-1m.txt $(BIN)/bench/poll-trickle-1m.txt'

seed:
	$(GO) generate ./deploy/seed/

FUZZTIME ?= 30s
FUZZ_TARGETS := api:FuzzParseListQuery api:FuzzValidSlug catalog:FuzzPlainText catalog:FuzzPlainFastPath httpapi:FuzzRouting httpapi:FuzzCacheKey httpapi:FuzzAccessLogLine wpopt:FuzzParsers
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do p=$${t%%:*}; f=$${t##*:}; \
	  $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) ./$$p; done

SOAK_DURATION ?= 3m
soak:
	$(GO) run ./internal/soak/cmd/soak -duration $(SOAK_DURATION)

# The one-minute soak CI runs.
soak-ci:
	CATALOG_SOAK=1 $(GO) test -count=1 -timeout 5m ./internal/soak

# The OpenAPI document against Redocly's and Spectral's recommended
# rulesets (versions pinned in httpapi/internal/openapilint/package-lock.json,
# installed there by npm ci); any error or warning fails.
lint-openapi:
	httpapi/internal/openapilint/lint.sh httpapi/openapi.json

STATICCHECK_VERSION ?= v0.8.2
lint:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

demo-load:
	@echo "make demo: loading deploy/seed/demo.sql into $(DEMO_DB) at $(DEMO_HOST):$(DEMO_PORT)…"
	@$(MYSQL_CMD) -e 'SELECT 1' >/dev/null 2>&1 || { \
	  echo "make demo: cannot reach MariaDB/MySQL at $(DEMO_HOST):$(DEMO_PORT) as $(DEMO_USER)."; \
	  echo "  Start it (e.g. 'sudo service mariadb start') or set DEMO_HOST, DEMO_PORT, DEMO_USER."; \
	  exit 1; }
	$(MYSQL_CMD) -e 'DROP DATABASE IF EXISTS $(DEMO_DB); CREATE DATABASE $(DEMO_DB) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_520_ci'
	$(MYSQL_CMD) $(DEMO_DB) < deploy/seed/demo.sql
	@echo "make demo: demo shop loaded into $(DEMO_DB)"

# The two binaries the demo runs, with go build -v listing each package it
# compiles: on a cold cache that takes minutes, and the demo says so first.
demo-build:
	@echo "make demo: building catalogd and catalogctl into $(BIN)/ (first time: a few minutes; each package compiled is listed)…"
	$(GO) build -v -trimpath -ldflags '$(LDFLAGS)' -o $(BIN)/ ./cmd/catalogd ./cmd/catalogctl

# The demo's database is its own throwaway copy, read as root: catalogd is
# told the writable user is meant, so that it says so at INFO instead of
# warning as it must in production.
DEMO_SETTINGS ?= CATALOG_ALLOW_WRITABLE_USER=true
# catalogd's settings in the demo, for the server and its check and
# healthcheck alike (the DSN is added where it is known).
# Nothing in front of the demo needs a drain before it stops: Ctrl-C stops
# it at once.
DEMO_ENV = CATALOG_LISTEN='$(DEMO_LISTEN)' CATALOG_ADMIN_LISTEN='$(DEMO_ADMIN_LISTEN)' \
  CATALOG_SITE_URL='$(DEMO_SITE_URL)' CATALOG_UPLOADS_URL='$(DEMO_SITE_URL)/wp-content/uploads' \
  CATALOG_SITEMAP_URL='$(DEMO_SITEMAP_URL)' CATALOG_SHUTDOWN_DRAIN=0 $(DEMO_SETTINGS)

# The real database whenever one answers; the embedded one otherwise. First
# catalogd check: a port already taken fails before anything is loaded. Its
# exit 3, the database not ready, is expected: the demo loads it next.
demo: demo-build
	@$(DEMO_ENV) CATALOG_DSN='$(DEMO_DSN)' $(BIN)/catalogd check >/dev/null 2>$(BIN)/demo-check.err; \
	rc=$$?; [ $$rc -eq 0 ] || [ $$rc -eq 3 ] || { \
	  echo "make demo: catalogd cannot start with the demo's settings (nothing was loaded):"; \
	  sed 's/^/  /' $(BIN)/demo-check.err; \
	  echo "  The demo serves on DEMO_LISTEN=$(DEMO_LISTEN), its admin listener on DEMO_ADMIN_LISTEN=$(DEMO_ADMIN_LISTEN):"; \
	  echo "  give the one taken a free address, e.g. make demo DEMO_ADMIN_LISTEN=127.0.0.1:9191"; exit 1; }
	@if command -v $(MYSQL) >/dev/null 2>&1 && $(MYSQL_CMD) -e 'SELECT 1' >/dev/null 2>&1; then \
	  $(MAKE) --no-print-directory demo-mariadb; \
	else \
	  echo "make demo: no MariaDB/MySQL answers at $(DEMO_HOST):$(DEMO_PORT); using the embedded in-memory server"; \
	  $(MAKE) --no-print-directory demo-embedded; \
	fi

demo-mariadb: demo-load
	@$(MAKE) --no-print-directory demo-serve DEMO_SERVE_DSN='$(DEMO_DSN)'

demo-embedded:
	@echo "make demo: building the embedded in-memory database (deploy/embedded)…"
	cd deploy/embedded && $(GO) build -v -o ../../$(BIN)/embedded-mysql .
	@echo "make demo: loading deploy/seed/demo.sql into it at $(EMBEDDED_ADDR)…"
	@rm -f $(BIN)/embedded.log; \
	$(BIN)/embedded-mysql -addr $(EMBEDDED_ADDR) -db $(DEMO_DB) -seed deploy/seed/demo.sql $(EMBEDDED_FLAGS) > $(BIN)/embedded.log 2>&1 & pid=$$!; \
	trap 'kill $$pid 2>/dev/null' EXIT INT TERM; \
	end=$$(( $$(date +%s) + $(DEMO_WAIT) )); \
	until grep -q 'serving' $(BIN)/embedded.log; do \
	  kill -0 $$pid 2>/dev/null || { cat $(BIN)/embedded.log; exit 1; }; \
	  [ $$(date +%s) -lt $$end ] || { cat $(BIN)/embedded.log; \
	    echo "make demo: the embedded server did not load the demo shop within $(DEMO_WAIT) s (DEMO_WAIT)"; exit 1; }; \
	  sleep 0.5; done; \
	$(MAKE) --no-print-directory demo-serve DEMO_SERVE_DSN='root@tcp($(EMBEDDED_ADDR))/$(DEMO_DB)'

# Starts catalogd on the demo shop, waits until it is ready (catalogd
# healthcheck: one request to /readyz each, bounded; at most DEMO_WAIT
# seconds in all), then ends with the URLs to try; Ctrl-C stops it.
demo-serve:
	@echo "make demo: starting catalogd on $(DEMO_LISTEN), admin $(DEMO_ADMIN_LISTEN) (site URL $(DEMO_SITE_URL))…"
	@$(DEMO_ENV) CATALOG_DSN='$(DEMO_SERVE_DSN)' $(BIN)/catalogd & pid=$$!; \
	trap 'kill $$pid 2>/dev/null; wait $$pid' EXIT INT TERM; \
	end=$$(( $$(date +%s) + $(DEMO_WAIT) )); \
	until why=$$($(DEMO_ENV) CATALOG_DSN='$(DEMO_SERVE_DSN)' $(BIN)/catalogd healthcheck 2>&1); do \
	  kill -0 $$pid 2>/dev/null || exit 1; \
	  [ $$(date +%s) -lt $$end ] || { echo "make demo: catalogd is not ready after $(DEMO_WAIT) s (DEMO_WAIT): $${why#catalogd: }"; exit 1; }; \
	  sleep 0.5; done; \
	echo; \
	echo "The demo shop is served. Try:"; \
	echo "  curl $(DEMO_SITE_URL)/wp-json/shop/v1/catalog"; \
	echo "  curl '$(DEMO_SITE_URL)/wp-json/shop/v1/catalog/products?per_page=2&framework=qbox'"; \
	echo "  curl $(DEMO_SITE_URL)/wp-json/shop/v1/catalog/products/dispatch-system"; \
	echo "  curl $(DEMO_SITE_URL)/llms.txt"; \
	echo "  curl $(DEMO_SITE_URL)/openapi.json"; \
	echo "  $(BIN)/catalogctl --base-url $(DEMO_BASE) products --framework qbox"; \
	echo "Ctrl-C stops it."; \
	wait $$pid

clean:
	rm -rf $(BIN) httpapi/internal/openapilint/node_modules
