# Plumb: the two commands a fresh machine needs are `make run` and `make test`.
# Every target installs what it needs first (scripts/install-deps.sh is idempotent and quick
# when nothing is missing).

SWIFT ?= swift
# One set of flags for build and test, so both share one build cache; warnings fail the build.
SWIFT_FLAGS ?= -Xswiftc -warnings-as-errors
BIN = .build/debug/plumb
# Tests run at most this many at a time. Many start brokers, agents and Home Assistant's
# validator; unbounded on two cores they starve each other into timeouts. At 4 the suite takes
# as long as unbounded (its longest serialized suites set the pace).
TEST_WIDTH ?= 4

.PHONY: docs all deps deb-deps toolchain build run test test-interop test-asan test-tsan fuzz fuzz-merge bench chaos chaos-build soak deb test-deb check-deploy test-fresh test-vm test-dashboard clean help

all: build

help:
	@echo "make run    run the agent on the simulated ADXL345 against a local broker, showing its topics"
	@echo "make test   install what is missing, build, run the whole test suite"
	@echo "make test-interop  install RabbitMQ (Debian's, MQTT 3.1.1) and run the agent's interoperability test against it"
	@echo "make test-asan  the whole test suite under AddressSanitizer and LeakSanitizer (build in .build/asan)"
	@echo "make test-tsan  the whole test suite under ThreadSanitizer (build in .build/tsan)"
	@echo "make fuzz   build the libFuzzer targets (ASan, .build/fuzz) and run each for 10^6 inputs (FUZZ_RUNS=N)"
	@echo "make fuzz-merge  the same, then add the inputs that reach new coverage to Fuzz/Corpus"
	@echo "make bench  build a release and print the benchmark figures"
	@echo "make chaos  the release agent under hostile clients, an inbound stall, broker restarts, sensor flaps, a full disk"
	@echo "            and a clock jump (about 9 minutes; CHAOS_MESSAGES, CHAOS_RATE, CHAOS_SEED, CHAOS_FLOOD; root for the tmpfs)"
	@echo "make soak   the release agent at 100 Hz with 10 requests/s and a low-rate hostile mix (SOAK_HOSTILE_RATE, 2/s)"
	@echo "            for SOAK_SECONDS (3600), a line per SOAK_INTERVAL (60)"
	@echo "make deb    build the Debian package .build/deb/plumb_<version>_<arch>.deb (release, stripped)"
	@echo "make test-deb  (root) lintian, then install, upgrade, remove and purge the package, checking each step"
	@echo "make check-deploy  rate the unit's exposure (at most 2.0), verify it, run the agent in its sandbox"
	@echo "make test-fresh  (root) make test on a fresh Debian 12 root from git clone: the bare-clone acceptance test"
	@echo "make test-vm  (root) the package in a Debian 12 guest under QEMU with a real systemd and kernel (i2c-stub as the chip):"
	@echo "            the README's Pi steps, one line per check (about 3½ minutes, the first 4½; PLUMB_VM_KVM=1, PLUMB_VM_CACHE)"
	@echo "make test-dashboard  the dashboard in a real Home Assistant 2025.4.4 through Chromium: cards, values, a button,"
	@echo "            a unit change, history, logbook and recorder rows (about 11 minutes; DASHBOARD_SECONDS, 600)"
	@echo "make docs   write the references generated from the code: docs/reference/cli.md, settings.md and mqtt.md, deploy/completions/"
	@echo "make build  build the debug binary at $(BIN)"
	@echo "make clean  remove build products"

toolchain:
	@command -v $(SWIFT) >/dev/null 2>&1 || { \
	  echo "error: no Swift toolchain on PATH. Install Swift 6.3 (see docs/getting-started/raspberry-pi.md, 'Install on a Raspberry Pi')" \
	       "and put its usr/bin on PATH." >&2; exit 1; }

deps:
	@./scripts/install-deps.sh

build: deps toolchain
	$(SWIFT) build $(SWIFT_FLAGS)

# The agent on the simulated sensor against a mosquitto on a free loopback port (or MQTT_URL),
# with mosquitto_sub showing the topics. Ctrl-C stops everything.
run: build
	@PLUMB_BIN=$(BIN) ./scripts/run-demo.sh

test: deps toolchain
	@./scripts/prepare-ha-conformance.sh
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=$(TEST_WIDTH) SWIFT=$(SWIFT) ./scripts/run-tests.sh $(SWIFT_FLAGS) --skip-build
	FUZZ_RUNS=10000 SWIFT=$(SWIFT) ./scripts/fuzz.sh

# The fuzz targets (docs/development/testing.md, Fuzzing): built apart in .build/fuzz, each run on a working copy of
# its corpus; fuzz-merge also grows the repository's corpus (Fuzz/Corpus) with the new finds.
fuzz: deps toolchain
	SWIFT=$(SWIFT) ./scripts/fuzz.sh

fuzz-merge: deps toolchain
	SWIFT=$(SWIFT) ./scripts/fuzz.sh --merge

# The agent against RabbitMQ's MQTT plugin (docs/guides/brokers-and-failover.md, 'Brokers other than mosquitto'): installs
# rabbitmq-server when missing, then runs only the interoperability suite. `make test` skips that
# suite, saying why, when RabbitMQ is absent; here its absence is a failure.
test-interop: deps toolchain
	@./scripts/install-deps.sh interop
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	PLUMB_REQUIRE_RABBITMQ=1 $(SWIFT) test $(SWIFT_FLAGS) --skip-build --filter RabbitMQInteropTests

# The whole suite with our code (the test runner and every plumb it starts) built under a
# sanitizer, in a scratch path of its own; any sanitizer report fails the run (docs/development/testing.md, Sanitizers).
test-asan: deps toolchain
	@./scripts/prepare-ha-conformance.sh
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" TEST_WIDTH=$(TEST_WIDTH) ./scripts/test-sanitized.sh address

test-tsan: deps toolchain
	@./scripts/prepare-ha-conformance.sh
	@SWIFT=$(SWIFT) SWIFT_FLAGS="$(SWIFT_FLAGS)" TEST_WIDTH=$(TEST_WIDTH) ./scripts/test-sanitized.sh thread

# Every section, accuracy included; `.build/release/plumb-bench [FIFO_SECONDS [AGENT_SECONDS [CHIPS]]]`
# (10, 60, 20) or `plumb-bench accuracy [CHIPS]` run shorter ones (docs/development/benchmarks.md, Benchmarks).
bench: deps toolchain
	$(SWIFT) build -c release --product plumb --static-swift-stdlib
	$(SWIFT) build -c release --product plumb-bench
	.build/release/plumb-bench

# The chaos suite and the soak (docs/development/testing.md, 'Chaos and soak'): Swift Testing suites in Tests/AgentTests/Chaos,
# skipped by `make test`, run here one at a time on the release agent (the one whose memory counts).
# Each scenario prints one CHAOS line; they are gathered in .build/chaos-summary.txt and shown at the end.
CHAOS_RUN = SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH=1 CHAOS_SUMMARY=$(CURDIR)/.build/chaos-summary.txt \
	PLUMB_PRODUCTS_DIR=$(CURDIR)/.build/release $(SWIFT) test $(SWIFT_FLAGS) --skip-build --no-parallel

chaos-build: deps toolchain
	@./scripts/install-deps.sh chaos
	$(SWIFT) build -c release --product plumb --static-swift-stdlib
	$(SWIFT) build $(SWIFT_FLAGS) --build-tests
	@rm -f .build/chaos-summary.txt

chaos: chaos-build
	@PLUMB_CHAOS=1 $(CHAOS_RUN) --filter 'AgentTests\.(HostilePayload|InboundStallChaos|OutageChaos|SystemChaos)Tests'; \
	  status=$$?; echo; cat .build/chaos-summary.txt 2>/dev/null; exit $$status

soak: chaos-build
	@PLUMB_SOAK=1 $(CHAOS_RUN) --filter 'AgentTests\.SoakTests'; \
	  status=$$?; echo; cat .build/chaos-summary.txt 2>/dev/null; exit $$status

# The Debian package and its checks (docs/getting-started/raspberry-pi.md, 'Install on a Raspberry Pi'). Building needs
# dpkg-dev as well; the checks lintian, python3-seccomp and more (scripts/install-deps.sh deb, deb-checks).
deb-deps:
	@./scripts/install-deps.sh deb-checks

deb: deps toolchain
	@./scripts/install-deps.sh deb
	@SWIFT=$(SWIFT) ./scripts/build-deb.sh

test-deb: deb deb-deps
	@./scripts/test-deb.sh

check-deploy: deb deb-deps
	@./scripts/check-deploy.sh

# The dashboard `plumb dashboard` prints, in a real Home Assistant driven through Debian's Chromium
# (Tests/Dashboard/README.md): installs HA, its frontend and Playwright in a cached virtualenv and
# chromium when missing; screenshots in .build/dashboard/. Not part of make test.
# The references generated from the code (docs/reference/cli.md, settings.md and mqtt.md, the shell completions); make test
# fails when a committed one differs from what this writes.
docs: toolchain
	$(SWIFT) build $(SWIFT_FLAGS) --product plumb-docs
	.build/debug/plumb-docs $(CURDIR)

test-dashboard: build
	@PLUMB_BIN=$(BIN) DASHBOARD_SECONDS=$(DASHBOARD_SECONDS) ./scripts/test-dashboard.sh

# The bare-clone acceptance test: debootstrap a minimal Debian 12, add only the toolchain, git and
# make, clone HEAD into it and run `make test` there (about 10 minutes; not part of `make test`).
test-fresh: toolchain
	@./scripts/test-fresh-debian.sh

# The package on a real systemd and a real kernel (docs/development/testing.md, 'Tests on a real systemd and kernel'):
# debootstrap a Debian 12 guest (cached in /var/tmp/plumb-vm), boot it under QEMU, software
# emulation unless PLUMB_VM_KVM=1, and run the README's Raspberry Pi steps in it with i2c-stub
# standing in for the ADXL345. Not part of `make test`.
test-vm: deb
	@./scripts/test-vm.sh

clean:
	$(SWIFT) package clean
