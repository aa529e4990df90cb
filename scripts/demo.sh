#!/usr/bin/env bash
# `make demo`: the main job on a bundled capture, told for a person: what the file is, its
# records, each connection's story, the replay to the reference app `reconnecting`, and the diff
# against the expected flow and against one that expects the app to give up.
# Usage: scripts/demo.sh BLETRACE CAPTURE EXPECTED-FLOW OUT-DIR
set -u
bin=$1 capture=$2 expected=$3 out=$4
mkdir -p "$out"
echo; echo "== What is this file?            bletrace info $capture"
"$bin" info "$capture"
echo; echo "== Every record, decoded (the connection's first moments)   bletrace decode $capture"
"$bin" decode "$capture" | sed -n '29,36p;86,95p'
echo "   … ($("$bin" decode "$capture" | wc -l) records; --format jsonl for tools)"
echo; echo "== What happened to each connection?   bletrace lifecycle $capture"
"$bin" lifecycle "$capture"
echo; echo "== Replay to the reference app \"reconnecting\"   bletrace replay $capture --app reconnecting"
"$bin" replay "$capture" --app reconnecting -o "$out/actual.flow" && cat "$out/actual.flow"
echo; echo "== Does the app do what it should?   bletrace diff $expected $out/actual.flow"
"$bin" diff "$expected" "$out/actual.flow"
echo; echo "== And against a flow that expects the app to give up after the timeout:"
sed '/didDisconnectPeripheral/q' "$expected" > "$out/gives-up.flow"
"$bin" diff "$out/gives-up.flow" "$out/actual.flow"; echo "(exit code $?: the flows differ)"
echo; echo "== The timeline, as a picture   bletrace lifecycle $capture --format html"
