# reprobench: make demo runs the main job, make test runs every check.
# Both install what they need first (make setup).

GO          ?= go
GOBIN       := $(shell $(GO) env GOPATH)/bin
STATICCHECK ?= $(GOBIN)/staticcheck
BIN         := bin
# Open MPI refuses to run as root and is slow with CMA on these VMs unless told.
export OMPI_ALLOW_RUN_AS_ROOT=1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
MPIRUN      ?= $(shell command -v mpirun.openmpi || command -v mpirun)

.PHONY: all setup build demo latency test check unit nompi clean test-repeat slurm

all: build

setup:
	@bash scripts/setup.sh

build: setup
	$(GO) build -o $(BIN)/ ./cmd/... ./examples/...

# demo: the full method (design -> launch against Open MPI and MPICH ->
# analyze -> compare -> plot -> report), output in demo-out/, ending with the
# one-page report demo-out/report.html.
demo: build
	timeout 900 bash scripts/demo.sh

# latency: the smallest real measurement, 8-byte one-way latency on 2 ranks.
latency: build
	timeout 300 $(MPIRUN) -np 2 $(BIN)/pingpong -n 10000 -size 8

# bench/ is a module of its own (bench/go.mod, replacing the library with
# ../), so ./... here stops at it; every target that checks or tests the
# library does the same in bench/ ($(BENCH)).
BENCH       := cd bench &&

# check: formatting, vet (all three build flavors), staticcheck.
check: setup
	@files="$$(gofmt -l .)"; if [ -n "$$files" ]; then echo "gofmt needed:"; echo "$$files"; exit 1; fi
	$(GO) vet ./...
	$(GO) vet -tags mpich ./...
	$(GO) vet -tags nompi ./...
	$(STATICCHECK) ./...
	$(BENCH) $(GO) vet ./... && $(GO) vet -tags mpich ./... && $(GO) vet -tags nompi ./... && $(STATICCHECK) ./...

# unit: every test, including the MPI integration tests (RB_REQUIRE_MPI=1
# makes a missing MPI library a failure rather than a skip). One package at
# a time (-p 1): on a 2-core machine the oversubscribed MPICH tests of one
# package (busy-polling ranks) otherwise starve the real-MPI tests of
# another, which then time out or measure a starved machine (seen: a
# 60 s launcher timeout, a clock fit off by 311 ppm).
# RB_REQUIRE_SLURM=1 does the same for Slurm (the one-node cluster of
# scripts/slurm-up.sh that the Slurm tests start), and RB_REQUIRE_CHROMIUM=1
# for the headless Chromium that renders reprobench report's page.
# -timeout is a deadline against a hang, per package, within CI's 90
# minutes, not a bound on speed (the tests' own deadlines stretch with the
# load: internal/mpirun.Deadline; docs/clusters.md).
unit: setup
	RB_REQUIRE_MPI=1 RB_REQUIRE_SLURM=1 RB_REQUIRE_CHROMIUM=1 $(GO) test -p 1 -count=1 -timeout 60m ./...
	$(BENCH) RB_REQUIRE_MPI=1 $(GO) test -p 1 -count=1 -timeout 60m ./...

# nompi: everything still builds and tests without MPI (no cgo at all).
nompi:
	CGO_ENABLED=0 $(GO) test -count=1 -short ./...
	$(BENCH) CGO_ENABLED=0 $(GO) test -count=1 -short ./...

test: check unit nompi

# test-repeat: the launcher's kill/resume integration tests N times in a
# row, counting passes (issue #23); BURN=2 adds two CPU burners beside them.
# make test-repeat N=20; make test-repeat N=5 BURN=2
N    ?= 20
BURN ?= 0
test-repeat: setup
	bash scripts/test-repeat.sh $(N) $(BURN)

# slurm: only the tests that start a one-node Slurm (issue #20): the fixture's
# own test and the launcher's (srun, steps in an allocation, batch jobs, job
# arrays, timeouts, a wrong PMI plugin).
slurm: setup
	RB_REQUIRE_MPI=1 RB_REQUIRE_SLURM=1 $(GO) test -p 1 -count=1 -timeout 30m -v -run 'Slurm|^TestCluster' ./internal/slurmtest/ ./campaign/ ./cmd/reprobench/

clean:
	rm -rf $(BIN) demo-out test-repeat-out

# fuzz: every fuzz target for FUZZTIME each, one after the other (issue #21:
# size, duration and spec parsers, the raw-data and design readers, the plot
# layout on adversarial data). Crashers land in the package's testdata/fuzz,
# which plain "go test" then replays. FUZZPARALLEL workers (default: all CPUs).
.PHONY: fuzz
FUZZTIME     ?= 60s
FUZZPARALLEL ?= $(shell nproc)
FUZZ_TARGETS := ./internal/units:FuzzParseBytes ./design:FuzzParseSizes ./design:FuzzReadDesign \
	./analysis:FuzzParseDecimal ./analysis:FuzzReadRaw ./clocksync:FuzzParseSpec \
	./cmd/reprobench:FuzzParseAfter ./plots:FuzzNiceTicks ./plots:FuzzTimeLogTicks \
	./cmd/reprobench:FuzzPlotLayout
fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "== $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -parallel $(FUZZPARALLEL) $$pkg; \
	done
# vcluster: a virtual cluster of namespaced nodes with their own clocks (root),
# real Open MPI and MPICH across them, clock sync judged by the exact truth
# (scripts/vcluster.sh; RUNS=10 also measures the accuracy table of docs/measured.md).
.PHONY: vcluster
vcluster: setup
	timeout 21600 bash scripts/vcluster.sh
# make test: where namespaces are not permitted the virtual-cluster tests fail
# rather than skip.
unit: export RB_REQUIRE_VCLUSTER=1

# guidelines (issue #18): every performance guideline at three sizes with Open
# MPI and MPICH on 2 ranks, decided per size (signed-rank on per-mpirun
# medians, Holm); prints the violations found (scripts/guidelines.sh).
# make guidelines GUIDE_MPIRUNS=20 GUIDE_NREP=200 GUIDE_SIZES=8,1K,64K
.PHONY: guidelines
guidelines: setup
	timeout 3600 bash scripts/guidelines.sh
