# bletrace: build, test and demonstrate. `make demo` and `make test` are the two set-up commands.
SHELL := /bin/bash
SWIFT ?= swift
# Debian packages the build and the tests need: the two system libraries bletrace links, tshark
# for cross-checking decoding, bluez for btmon.
APT_PACKAGES := libpcap-dev libbluetooth-dev tshark bluez pkg-config
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEMO_CAPTURE := Captures/reconnect-supervision-timeout.btsnoop
DEMO_FLOW := Captures/reconnect-supervision-timeout.reconnecting.flow
OUT := .build/demo

.PHONY: deps build test crosscheck demo captures clean

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

## build: the bletrace command (debug build, at .build/debug/bletrace).
build: deps
	$(SWIFT) build --product bletrace

## test: every test suite (Swift Testing), including the cross-check against tshark.
test: deps
	$(SWIFT) test

## crosscheck: bletrace against tshark (every capture) and btmon (every btsnoop, as far as
## btmon 5.66 gets), record by record, on Captures/ and ../shared/captures/public/ (also part of
## `make test`).
crosscheck: deps
	$(SWIFT) test --filter 'TsharkCrossCheckTests|BtmonCrossCheckTests|ErrorsAndStatsTests'

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
	$$bin diff $(OUT)/gives-up.flow $(OUT)/actual.flow; echo "(exit code $$?: the flows differ)"

## captures: re-record the Bumble captures in Captures/ (needs Python and PyPI), then derive one
## file per other format and datalink from att-errors.btsnoop with bletrace convert. (The H4 link
## type 187 has no direction: convert says so and exits 1, which is expected there.)
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
	$$bin convert $(DERIVE_FROM) Captures/att-errors.lt187.pcapng --datalink 187 || [ $$? -eq 1 ]

clean:
	rm -rf .build
