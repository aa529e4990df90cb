# bletrace: build, test and demonstrate. `make demo` and `make test` are the two set-up commands.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the build and the tests need: the system libraries bletrace links (zlib for
# compressed containers), tshark for cross-checking decoding, bluez for btmon, libxml2-utils (xmllint) to validate `diff --format junit`,
# zsh and fish to run the completion scripts (CompletionTests), mandoc to lint the man page;
# and from PyPI, DuckDB for the query test.
APT_PACKAGES := libpcap-dev libbluetooth-dev zlib1g-dev tshark bluez pkg-config libxml2-utils zsh fish mandoc
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO_CAPTURE := Captures/reconnect-supervision-timeout.btsnoop
DEMO_FLOW := Captures/reconnect-supervision-timeout.reconnecting.flow
OUT := .build/demo
# The team's shared folder of other people's captures (captures/public/, captures/field/), which
# the repository does not hold: $BLETRACE_SHARED, else ../shared beside the clone (`none`: no
# shared folder). The tests find it the same way (Tests/TestSupport/Fixtures.swift).
SHARED := $(or $(BLETRACE_SHARED),../shared)

.PHONY: check-install test-examples test-spark spark-deps docs deps build lint test crosscheck demo captures clean install uninstall fuzz fuzz-build

## deps: install the Debian packages that are missing (quick when all are present).
deps:
	@missing=""; \
	for package in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$package"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	fi
	@# DuckDB (PyPI, Tests/requirements.txt): the test that queries the JSON lines of many captures.
	@python3 -c "import duckdb" 2>/dev/null || { echo "installing: duckdb (PyPI)"; \
	  python3 -m pip install --quiet -r Tests/requirements.txt; }

## build: the bletrace command (debug build, at .build/debug/bletrace).
build: deps
	$(SWIFT) build --product bletrace

## lint: `swift format lint --strict` (the toolchain's swift-format, configured by .swift-format:
## 4-space indentation, lines as long as the code writes them, the default rules but those the
## house style departs from, listed in README.md, "How it is built") over every Swift file of Sources, Tests,
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

## docs: DocC documentation of the library a user's tests import (BLETraceTesting) and of the
## CoreBluetooth stand-in, from their documentation comments, into .build/docs.
docs: deps
	mkdir -p .build/docs
	for target in BLETraceTesting BLETraceCoreBluetooth Replay; do \
	  $(SWIFT) package --allow-writing-to-directory .build/docs generate-documentation --target $$target \
	    --output-path .build/docs/$$target --transform-for-static-hosting || exit 1; done

## spark-deps: what the Spark example needs: a Java runtime (Debian's openjdk-17-jre-headless)
## and pyspark (PyPI, Examples/spark/requirements.txt), each installed when missing.
spark-deps:
	@dpkg-query -W -f='$${Status}' openjdk-17-jre-headless 2>/dev/null | grep -q "install ok installed" || { \
	  echo "installing: openjdk-17-jre-headless"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends openjdk-17-jre-headless >/dev/null; }
	@python3 -c "import pyspark" 2>/dev/null || { echo "installing: pyspark (PyPI)"; \
	  python3 -m pip install --quiet -r Examples/spark/requirements.txt; }

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

## demo: the main job on a bundled capture, told for a person.
demo: build
	@bin=$$($(SWIFT) build --show-bin-path)/bletrace; mkdir -p $(OUT); \
	echo; echo "== What is this file?            bletrace info $(DEMO_CAPTURE)"; \
	$$bin info $(DEMO_CAPTURE); \
	echo; echo "== Every record, decoded (the connection's first moments)   bletrace decode $(DEMO_CAPTURE)"; \
	$$bin decode $(DEMO_CAPTURE) | sed -n '29,36p;86,95p'; \
	echo "   … ($$($$bin decode $(DEMO_CAPTURE) | wc -l) records; --format jsonl for tools)"; \
	echo; echo "== What happened to each connection?   bletrace lifecycle $(DEMO_CAPTURE)"; \
	$$bin lifecycle $(DEMO_CAPTURE); \
	echo; echo "== Replay to the reference app \"reconnecting\"   bletrace replay $(DEMO_CAPTURE) --app reconnecting"; \
	$$bin replay $(DEMO_CAPTURE) --app reconnecting -o $(OUT)/actual.flow && cat $(OUT)/actual.flow; \
	echo; echo "== Does the app do what it should?   bletrace diff $(DEMO_FLOW) $(OUT)/actual.flow"; \
	$$bin diff $(DEMO_FLOW) $(OUT)/actual.flow; \
	echo; echo "== And against a flow that expects the app to give up after the timeout:"; \
	sed '/didDisconnectPeripheral/q' $(DEMO_FLOW) > $(OUT)/gives-up.flow; \
	$$bin diff $(OUT)/gives-up.flow $(OUT)/actual.flow; echo "(exit code $$?: the flows differ)"; \
	echo; echo "== The timeline, as a picture   bletrace lifecycle $(DEMO_CAPTURE) --format html"
	@$(MAKE) --no-print-directory picture

## captures: re-record the Bumble captures in Captures/ (needs Python and PyPI), then derive one
## file per other format and datalink from att-errors.btsnoop with bletrace convert. (The H4 link
## type 187 has no direction: convert says so and exits 1, which is expected there.) Last,
## pklg-header-notes.pklg: pklg-header-notes.btsnoop converted, behind iOS's header notes.
DERIVE_FROM := Captures/att-errors.btsnoop
captures: build
	python3 -m pip install --quiet -r Captures/requirements.txt
	python3 Captures/record.py Captures
	@bin=$$($(SWIFT) build --show-bin-path)/bletrace; set -e; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.dl1001.btsnoop --datalink 1001; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.dl2001.btsnoop --datalink 2001; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt254.pcap --datalink 254; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt201.pcapng --datalink 201; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt254.pcapng --datalink 254; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.pklg; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt187.pcap --datalink 187 || [ $$? -eq 1 ]; \
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt187.pcapng --datalink 187 || [ $$? -eq 1 ]; \
	notes=$$(mktemp -d); \
	$$bin convert Captures/pklg-header-notes.btsnoop $$notes/traffic.pklg; \
	python3 Captures/record.py --pklg-notes $$notes/traffic.pklg Captures/pklg-header-notes.pklg; \
	rm -r $$notes

clean:
	rm -rf .build

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
	@set -e; dir=$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path); bin=$$dir/bletrace; \
	pages=$$(mktemp -d); trap 'rm -rf "$$pages"' EXIT; \
	$$dir/generate-manual $$bin --output-directory $$pages --section 1; \
	install -d $(INSTALL_BIN) $(INSTALL_MAN) $(INSTALL_BASH) $(INSTALL_ZSH) $(INSTALL_FISH); \
	install -m 755 $$bin $(INSTALL_BIN)/bletrace; \
	$$bin manual $$pages/bletrace.1 -o $(INSTALL_MAN)/bletrace.1; chmod 644 $(INSTALL_MAN)/bletrace.1; \
	$$bin --generate-completion-script bash > $(INSTALL_BASH)/bletrace; \
	$$bin --generate-completion-script zsh > $(INSTALL_ZSH)/_bletrace; \
	$$bin --generate-completion-script fish > $(INSTALL_FISH)/bletrace.fish; \
	echo "installed $$($(INSTALL_BIN)/bletrace --version) in $(INSTALL_BIN), man page, completions"

uninstall:
	rm -f $(INSTALL_BIN)/bletrace $(INSTALL_MAN)/bletrace.1 $(INSTALL_BASH)/bletrace $(INSTALL_ZSH)/_bletrace $(INSTALL_FISH)/bletrace.fish

## check-install: `make install` into a staging DESTDIR, then what a package user gets: the man
## page without a warning from mandoc -T lint or groff -ww, with its EXIT STATUS, ENVIRONMENT,
## EXAMPLES and SEE ALSO; the binary with no library of the toolchain (ldd), run with an empty
## environment and, where mount namespaces allow (root), with the toolchain's folder hidden under
## an empty tmpfs; the installed bash completion completing a file name. Part of `make test`.
TOOLCHAIN := $(shell dirname $$(dirname $$(readlink -f $$(command -v $(SWIFT)))))
check-install:
	@set -e; stage=$$(mktemp -d); trap 'rm -rf "$$stage"' EXIT; \
	start=$$(date +%s); $(MAKE) --no-print-directory install DESTDIR=$$stage PREFIX=/usr >/dev/null; \
	echo "check-install: make install took $$(( $$(date +%s) - start )) s"; \
	bin=$$stage/usr/bin/bletrace; page=$$stage/usr/share/man/man1/bletrace.1; \
	mandoc -T lint $$page; \
	groff -ww -mandoc -Tutf8 -z $$page 2>$$stage/groff.err; \
	if [ -s $$stage/groff.err ]; then cat $$stage/groff.err; exit 1; fi; \
	for section in "EXIT STATUS" ENVIRONMENT EXAMPLES "SEE ALSO"; do \
	  grep -qx ".Sh $$section" $$page || { echo "man page: no $$section"; exit 1; }; done; \
	if ldd $$bin | grep -E "$(TOOLCHAIN)|libswift|libFoundation|libdispatch"; then echo "linked with the toolchain"; exit 1; fi; \
	env -i LD_LIBRARY_PATH= $$bin --version; \
	env -i LD_LIBRARY_PATH= $$bin lifecycle $(DEMO_CAPTURE) --brief >/dev/null; \
	if unshare -m true 2>/dev/null; then \
	  unshare -m sh -c 'mount -t tmpfs none "$$1" && env -i "$$2" info "$$3" >/dev/null && echo "runs with $$1 hidden"' \
	    sh $(TOOLCHAIN) $$bin $(DEMO_CAPTURE); fi; \
	dir=$$(mktemp -d); touch $$dir/capture.btsnoop; \
	got=$$(cd $$dir && bash -c 'source "$$1"; COMP_WORDS=(bletrace info cap); COMP_CWORD=2; COMP_LINE="bletrace info cap"; COMP_POINT=17; \
	  _bletrace bletrace cap info; printf "%s\n" "$${COMPREPLY[@]}"' bash $$stage/usr/share/bash-completion/completions/bletrace); \
	rm -r $$dir; [ "$$got" = capture.btsnoop ] || { echo "installed bash completion offered: $$got"; exit 1; }; \
	echo "check-install: man page lint-clean, binary free of the toolchain, completion completes"

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

## bench: release build, then every benchmark, checked against Benchmarks/Thresholds: a
## regression beyond the tolerances declared in each benchmark file fails it. A run that is only
## better than the thresholds (a faster machine than the one they were stored on) passes, saying
## so: package-benchmark fails that too, to have thresholds stored again.
bench: deps bench-capture
	@set -o pipefail; cd Benchmarks && BLETRACE_BENCH_CAPTURE=$(BENCH_CAPTURE) \
	  $(SWIFT) package --scratch-path $(BENCH_SCRATCH) $(BENCH_SWIFTFLAGS) benchmark thresholds check \
	  --path Thresholds --no-progress 2>&1 | tee $(BENCH_DIR)/thresholds-check.log || { \
	  grep -q "is BETTER than the defined thresholds" $(BENCH_DIR)/thresholds-check.log && \
	  ! grep -q "is WORSE than" $(BENCH_DIR)/thresholds-check.log && \
	  echo "bench: no regression; faster than the stored thresholds beyond their tolerance (this machine is faster than the one they were stored on, or the code is: \`make bench-thresholds\` stores this run's)"; }

## bench-thresholds: re-measure and store the thresholds (after an intended change).
bench-thresholds: deps bench-capture
	cd Benchmarks && BLETRACE_BENCH_CAPTURE=$(BENCH_CAPTURE) \
	  $(SWIFT) package --scratch-path $(BENCH_SCRATCH) $(BENCH_SWIFTFLAGS) --allow-writing-to-package-directory \
	  benchmark thresholds update --path Thresholds --no-progress

## compare: bletrace (release) against tshark and btmon on the generated capture and on a real
## Android log (COMPARE_REAL_LOG, from the shared folder: events and advertising reports), side by side in
## one run: stats vs tshark -T fields, decode vs tshark's summary, decode --format jsonl vs
## tshark -T json, decode -v vs tshark -V and btmon -r: wall time, MB/s, records/s, peak RSS and
## ratios (Benchmarks/compare.sh; the README's speed table is its output); then four copies of
## the capture analysed with one worker and with one per processor (Benchmarks/many.sh).
compare: deps bench-capture
	@$(MAKE) --no-print-directory deps APT_PACKAGES="bc time"
	$(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli
	BLETRACE=$$($(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli --show-bin-path)/bletrace \
	  RECORDS=$(BENCH_RECORDS) bash Benchmarks/compare.sh $(BENCH_CAPTURE)
	@if [ -f "$(COMPARE_REAL_LOG)" ]; then \
	  BLETRACE=$$($(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli --show-bin-path)/bletrace \
	    bash Benchmarks/compare.sh $(COMPARE_REAL_LOG); \
	else echo "compare: $(COMPARE_REAL_LOG) not found (the shared folder: set BLETRACE_SHARED or put shared/ beside the clone): the real Android log is skipped"; fi
	BLETRACE=$$($(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli --show-bin-path)/bletrace \
	  bash Benchmarks/many.sh $(BENCH_CAPTURE)

## bench-memory: peak memory of bletrace stats, decode (text and JSONL), lifecycle and errors on
## the 1M-record capture (and of replay to the mirror app, on that one) and on a 1 GB one
## (generated into $(BENCH_DIR) on first use); fails if stats or decode needs 64 MB or more on
## the 1 GB file. Then the robustness inputs (Benchmarks/robustness-inputs.py):
## 1M connect/disconnect cycles on one handle (lifecycle in every format, errors, replay) and
## 1M-event flows (diff), each failing past MAX_SECONDS (120).
BENCH_ROBUSTNESS := $(BENCH_DIR)/robustness
bench-memory: deps $(BENCH_CAPTURE) $(BENCH_BIG_CAPTURE) $(BENCH_ROBUSTNESS)/conn-cycles-1M.btsnoop
	@$(MAKE) --no-print-directory deps APT_PACKAGES="bc time"
	$(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli
	BLETRACE=$$($(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli --show-bin-path)/bletrace \
	  LIMIT_MB=64 bash Benchmarks/memory.sh $(BENCH_CAPTURE) $(BENCH_BIG_CAPTURE)
	BLETRACE=$$($(SWIFT) build -c release --product bletrace $(BENCH_SWIFTFLAGS) --scratch-path .build-bench-cli --show-bin-path)/bletrace \
	  bash Benchmarks/memory-robustness.sh $(BENCH_ROBUSTNESS)

$(BENCH_ROBUSTNESS)/conn-cycles-1M.btsnoop: Benchmarks/robustness-inputs.py
	python3 Benchmarks/robustness-inputs.py $(BENCH_ROBUSTNESS)

## picture: the lifecycle timeline of the demo capture (bletrace lifecycle --format html) in
## $(OUT)/timeline.html, screenshotted by headless Chromium (installed from Debian when missing)
## to $(OUT)/timeline.png, and checked not to be blank. PICTURE_BUILD_FLAGS passes options to
## swift build, e.g. --scratch-path.
PICTURE_BUILD_FLAGS ?=
define PNG_CHECK
import sys, zlib, struct
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
pos, idat, width = 8, b"", 0
while pos < len(data):
    length, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b"IHDR":
        width, height, depth, colour = struct.unpack(">IIBB", body[:10])
        assert depth == 8 and colour in (2, 6), "unexpected PNG colour type"
        channels = 4 if colour == 6 else 3
    elif kind == b"IDAT":
        idat += body
    pos += 12 + length
raw, stride, prev = zlib.decompress(idat), width * channels, bytearray(width * channels)
inked = blue = 0
for row in range(height):
    kind, line = raw[row * (stride + 1)], bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - channels] if i >= channels else 0
        b, c = prev[i], prev[i - channels] if i >= channels else 0
        if kind == 1: line[i] = (line[i] + a) & 255
        elif kind == 2: line[i] = (line[i] + b) & 255
        elif kind == 3: line[i] = (line[i] + (a + b) // 2) & 255
        elif kind == 4:
            p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for i in range(0, stride, channels):
        r, g, bl = line[i], line[i + 1], line[i + 2]
        if min(r, g, bl) < 235: inked += 1
        if bl > 150 and bl > r + 60: blue += 1
    prev = line
print(f"{sys.argv[1]}: {width}x{height}, {len(data)} bytes, {inked} non-white pixels, {blue} connection-bar pixels")
if inked < 5000 or blue < 500:
    sys.exit("the screenshot does not show the timeline (blank page?)")
endef
export PNG_CHECK

.PHONY: picture
picture: deps
	@dpkg-query -W -f='$${Status}' chromium 2>/dev/null | grep -q "install ok installed" || { \
	  echo "installing: chromium"; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium >/dev/null; }
	$(SWIFT) build --product bletrace $(PICTURE_BUILD_FLAGS)
	@set -e; bin=$$($(SWIFT) build --show-bin-path $(PICTURE_BUILD_FLAGS))/bletrace; mkdir -p $(OUT); \
	$$bin lifecycle $(DEMO_CAPTURE) --format html > $(OUT)/timeline.html; \
	rm -f $(OUT)/timeline.png; \
	chromium --headless --no-sandbox --disable-gpu --screenshot=$(abspath $(OUT))/timeline.png \
	  --window-size=1400,900 file://$(abspath $(OUT))/timeline.html >/dev/null 2>&1 || true; \
	test -s $(OUT)/timeline.png || { echo "chromium wrote no screenshot" >&2; exit 1; }; \
	file $(OUT)/timeline.png; \
	python3 -c "$$PNG_CHECK" $(OUT)/timeline.png
