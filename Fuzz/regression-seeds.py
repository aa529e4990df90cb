#!/usr/bin/env python3
"""Writes one seed input per fuzz target into Tests/Fixtures/fuzz/TARGET/seed-*, derived from
Captures/ as Fuzz/run.sh seeds a target's corpus, and cut to its first records where the target
reads records (a capture of a few records still reaches every layer its target decodes).

FuzzRegressionTests replays each folder and fails on one with no input, so every target's
regression test exercises its commands on at least this seed. Run it again after changing the
captures: python3 Fuzz/regression-seeds.py
"""
import gzip, os, struct

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
captures = os.path.join(root, "Captures")
fixtures = os.path.join(root, "Tests", "Fixtures", "fuzz")


def read(*parts):
    with open(os.path.join(captures, *parts), "rb") as file:
        return file.read()


def write(target, name, data):
    folder = os.path.join(fixtures, target)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "seed-" + name), "wb") as file:
        file.write(data)


def btsnoop_records(data):
    """The (record header, packet) pairs of a btsnoop file."""
    offset = 16
    while offset + 24 <= len(data):
        included = struct.unpack(">I", data[offset + 4:offset + 8])[0]
        yield data[offset:offset + 24], data[offset + 24:offset + 24 + included]
        offset += 24 + included


def btsnoop_first(data, count):
    records = list(btsnoop_records(data))[:count]
    return data[:16] + b"".join(header + packet for header, packet in records)


def pcap_first(data, count):
    endian = "<" if data[:4] == b"\xd4\xc3\xb2\xa1" else ">"
    offset, kept = 24, 0
    while offset + 16 <= len(data) and kept < count:
        included = struct.unpack(endian + "I", data[offset + 8:offset + 12])[0]
        offset += 16 + included
        kept += 1
    return data[:offset]


# A connection from its creation to the peer's disconnection, with discovery and ATT traffic.
snoop = read("peer-disconnect.btsnoop")
for target in ("btsnoop", "hci", "acl-l2cap-att-smp", "lifecycle", "replay"):
    write(target, "peer-disconnect.btsnoop", snoop)
write("pcap", "cancelled-connect.pcap", read("cancelled-connect.pcap"))
write("pklg", "pklg-header-notes.pklg", read("pklg-header-notes.pklg"))
# Advertising, CONNECT_IND, LL control and the start of the encrypted link.
write("link-layer", "crackle-known-ltk.pcap", pcap_first(read("linklayer", "crackle-known-ltk.pcap"), 40))
# Two flows of one capture, separated by a NUL byte (diff reads them both ways).
write("flow", "peer-disconnect.flow-pair", read("peer-disconnect.mirror.flow") + b"\0" + read("peer-disconnect.explorer.flow"))
# The H4 packets of a capture back to back, as a controller writes them.
write("h4-stream", "peer-disconnect.h4", b"".join(packet for _, packet in btsnoop_records(snoop)))
write("container", "att-errors.btsnoop.gz", gzip.compress(btsnoop_first(read("att-errors.btsnoop"), 30), mtime=0))
