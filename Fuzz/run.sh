#!/usr/bin/env bash
# run.sh BIN_DIR SECONDS [TARGET...]: runs each libFuzzer target for SECONDS, seeded from Captures/
# and the robustness fixtures, with its corpus kept in $FUZZ_DIR (default .build-fuzz/runs).
# A crash, leak or timeout is copied to Tests/Fixtures/fuzz/TARGET/ (replayed by `make test`)
# and makes the run fail. Prints executions per target.
set -u
bin=$1
seconds=$2
shift 2
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(btsnoop pcap pklg h4-stream hci acl-l2cap-att-smp lifecycle flow replay container link-layer)
root=$(cd "$(dirname "$0")/.." && pwd)
runs=${FUZZ_DIR:-$root/.build-fuzz/runs}
# The team's shared folder of other people's captures ($BLETRACE_SHARED, else ../shared beside
# the clone; `none`: none): the link-layer target is also seeded from its Ubertooth capture and
# that capture's conversions (Captures/linklayer/convert.py) when it is there.
shared=${BLETRACE_SHARED:-$root/../shared}
ubertooth=$shared/captures/public/mikeryan-crackle-le-sc.pcapng
status=0

seed() {
    local target=$1 dir=$2
    case $target in
        btsnoop | hci | acl-l2cap-att-smp | lifecycle) cp "$root"/Captures/*.btsnoop "$root"/Tests/Fixtures/robustness/*.btsnoop "$dir" ;;
        pcap) cp "$root"/Captures/*.pcap "$root"/Captures/*.pcapng "$root"/Tests/Fixtures/robustness/*.pcapng "$dir" ;;
        pklg) cp "$root"/Captures/*.pklg "$dir" ;;
        link-layer)
            cp "$root"/Captures/linklayer/*.pcap* "$dir"
            if [ -f "$ubertooth" ]; then
                cp "$ubertooth" "$dir" && python3 "$root"/Captures/linklayer/convert.py --only crackle --source "$ubertooth" --out "$dir"
            else
                echo "link-layer: $ubertooth not found (the shared folder: set BLETRACE_SHARED): not seeded with the Ubertooth capture or its conversions"
            fi ;;
        replay) cp "$root"/Captures/*.btsnoop "$root"/Captures/*.pcap* "$root"/Captures/*.pklg "$dir" ;;
        flow) cp "$root"/Captures/*.flow "$root"/Tests/Fixtures/robustness/*.flow "$dir" ;;
        container)
            # Small containers of each kind, from the bundled captures: gzip, tar (ustar, pax,
            # GNU), .tar.gz, a bug report zip and a bug report text with a btsnooz summary.
            python3 - "$dir" "$root"/Captures <<'PY'
import base64, gzip, io, os, struct, sys, tarfile, zipfile, zlib
out, captures = sys.argv[1], sys.argv[2]
snoop = open(os.path.join(captures, "att-errors.btsnoop"), "rb").read()
pklg = open(os.path.join(captures, "att-errors.pklg"), "rb").read()
open(os.path.join(out, "gzip"), "wb").write(gzip.compress(snoop))
for name, form in (("ustar", tarfile.USTAR_FORMAT), ("pax", tarfile.PAX_FORMAT), ("gnu", tarfile.GNU_FORMAT)):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=form) as archive:
        info = tarfile.TarInfo("sysdiagnose/logs/Bluetooth/bluetoothd-hci-latest.pklg")
        info.size = len(pklg)
        archive.addfile(info, io.BytesIO(pklg))
    open(os.path.join(out, "tar-" + name), "wb").write(buffer.getvalue())
    open(os.path.join(out, "tar-gz-" + name), "wb").write(gzip.compress(buffer.getvalue()))
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
    archive.writestr("FS/data/misc/bluetooth/logs/btsnoop_hci.log", snoop)
open(os.path.join(out, "zip"), "wb").write(buffer.getvalue())
# btsnooz v2 of the capture's packets (Formats/containers.md).
records, offset, previous, last = bytearray(), 16, None, 0
types = {(1, 0): 0x20, (4, 1): 0x10, (2, 0): 0x21, (2, 1): 0x11}
while offset + 24 <= len(snoop):
    original, included, flags, _, stamp = struct.unpack(">IIIIq", snoop[offset:offset + 24])
    packet = snoop[offset + 24:offset + 24 + included]
    offset += 24 + included
    kind = types.get((packet[0], flags & 1))
    if kind is None:
        continue
    micros = stamp - 0x00DCDDB30F2F8000
    records += struct.pack("<HHIB", len(packet), original, 0 if previous is None else micros - previous, kind) + packet[1:]
    previous = last = micros
snooz = struct.pack("<BQ", 2, last) + zlib.compress(bytes(records))
text = base64.b64encode(snooz).decode()
lines = "\n".join(text[i:i + 128] for i in range(0, len(text), 128))
report = "== dumpstate\n--- BEGIN:BTSNOOP_LOG_SUMMARY (0 bytes in) ---\n" + lines + "\n--- END:BTSNOOP_LOG_SUMMARY ---\n"
open(os.path.join(out, "bugreport-text"), "w").write(report)
PY
            ;;
        h4-stream)
            # The packets of each H4 btsnoop capture, back to back: the stream a controller writes.
            python3 - "$dir" "$root"/Captures/*.btsnoop <<'PY'
import os, struct, sys
out = sys.argv[1]
for path in sys.argv[2:]:
    data = open(path, "rb").read()
    if data[:8] != b"btsnoop\0" or struct.unpack(">I", data[12:16])[0] != 1002:
        continue
    stream, offset = bytearray(), 16
    while offset + 24 <= len(data):
        included = struct.unpack(">I", data[offset + 4:offset + 8])[0]
        stream += data[offset + 24:offset + 24 + included]
        offset += 24 + included
    open(os.path.join(out, os.path.basename(path) + ".h4"), "wb").write(stream)
PY
            ;;
    esac
}

printf '| %-22s | %12s | %10s | %8s | %s\n' target executions "exec/s" "corpus" result
printf '| %-22s | %12s | %10s | %8s | %s\n' --- ---: ---: ---: ---
for target in "${targets[@]}"; do
    corpus=$runs/corpus/$target
    crashes=$runs/crashes/$target
    mkdir -p "$corpus" "$crashes"
    [ -z "$(ls -A "$corpus")" ] && seed "$target" "$corpus"
    log=$runs/$target.log
    # The replay engine used to leak itself on every run (a reference cycle with the app's
    # managers, found by the fuzzing; the engine now lets go of them at the end of a run). Until a
    # long run confirms there is no other leak, the replay target looks for crashes and hangs only.
    leaks=1
    [ "$target" = replay ] && leaks=0
    # An input of the replay target is played to every reference app (six replays): it gets a
    # minute, the others 10 s.
    limit=10
    [ "$target" = replay ] && limit=60
    # Inputs up to 64 KiB; 2 GB of memory and $limit seconds an input at most (a hang is a finding too).
    # Leaks in libraries (not bletrace's) are listed in lsan-suppressions.txt with their reason.
    ASAN_OPTIONS=detect_leaks=$leaks LSAN_OPTIONS=suppressions="$root/Fuzz/lsan-suppressions.txt" "$bin/fuzz-$target" "$corpus" -max_total_time="$seconds" -max_len=65536 -rss_limit_mb=2048 -timeout=$limit -detect_leaks=$leaks \
        -artifact_prefix="$crashes/" -print_final_stats=1 > "$log" 2>&1
    code=$?
    executions=$(awk -F: '/stat::number_of_executed_units/ {gsub(/ /, "", $NF); print $NF}' "$log" | tail -1)
    speed=$(awk -F: '/stat::average_exec_per_sec/ {gsub(/ /, "", $NF); print $NF}' "$log" | tail -1)
    size=$(ls "$corpus" | wc -l)
    result="ok"
    # A build without coverage counters fuzzes blind, one without AddressSanitizer misses memory
    # errors (swiftc keeps only the last -sanitize= flag: Fuzz/README.md): either fails the run.
    counters=$(grep -m1 -o '[0-9]* inline 8-bit counters' "$log" | cut -d' ' -f1)
    if [ "${counters:-0}" -lt 1000 ]; then
        result="FAILED: ${counters:-no} coverage counters (not instrumented; Fuzz/README.md)"
        status=1
    elif ! nm "$bin/fuzz-$target" | grep -q ' __asan_init$'; then
        result="FAILED: built without AddressSanitizer (Fuzz/README.md)"
        status=1
    fi
    if [ $code -ne 0 ]; then
        result="FAILED (exit $code): $(grep -m1 -E 'ERROR|Fatal error|deadly signal|leak' "$log")"
        mkdir -p "$root/Tests/Fixtures/fuzz/$target"
        cp "$crashes"/* "$root/Tests/Fixtures/fuzz/$target/" 2>/dev/null
        status=1
    fi
    printf '| %-22s | %12s | %10s | %8s | %s\n' "fuzz-$target" "${executions:-?}" "${speed:-?}" "$size" "$result"
done
exit $status
