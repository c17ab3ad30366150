# cardscan: build, test, benchmark.
GO ?= go
STATICCHECK_VERSION ?= v0.8.2
GOBIN ?= $(shell $(GO) env GOPATH)/bin

.PHONY: all build man test vet fmt-check tidy-check staticcheck unit fuzz-seeds bench bench-unit beam-test compare bench-gateway clean perf pgo debian-packages node-deps

all: build

# Without cgo the binary is static: no dynamic loader or libc to start,
# about 0.9 ms of CPU less per run (docs/performance.md, start-up).
build:
	CGO_ENABLED=0 $(GO) build -o bin/cardscan ./cmd/cardscan

# The manual page, written from the flag declarations: man -l bin/cardscan.1.
man: build
	bin/cardscan man > bin/cardscan.1

# The one command that must pass on a fresh machine.
test: fmt-check tidy-check vet staticcheck debian-packages node-deps unit fuzz-seeds bench-unit beam-test

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The nested modules replace the main one, so a requirement added or
# dropped there leaves their go.sum stale without any build failing.
tidy-check:
	@for m in . bench fuzz contrib/beam; do \
	  (cd $$m && $(GO) mod tidy -diff >/dev/null) || { echo "go.mod/go.sum of $$m are not tidy: run (cd $$m && go mod tidy)"; exit 1; }; \
	done

vet:
	$(GO) vet ./...

staticcheck:
	@command -v $(GOBIN)/staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	$(GOBIN)/staticcheck ./...

# fastvalidate and the pipeline (the splitter's walk over blocks) once more
# as a machine without their amd64 vector passes runs them.
unit:
	$(GO) test -race -count=1 ./...
	$(GO) test -count=1 -tags purego ./fastvalidate/... ./internal/pipeline/

# bench/ is its own module (it pulls in the validators it compares with), so
# ./... above does not reach it; no npm, no timing, only its checks.
bench-unit:
	@command -v $(GOBIN)/staticcheck >/dev/null 2>&1 || $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)
	cd bench && $(GO) vet ./... && $(GOBIN)/staticcheck ./... && $(GO) test -race -count=1 ./...

# contrib/beam is its own module (the Beam Go SDK's dependency tree stays
# out of the main module): the pipeline's vet and its tests, which run it
# on Prism in process and compare its outputs, and cardscan merge of its
# digest files, with cardscan's over the same dumps. The first
# build downloads and compiles the SDK's tree (docs/cli.md says how long).
beam-test:
	cd contrib/beam && $(GO) vet ./... && $(GO) test -count=1 ./...

# Debian packages the tests drive for real (each test skips, naming the
# package, where it is missing): GNU parallel and Dask distributed run the
# sharding recipes (internal/cli), pre-commit runs .pre-commit-hooks.yaml
# (internal/integrations), headless Chromium loads cardscan report's page
# (internal/htmlreport), headless Neovim is the LSP client that talks to
# cardscan lsp (internal/lspserver), xmllint checks --format junit against the JUnit
# schema (internal/cli), zsh and fish source cardscan's completion scripts
# (internal/cli; bash is already there). Dask is checked under Debian's
# /usr/bin/python3: a python3 first on PATH (pyenv, a virtualenv) may not
# see Debian's modules. Whatever is missing is named with the reason it is
# needed, then installed in one apt-get run, when we may, with apt's own
# output and progress (waiting up to ten minutes for another apt run to
# let go of its lock).
debian-packages:
	@missing=""; \
	need() { echo "debian-packages: $$1 is missing: $$2"; missing="$$missing $$1"; }; \
	command -v parallel >/dev/null 2>&1 || need parallel "runs the GNU parallel sharding recipe (internal/cli)"; \
	command -v pre-commit >/dev/null 2>&1 || need pre-commit "runs .pre-commit-hooks.yaml (internal/integrations)"; \
	command -v chromium >/dev/null 2>&1 || need chromium "loads cardscan report's page headless (internal/htmlreport)"; \
	/usr/bin/python3 -c 'import distributed' >/dev/null 2>&1 || need python3-distributed "runs the Dask sharding recipe (internal/cli)"; \
	command -v xmllint >/dev/null 2>&1 || need libxml2-utils "checks --format junit against the JUnit schema with xmllint (internal/cli)"; \
	command -v nvim >/dev/null 2>&1 || need neovim "is the LSP client the editor test drives cardscan lsp with (internal/lspserver)"; \
	command -v zsh >/dev/null 2>&1 || need zsh "sources cardscan's zsh completion (internal/cli)"; \
	command -v fish >/dev/null 2>&1 || need fish "sources cardscan's fish completion (internal/cli)"; \
	if [ -z "$$missing" ]; then echo "debian-packages: all installed"; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	  echo "debian-packages: apt-get install$$missing"; \
	  apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y -o DPkg::Lock::Timeout=600 $$missing || \
	    echo "warning: could not install$$missing; the tests that need them will be skipped"; \
	else echo "warning: not installed:$$missing (not root, or no apt-get); the tests that need them will be skipped"; fi

# Node packages the tests run, each pinned by its lockfile (the tests skip
# without them): Node's jose and canonicalize sign and verify cards in
# cardsig's cross-implementation test; @a2a-js/sdk signs and verifies
# cards in cardsig's SDK interop test and loads the cards cardscan
# migrate writes in bench/interop's test; the MCP Inspector is the client
# internal/mcpserver's tests drive cardscan mcp with; the JavaScript A2A
# SDK (@a2a-js/sdk, with express and grpc-js) serves the A2A servers
# internal/fetch's probe tests ask; ajv compiles cardscan schema's output
# and judges fastvalidate's mutated cards by the published schemas
# (fastvalidate). npm ci runs again in a directory only when its lockfile
# changes.
NODE_DEPS = cardsig/testdata/node cardsig/testdata/a2ajs internal/mcpserver/testdata/inspector fastvalidate/testdata/ajv internal/fetch/testdata/jssdk
node-deps:
	@if ! command -v npm >/dev/null 2>&1; then \
	  echo "warning: npm is not installed; cardsig's cross-implementation tests, the MCP Inspector test, the ajv schema and differential tests and the JavaScript SDK probe test will be skipped"; \
	else for d in $(NODE_DEPS); do \
	  if [ ! -f $$d/node_modules/.package-lock.json ] || [ $$d/package-lock.json -nt $$d/node_modules/.package-lock.json ]; then \
	    (cd $$d && npm ci --no-audit --no-fund --loglevel=error) || exit 1; \
	  fi; done; fi

# cardscan's start-up on a one-card file beside a Go binary that reads it,
# then its throughput on a generated 100 MB dump (kept in bin/perf/):
# -j 1 against the validator alone, -j 2 against the validator on two
# goroutines, and -j 2 on a zstd copy against decoding alone; and
# --input json on the dump's JSON cards as an array beside the same cards
# as NDJSON (both written to bin/perf/ the first time). Wall clock and
# CPU time, fastest and median of interleaved rounds.
PERF_DUMP = bin/perf/agentcard-100mb.ndjson

perf: build
	@test -f $(PERF_DUMP) || { mkdir -p bin/perf && \
	  $(GO) run ./corpus/cardgen -seed 1 -size 100MB -dialect agentcard -defects 0.05 -o $(PERF_DUMP) && \
	  $(GO) run ./corpus/cardgen -seed 1 -size 100MB -dialect agentcard -defects 0.05 -o $(PERF_DUMP).zst; }
	$(GO) run ./internal/perf -dump $(PERF_DUMP) -zdump $(PERF_DUMP).zst -cardscan bin/cardscan

# A CPU profile of cardscan for profile-guided optimisation, written to
# bin/pgo/cardscan.pgo: validation, zstd input, --cross-card and diff run
# in-process under the profiler on a generated 40 MB dump of every dialect
# (kept in bin/pgo/). The build does not use it: no row gained beyond noise
# (docs/performance.md, profile-guided optimisation).
PGO_DUMP = bin/pgo/all-40mb.ndjson

pgo:
	@test -f $(PGO_DUMP) || { mkdir -p bin/pgo && \
	  echo "$(GO) run ./corpus/cardgen -seed 2 -size 40MB -dialect all -defects 0.05 -o $(PGO_DUMP) (and $(PGO_DUMP).zst)" && \
	  $(GO) run ./corpus/cardgen -seed 2 -size 40MB -dialect all -defects 0.05 -o $(PGO_DUMP) && \
	  $(GO) run ./corpus/cardgen -seed 2 -size 40MB -dialect all -defects 0.05 -o $(PGO_DUMP).zst; }
	$(GO) run ./internal/pgo -dump $(PGO_DUMP) -zdump $(PGO_DUMP).zst -o bin/pgo/cardscan.pgo
	@ls -l bin/pgo/cardscan.pgo

# fastvalidate's benchmarks, then signature verification: verifications per
# second per core for EdDSA, ES256 and RS256 (BenchmarkVerify).
bench:
	$(GO) test -run=NONE -bench=. -benchmem ./fastvalidate/
	$(GO) test -run=NONE -bench=. -benchmem ./cardsig/

# The fuzz/ module (differential tests against independent references, and
# the fuzz targets): vet and staticcheck, its tests under the race detector
# with -short sizes, the differentials at full size (100,000 schema cards),
# the seed corpora, and a short bounded fuzz run of three targets; then the
# scanner's two ways of computing quote and care bits against a byte loop,
# and the splitter's block path against its byte loop, fuzzed as long.
FUZZTIME ?= 10s
fuzz-seeds: staticcheck
	cd fuzz && $(GO) vet ./...
	cd fuzz && $(GOBIN)/staticcheck ./...
	cd fuzz && $(GO) test -race -short -count=1 ./...
	cd fuzz && $(GO) test -count=1 -run 'Differential' ./...
	cd fuzz && $(GO) test -run=NONE -fuzz=FuzzValidate -fuzztime=$(FUZZTIME) .
	cd fuzz && $(GO) test -run=NONE -fuzz=FuzzSchemaDifferential -fuzztime=$(FUZZTIME) .
	cd fuzz && $(GO) test -run=NONE -fuzz=FuzzCanonicalDifferential -fuzztime=$(FUZZTIME) .
	$(GO) test -run=NONE -fuzz=FuzzClassify_AgreesWithByteLoop -fuzztime=$(FUZZTIME) ./fastvalidate/internal/tape/
	$(GO) test -run=NONE -fuzz=FuzzSplitterBlockPath -fuzztime=$(FUZZTIME) ./internal/pipeline/

# Longer fuzzing, every target in turn: make fuzz FUZZ_LONG=30m. A failing
# input is written to testdata/fuzz/<target>/ of the package that failed:
# commit it with the fix, and every make test runs it from then on.
FUZZ_LONG ?= 5m
.PHONY: fuzz
fuzz:
	cd fuzz && for t in FuzzValidate FuzzSchemaDifferential FuzzCanonicalDifferential FuzzULID FuzzSemVer FuzzURI FuzzProfiles; do \
	  $(GO) test -run=NONE -fuzz=$$t -fuzztime=$(FUZZ_LONG) . || exit 1; done
	for t in FuzzClassify_AgreesWithByteLoop FuzzScanStringBits; do \
	  $(GO) test -run=NONE -fuzz=$$t -fuzztime=$(FUZZ_LONG) ./fastvalidate/internal/tape/ || exit 1; done
	for t in FuzzParsePlainHTTP FuzzSafeHTTPS; do \
	  $(GO) test -run=NONE -fuzz=$$t -fuzztime=$(FUZZ_LONG) ./fastvalidate/ || exit 1; done
	for t in FuzzFraming FuzzSplitterBlockPath; do \
	  $(GO) test -run=NONE -fuzz=$$t -fuzztime=$(FUZZ_LONG) ./internal/pipeline/ || exit 1; done
	$(GO) test -run=NONE -fuzz=FuzzPolicyFile -fuzztime=$(FUZZ_LONG) ./internal/cli/
	$(GO) test -run=NONE -fuzz=FuzzStdioTransport -fuzztime=$(FUZZ_LONG) ./internal/mcpserver/
	$(GO) test -run=NONE -fuzz=FuzzAppendJSONString -fuzztime=$(FUZZ_LONG) ./internal/report/
	$(GO) test -run=NONE -fuzz=FuzzMigrate -fuzztime=$(FUZZ_LONG) ./internal/migrate/
	$(GO) test -run=NONE -fuzz=FuzzMergeReadsBack -fuzztime=$(FUZZ_LONG) ./internal/summary/

.PHONY: sample corpus

# Regenerates corpus/sample.ndjson.zst byte for byte (corpus/cardgen's tests
# fail when it is stale).
sample:
	$(GO) run ./corpus/cardgen -sample -o corpus/sample.ndjson.zst

# Benchmark dumps of about 100 MB in bench/out/ (gitignored). The two
# AgentCard dumps carry 5% defective cards, as registry dumps do, with a
# .truth.tsv naming each defect; the A2A dump, of all four versions, is all
# valid. The .zst holds the same cards as agentcard-100mb.ndjson.
corpus:
	$(GO) build -o bin/cardgen ./corpus/cardgen
	mkdir -p bench/out
	bin/cardgen -seed 1 -size 100MB -dialect agentcard -defects 0.05 -o bench/out/agentcard-100mb.ndjson -truth bench/out/agentcard-100mb.truth.tsv
	bin/cardgen -seed 1 -size 100MB -dialect agentcard -defects 0.05 -o bench/out/agentcard-100mb.ndjson.zst
	bin/cardgen -seed 2 -size 100MB -dialect agentcard-schema -defects 0.05 -o bench/out/schema-100mb.ndjson -truth bench/out/schema-100mb.truth.tsv
	bin/cardgen -seed 3 -size 100MB -dialect a2a -o bench/out/a2a-100mb.ndjson

# cardscan side by side with the validators users would pick instead, on the
# dumps `make corpus` writes to bench/out/ (made first if missing) and the
# real cards; the table goes to stdout and bench/out/compare.md. Needs node
# and npm for ajv. COMPARE_MB=20 judges only the first 20 MB of each dump.
COMPARE_RUNS ?= 5
COMPARE_MB ?= 0
COMPARE_DUMPS = bench/out/agentcard-100mb.ndjson bench/out/schema-100mb.ndjson bench/out/a2a-100mb.ndjson

compare:
	@for f in $(COMPARE_DUMPS); do test -f $$f || { $(MAKE) corpus >&2 && break; } || exit 1; done
	@cd bench/ajv && npm ci --no-audit --no-fund --loglevel=error >&2
	@cd bench && $(GO) run ./cmd/compare -runs $(COMPARE_RUNS) -mb $(COMPARE_MB)

# fastvalidate in a gateway: the parallel Pool benchmark, zero allocations,
# and per-card latency percentiles for a 1.7 KB and a 64 KB card.
bench-gateway:
	cd bench && $(GO) test -count=1 -run=Gateway -bench=Pool_Validate -benchmem .
	cd bench && $(GO) run ./cmd/latency

clean:
	rm -rf bin
