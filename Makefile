# Thin wrapper over scripts/ and CMake. The two commands of the README:
#   make run    install what is missing, build, run tierd on the embedded config
#               (foreground, a live status line per tick; Ctrl-C stops it)
#   make test   install, build, run every test (the unit tests in an ASan+UBSan
#               build, the few its sanitizers skip in release, QEMU scenarios)
BUILD      ?= build
ASAN_BUILD ?= $(BUILD)/asan
JOBS       ?= $(shell nproc)
CMAKE_ARGS ?=
# The emulated machine's runner on this build (docs/testing.md).
VMTEST      = tests/vm/run.sh --build-dir $(abspath $(BUILD))

.PHONY: all deps build run test unit asan vmtest faults vmtest-soak format format-check tidy clean help \
        compile unit-tests asan-compile asan-tests vmtest-fetch vmtest-run vmtest-model \
        compile-release-step release-tests

all: build

help:
	@echo "make run           install deps, build, run tierd in the foreground (Ctrl-C stops it)"
	@echo "make test          install deps, build, run unit + ASan/UBSan unit + QEMU scenario tests"
	@echo "make build         configure and build into $(BUILD)/ (binaries in $(BUILD)/bin)"
	@echo "make unit          unit tests only"
	@echo "make asan          unit tests built with AddressSanitizer + UBSan in $(ASAN_BUILD)/"
	@echo "make vmtest        QEMU emulated CXL/NUMA machine scenarios only"
	@echo "make faults        the fault campaign in the emulated machine (not in make test)"
	@echo "make vmtest-soak   every scenario 20 runs quiet + 10 with the host loaded; pass counts (hours)"
	@echo "make format        clang-format every source file in place"
	@echo "make format-check  fail if any source file is not clang-formatted"
	@echo "make tidy          clang-tidy with the committed .clang-tidy (slow; not in make test)"
	@echo "make bench-placement  head-to-head of placement contenders in the emulated machine (not in make test)"
	@echo "make bench-model   the latency model under load and what it costs (not in make test)"

deps:
	@scripts/install-deps.sh

build: deps
	@$(MAKE) --no-print-directory compile

# The embedded config, a private state file (/var/lib is the service's), the
# metrics exporter on its default port, one status line per policy tick.
run: build
	$(BUILD)/bin/tierd --foreground --status-line --state $(BUILD)/run-state.json

unit: build
	@$(MAKE) --no-print-directory unit-tests

asan: deps
	@$(MAKE) --no-print-directory asan-compile
	@$(MAKE) --no-print-directory asan-tests

vmtest: build
	@$(MAKE) --no-print-directory vmtest-run

# make test: scripts/test-all.sh runs the steps below, the emulated
# machine's downloads beside the release build, the ASan build in the
# background at nice 19 beside the release unit tests and the emulated
# machine, its unit tests last (docs/testing.md).
test: format-check deps
	@scripts/test-all.sh "$(MAKE)" $(BUILD) $(ASAN_BUILD)

# The steps without their prerequisites (test-all.sh and the targets above).
CONFIGURE = cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_ARGS) >/dev/null
compile:
	@$(CONFIGURE)
	@cmake --build $(BUILD) -j $(JOBS)

unit-tests:
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS) -L unit

# make test's release build: the programs, libraries and benchmarks, and only
# the unit-test binaries a release build must have (the release-step target,
# CMakeLists.txt); every unit test runs in the ASan+UBSan build, and
# release-tests runs here the cases that build skips.
compile-release-step:
	@$(CONFIGURE)
	@cmake --build $(BUILD) -j $(JOBS) --target release-step

release-tests:
	cd $(BUILD) && ctest --output-on-failure --no-tests=error -j $(JOBS) -L release

asan-compile:
	@cmake -S . -B $(ASAN_BUILD) -DCMAKE_BUILD_TYPE=Debug -DTIER_SANITIZE=ON $(CMAKE_ARGS) >/dev/null
	@cmake --build $(ASAN_BUILD) -j $(JOBS)

asan-tests:
	cd $(ASAN_BUILD) && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(abspath tests/lsan.supp) \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 ctest --output-on-failure --no-tests=error -j $(JOBS) -L unit

vmtest-fetch:
	$(VMTEST) --fetch-only

# Up to JOBS guests at once (the numa mode's scenarios are split over two
# guests, "# vmtest-guest: 2"): a whole run in about half the time.
vmtest-run:
	$(VMTEST) --jobs $(JOBS)

# The latency model's fidelity (issue 18 item 2): HMAT's ratios with the
# model, flat ones without. A step of make test (scripts/test-all.sh) with
# the ASan build paused: the model's guest times memory, so it runs alone
# on the host (docs/benchmarks.md, "The latency model").
vmtest-model:
	$(VMTEST) --mode numa --mode model --scenario fidelity

# The fault campaign (tests/vm scenarios with "# vmtest-set: faults"): tierd
# killed, its state file damaged, a CXL node going away; docs/testing.md.
faults: build
	$(VMTEST) --set faults

# The suite run again and again (scripts/vmtest-soak.sh): per-scenario pass
# counts quiet and with a competing CPU load, and the time against the limit.
#   make vmtest-soak SOAK_ARGS="--quiet 3 --loaded 1 --mode numa"
SOAK_ARGS ?=
vmtest-soak: build
	scripts/vmtest-soak.sh --build-dir $(abspath $(BUILD)) --jobs $(JOBS) $(SOAK_ARGS)

format:
	@scripts/format.sh

format-check:
	@scripts/format.sh --check

tidy: build
	@scripts/tidy.sh

clean:
	rm -rf $(BUILD)

# The head-to-head of placement contenders under the latency model on the
# newest kernel: fresh QEMU boots, 3 per contender x workload (7 contenders x
# 7 workloads x 3 = 147 boots of 2-10 minutes each, h2h_kv the longest: see
# docs/benchmarks.md; --workloads a,b,c for the first 63); writes its table into
# docs/benchmarks.md. The flat machine's shares: BENCH_ARGS="--mode numa".
#   make bench-placement BENCH_ARGS="--contenders all-fast,kernel --workloads a --boots 2"
BENCH_ARGS ?=
.PHONY: bench-placement
bench-placement: build
	scripts/bench-placement.sh --build-dir $(abspath $(BUILD)) $(BENCH_ARGS)

# The emulated machine's latency model as a benchmark (docs/benchmarks.md "The
# latency model"): HMAT's ratios with the model and flat ones without
# (fidelity), its loaded-latency curve and per-vCPU stalls (fidelity_load),
# and what it costs (model_cost with and without the plugin).
.PHONY: bench-model
bench-model: build
	$(VMTEST) --mode model --scenario fidelity
	$(VMTEST) --mode numa --scenario fidelity
	$(VMTEST) --mode model --scenario fidelity_load
	$(VMTEST) --mode model --scenario model_cost
	$(VMTEST) --mode model --scenario model_cost --no-plugin

# libFuzzer targets (fuzz/, clang, own build dir); not part of `make test`.
#   make fuzz                     60 s per target
#   make fuzz FUZZ_SECONDS=600    longer;  make fuzz FUZZ_RUNS=1000000  by executions
FUZZ_BUILD   ?= $(BUILD)/fuzz
FUZZ_SECONDS ?= 60
FUZZ_RUNS    ?=

.PHONY: fuzz
fuzz:
	FUZZ_SECONDS=$(FUZZ_SECONDS) FUZZ_RUNS=$(FUZZ_RUNS) fuzz/run.sh --build-dir $(FUZZ_BUILD)
