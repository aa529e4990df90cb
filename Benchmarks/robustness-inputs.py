#!/usr/bin/env python3
"""The large inputs of the robustness checks, written into OUTDIR:

  conn-cycles-1M.btsnoop   1,000,000 LE connect/disconnect cycles on one reused handle (77 MB)
  flow-1M.flow             1,000,000 different events
  flow-1M-shifted.flow     the same with one event inserted near the start and one removed near the end
  flow-40k-a.flow, flow-40k-b.flow   40,000 events each, no event in common

Usage: python3 Benchmarks/robustness-inputs.py OUTDIR [CYCLES]
After the generator of the review that found those commands slow (same shapes, written anew here).
"""
import os
import struct
import sys

out = sys.argv[1] if len(sys.argv) > 1 else "."
cycles = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
os.makedirs(out, exist_ok=True)

BTSNOOP_EPOCH = 0x00DCDDB30F2F8000  # 1970-01-01 in btsnoop microseconds
START = 1_780_000_000_000_000      # 2026-05-28, in Unix microseconds
PEER = bytes([0x01, 0x00, 0x00, 0x00, 0x00, 0xC0])  # C0:00:00:00:00:01, random static


def record(packet, time):
    # btsnoop record: original and included length, flags 3 (received event), drops, time.
    return struct.pack(">IIIIQ", len(packet), len(packet), 3, 0, time + BTSNOOP_EPOCH) + packet


def le_connection_complete(handle):
    # H4 event, LE Meta (0x3E), 19 bytes: subevent 1, success, handle, central, random peer,
    # interval 24, latency 0, timeout 72, clock accuracy 0.
    return bytes([0x04, 0x3E, 19, 0x01, 0x00]) + struct.pack("<HBB", handle, 0x00, 0x01) + PEER + struct.pack("<HHHB", 24, 0, 72, 0)


def disconnection_complete(handle):
    # H4 event, Disconnection Complete (0x05): success, handle, reason 0x08 (connection timeout).
    return bytes([0x04, 0x05, 4, 0x00]) + struct.pack("<H", handle) + bytes([0x08])


path = os.path.join(out, "conn-cycles-1M.btsnoop" if cycles == 1_000_000 else f"conn-cycles-{cycles}.btsnoop")
with open(path, "wb") as f:
    f.write(b"btsnoop\0" + struct.pack(">II", 1, 1002))
    time = START
    connect, disconnect = le_connection_complete(1), disconnection_complete(1)
    for _ in range(cycles):
        time += 10
        f.write(record(connect, time))
        time += 10
        f.write(record(disconnect, time))

def flow(name, events):
    with open(os.path.join(out, name), "w") as f:
        f.write("# bletrace flow 1\n")
        for event in events:
            f.write(event + "\n")

events = [f"central didConnect peripheral=P{i}" for i in range(1_000_000)]
flow("flow-1M.flow", events)
shifted = events[:10] + ["app connect peripheral=X"] + events[10:-10] + events[-9:]
flow("flow-1M-shifted.flow", shifted)
flow("flow-40k-a.flow", (f"central didConnect peripheral=A{i}" for i in range(40_000)))
flow("flow-40k-b.flow", (f"central didConnect peripheral=B{i}" for i in range(40_000)))
