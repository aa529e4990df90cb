# bletrace: build, test and demonstrate. `make demo` and `make test` are the two set-up commands.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the build and the tests need: the system libraries bletrace links (zlib for
# compressed containers), tshark for cross-checking decoding, bluez for btmon, libxml2-utils (xmllint) to validate `diff --format junit`,
# zsh and fish to run the completion scripts (CompletionTests), mandoc to lint the man page;
# and from PyPI, DuckDB for the query test.
APT_PACKAGES := libpcap-dev libbluetooth-dev zlib1g-dev tshark bluez pkg-config libxml2-utils zsh fish mandoc
DEMO_CAPTURE := Captures/reconnect-supervision-timeout.btsnoop
DEMO_FLOW := Captures/reconnect-supervision-timeout.reconnecting.flow
OUT := .build/demo
# The team's shared folder of other people's captures (captures/public/, captures/field/), which
# the repository does not hold: $BLETRACE_SHARED, else ../shared beside the clone (`none`: no
# shared folder). The tests find it the same way (Tests/TestSupport/Fixtures.swift).
SHARED := $(or $(BLETRACE_SHARED),../shared)

.PHONY: help check-install test-examples test-spark spark-deps docs deps build lint test crosscheck demo captures clean install uninstall fuzz fuzz-build

## help: this list: each target and the first sentence of its `## target:` comment.
help:
	@awk -f scripts/make-help.awk $(MAKEFILE_LIST)

## deps: install the Debian packages that are missing (quick when all are present), and DuckDB
## (PyPI, Tests/requirements.txt) for the test that queries the JSON lines of many captures.
deps:
	@bash scripts/deps.sh $(APT_PACKAGES) --pip Tests/requirements.txt duckdb

## build: the bletrace command (debug build, at .build/debug/bletrace).
build: deps
	$(SWIFT) build --product bletrace

## lint: `swift format lint --strict` (the toolchain's swift-format, configured by .swift-format:
## 4-space indentation, lines of at most 120 columns, the default rules but those the
## house style departs from, listed in Formats/architecture.md, "House style") over every Swift file of Sources, Tests,
## Benchmarks, Fuzz, Plugins and Examples. `swift format format -i FILE` puts a file right.
lint:
	@files=$$(find Sources Tests Benchmarks Fuzz Plugins Examples -name '*.swift' -not -path '*/.build*'); \
	$(SWIFT) format lint --strict --parallel $$files && echo "lint: $$(echo "$$files" | wc -l) files formatted as .swift-format says"

## test: every test suite (Swift Testing), including the cross-check against tshark, then the
## example packages (Examples/HeartRateMonitor and Examples/AsyncHeartRate: an app's Bluetooth
## layer, with callbacks and with Swift concurrency, tested against captures, depending on
## bletrace by path as a user's package does), then check-install (a staged release install:
## its man page, its independence from the toolchain, its completion).
test: deps lint
	$(SWIFT) test
	$(MAKE) test-examples
	$(MAKE) check-install

## docs: DocC documentation of the library products, from their catalogues (Sources/*/*.docc) and
## documentation comments, into .build/docs: the library a user's tests import (BLETraceTesting),
## the CoreBluetooth stand-in, the analysis (Lifecycle: BLETrace only re-exports) and the replay.
docs: deps
	mkdir -p .build/docs
	for target in BLETraceTesting BLETraceCoreBluetooth Lifecycle Replay; do \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
	    --output-path .build/docs/$$target --transform-for-static-hosting || exit 1; done

## spark-deps: what the Spark example needs: a Java runtime (Debian's openjdk-17-jre-headless)
## and pyspark (PyPI, Examples/spark/requirements.txt), each installed when missing.
spark-deps:
	@bash scripts/deps.sh openjdk-17-jre-headless --pip Examples/spark/requirements.txt pyspark

## test-spark: the fleet job of Examples/spark on Spark in local mode, over a fleet laid out from
## Captures/ (with a bug report zip, a sysdiagnose and a gzip), checked against bletrace run on
## one machine (Examples/spark/test_fleet.py).
test-spark: build spark-deps
	BLETRACE=$$($(SWIFT) build --show-bin-path)/bletrace python3 Examples/spark/test_fleet.py

## test-examples: build and test Examples/HeartRateMonitor and Examples/AsyncHeartRate (the
## Swift-concurrency app) in one build folder of their own, .build-examples: they depend on the
## same bletrace, which is built once for both (tried: switching from one to the other rebuilds
## only the example's own targets, in about 10 s).
test-examples:
	cd Examples/HeartRateMonitor && $(SWIFT) test --scratch-path ../../.build-examples
	cd Examples/AsyncHeartRate && $(SWIFT) test --scratch-path ../../.build-examples

## crosscheck: bletrace against tshark (every capture, over-the-air ones field by field) and btmon (every btsnoop, as far as
## btmon 5.66 gets), record by record, on Captures/ and, when the shared folder is there, its
## captures/public/ (also part of `make test`; without it, the shared captures are skipped, saying so);
## and the connection story against one built from tshark's fields (scripts/tshark_story.py,
## StoryCrossCheckTests; Formats/crosscheck.md).
crosscheck: deps
	$(SWIFT) test --filter 'TsharkCrossCheckTests|LinkLayerCrossCheckTests|BtmonCrossCheckTests|ErrorsAndStatsTests|StoryCrossCheckTests'

## demo: the main job on a bundled capture, told for a person (scripts/demo.sh), then its timeline
## as a picture.
demo: build
	@bash scripts/demo.sh $$($(SWIFT) build --show-bin-path)/bletrace $(DEMO_CAPTURE) $(DEMO_FLOW) $(OUT)
	@$(MAKE) --no-print-directory picture

## captures: re-record the Bumble captures in Captures/ (needs Python and PyPI), then derive one
## file per other format and datalink from att-errors.btsnoop with bletrace convert. (The H4 link
## type 187 has no direction: convert says so and exits 1, which is expected there.) Last,
## pklg-header-notes.pklg: pklg-header-notes.btsnoop converted, behind iOS's header notes.
captures: build
	python3 -m pip install --quiet -r Captures/requirements.txt
	python3 Captures/record.py Captures
	bash scripts/derive-captures.sh $$($(SWIFT) build --show-bin-path)/bletrace

## clean: every build folder (.build, and the .build-* of the examples, fuzzing and benchmarks).
clean:
	rm -rf .build .build-*

## install: a release bletrace into $(PREFIX)/bin, linked with the Swift runtime and Foundation
## statically (--static-swift-stdlib: it runs on a machine without the Swift toolchain), its man
## page into $(PREFIX)/share/man/man1, and bash, zsh and fish completions. PREFIX defaults to
## /usr/local; DESTDIR stages a package. The man page is swift-argument-parser's generate-manual
## run on the binary (the tool built with the same flags, so nothing is built twice), completed
## by `bletrace manual` (ENVIRONMENT, EXIT STATUS, EXAMPLES, SEE ALSO). RELEASE_SCRATCH picks the
## build folder (default .build).
PREFIX ?= /usr/local
DESTDIR ?=
RELEASE_SCRATCH ?= .build
RELEASE_FLAGS := -c release --static-swift-stdlib --scratch-path $(RELEASE_SCRATCH)
INSTALL_BIN := $(DESTDIR)$(PREFIX)/bin
INSTALL_MAN := $(DESTDIR)$(PREFIX)/share/man/man1
INSTALL_BASH := $(DESTDIR)$(PREFIX)/share/bash-completion/completions
INSTALL_ZSH := $(DESTDIR)$(PREFIX)/share/zsh/site-functions
INSTALL_FISH := $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
install: deps
	$(SWIFT) build $(RELEASE_FLAGS) --product bletrace
	$(SWIFT) build $(RELEASE_FLAGS) --product generate-manual
	bash scripts/install.sh $$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path) \
	  $(INSTALL_BIN) $(INSTALL_MAN) $(INSTALL_BASH) $(INSTALL_ZSH) $(INSTALL_FISH)

## uninstall: remove what `make install` installed (same PREFIX and DESTDIR).
uninstall:
	rm -f $(INSTALL_BIN)/bletrace $(INSTALL_MAN)/bletrace.1 $(INSTALL_BASH)/bletrace $(INSTALL_ZSH)/_bletrace $(INSTALL_FISH)/bletrace.fish

## check-install: `make install` into a staging DESTDIR, then what a package user gets: the man
## page without a warning from mandoc -T lint or groff -ww, with its EXIT STATUS, ENVIRONMENT,
## EXAMPLES and SEE ALSO; the binary with no library of the toolchain (ldd), run with an empty
## environment and, where mount namespaces allow (root), with the toolchain's folder hidden under
## an empty tmpfs; the installed bash completion completing a file name. Part of `make test`.
TOOLCHAIN := $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))
check-install:
	@bash scripts/check-install.sh $(TOOLCHAIN) $(DEMO_CAPTURE)

# ---- Fuzzing: a libFuzzer target per entry point, in the Fuzz/ package ---------------
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= btsnoop pcap pklg h4-stream hci acl-l2cap-att-smp lifecycle flow replay container
# swiftc 6.3 keeps only the last -sanitize= flag it is given, and SwiftPM passes --sanitize's
# values as separate flags in no fixed order: either libFuzzer's coverage or AddressSanitizer was
# lost, build by build. The one flag naming both, given last (-Xswiftc comes after SwiftPM's own),
# keeps both in every Swift module and link (Fuzz/README.md).
FUZZ_BUILD := cd Fuzz && $(SWIFT) build -c release --sanitize=fuzzer --sanitize=address \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing --scratch-path ../.build-fuzz

## fuzz-build: the fuzz targets, with libFuzzer and AddressSanitizer (Fuzz/README.md).
fuzz-build: deps
	$(FUZZ_BUILD)

## fuzz: each target for FUZZ_SECONDS (default 60), seeded from Captures/; corpora kept in
## .build-fuzz/runs; a crash is copied to Tests/Fixtures/fuzz/TARGET/ (replayed by `make test`)
## and fails the run.
fuzz: fuzz-build
	BLETRACE_SHARED=$(SHARED) bash Fuzz/run.sh "$$($(FUZZ_BUILD) --show-bin-path)" $(FUZZ_SECONDS) $(FUZZ_TARGETS)

# ---- Benchmarks: a separate package in Benchmarks/ on package-benchmark -------------
# BENCH_SWIFTFLAGS: extra flags for the release builds of the benchmarks and of compare.
BENCH_SWIFTFLAGS ?=
BENCH_SCRATCH := ../.build-bench
BENCH_DIR ?= /tmp/bletrace-bench
BENCH_RECORDS ?= 1000000
BENCH_CAPTURE ?= $(BENCH_DIR)/capture-1M.btsnoop
# The 1 GB capture for the peak-memory check (17,800,000 records of the same traffic).
BENCH_BIG_RECORDS ?= 17800000
BENCH_BIG_CAPTURE ?= $(BENCH_DIR)/capture-1G.btsnoop
BENCH_GENERATOR := Benchmarks/Package.swift $(wildcard Benchmarks/Sources/*/*.swift)

# A real Android log for compare (events and advertising reports, as users' logs are), from the
# shared folder; compare skips it, saying so, when the file is not there.
COMPARE_REAL_LOG ?= $(SHARED)/captures/public/whoisbe-pongbot-last.btsnoop

.PHONY: bench bench-capture bench-thresholds bench-memory compare

## bench-capture: the generated 1,000,000-record btsnoop the benchmarks and compare use
## (made again whenever the generator changes).
bench-capture: $(BENCH_CAPTURE)

$(BENCH_CAPTURE) $(BENCH_BIG_CAPTURE): $(BENCH_GENERATOR)
	@mkdir -p $(dir $@)
	cd Benchmarks && $(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH) $(BENCH_SWIFTFLAGS) --product generate-capture
	$$(cd Benchmarks && $(SWIFT) build -c release --scratch-path $(BENCH_SCRATCH) $(BENCH_SWIFTFLAGS) --show-bin-path)/generate-capture \
	  $@ --records $(if $(filter $(BENCH_BIG_CAPTURE),$@),$(BENCH_BIG_RECORDS),$(BENCH_RECORDS))

## bench: release build, then every benchmark once, gated on what a noisy or different machine
## cannot move: allocation counts against Benchmarks/Thresholds, and each benchmark's CPU time (the
## codecs': wall) as a ratio to a reference measured in the same run against Benchmarks/ratios.json
## (scripts/bench.sh, scripts/bench_ratios.py; Benchmarks/README.md, "The gate").
bench: deps bench-capture
	BLETRACE_BENCH_CAPTURE=$(BENCH_CAPTURE) SWIFT=$(SWIFT) bash scripts/bench.sh check $(BENCH_DIR) $(BENCH_SWIFTFLAGS)

## bench-thresholds: re-measure, then store the allocation counts and the time ratios (after an
## intended change; never because the machine changed).
bench-thresholds: deps bench-capture
	BLETRACE_BENCH_CAPTURE=$(BENCH_CAPTURE) SWIFT=$(SWIFT) bash scripts/bench.sh store $(BENCH_DIR) $(BENCH_SWIFTFLAGS)

## compare: bletrace (release) against tshark and btmon on the generated capture and on a real
## Android log (COMPARE_REAL_LOG, from the shared folder: events and advertising reports), side by side in
## one run: stats vs tshark -T fields, decode vs tshark's summary, decode --format jsonl vs
## tshark -T json, decode -v vs tshark -V and btmon -r: wall time, MB/s, records/s, peak RSS and
## ratios (Benchmarks/compare.sh; the speed table of Formats/performance.md is its output); then four copies of
## the capture analysed with one worker and with one per processor (Benchmarks/many.sh).
# The release bletrace of compare and bench-memory, built once into its own folder.
BENCH_CLI_BUILD := $(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli
BENCH_CLI = $$($(BENCH_CLI_BUILD) --show-bin-path)/bletrace

compare: deps bench-capture
	@bash scripts/deps.sh bc time
	$(BENCH_CLI_BUILD)
	BLETRACE=$(BENCH_CLI) RECORDS=$(BENCH_RECORDS) bash Benchmarks/compare.sh $(BENCH_CAPTURE)
	@if [ -f "$(COMPARE_REAL_LOG)" ]; then BLETRACE=$(BENCH_CLI) bash Benchmarks/compare.sh $(COMPARE_REAL_LOG); \
	else echo "compare: $(COMPARE_REAL_LOG) not found (the shared folder: set BLETRACE_SHARED or put shared/ beside the clone): the real Android log is skipped"; fi
	BLETRACE=$(BENCH_CLI) bash Benchmarks/many.sh $(BENCH_CAPTURE)

## bench-memory: peak memory of bletrace stats, decode (text and JSONL), lifecycle and errors on
## the 1M-record capture (and of replay to the mirror app, on that one) and on a 1 GB one
## (generated into $(BENCH_DIR) on first use); fails if stats or decode needs 64 MB or more on
## the 1 GB file. Then the robustness inputs (Benchmarks/robustness-inputs.py):
## 1M connect/disconnect cycles on one handle (lifecycle in every format, errors, replay) and
## 1M-event flows (diff), each failing past MAX_SECONDS (120).
BENCH_ROBUSTNESS := $(BENCH_DIR)/robustness
bench-memory: deps $(BENCH_CAPTURE) $(BENCH_BIG_CAPTURE) $(BENCH_ROBUSTNESS)/conn-cycles-1M.btsnoop
	@bash scripts/deps.sh bc time
	$(BENCH_CLI_BUILD)
	BLETRACE=$(BENCH_CLI) LIMIT_MB=64 bash Benchmarks/memory.sh $(BENCH_CAPTURE) $(BENCH_BIG_CAPTURE)
	BLETRACE=$(BENCH_CLI) bash Benchmarks/memory-robustness.sh $(BENCH_ROBUSTNESS)

$(BENCH_ROBUSTNESS)/conn-cycles-1M.btsnoop: Benchmarks/robustness-inputs.py
	python3 Benchmarks/robustness-inputs.py $(BENCH_ROBUSTNESS)

## picture: the lifecycle timeline of the demo capture (bletrace lifecycle --format html) in
## $(OUT)/timeline.html, screenshotted by headless Chromium (installed from Debian when missing)
## to $(OUT)/timeline.png, and checked not to be blank (scripts/picture.sh, scripts/check-png.py).
## PICTURE_BUILD_FLAGS passes options to swift build, e.g. --scratch-path.
PICTURE_BUILD_FLAGS ?=

.PHONY: picture
picture: deps
	@bash scripts/deps.sh chromium
	$(SWIFT) build --product bletrace $(PICTURE_BUILD_FLAGS)
	@bash scripts/picture.sh $$($(SWIFT) build --show-bin-path $(PICTURE_BUILD_FLAGS))/bletrace $(DEMO_CAPTURE) $(OUT)
