#!/usr/bin/env python3
"""Derive link-layer test captures from the public Ubertooth capture mikeryan-crackle-le-sc.pcapng
(pcapng, link type 256, LE LL with PHDR), read from the shared folder's captures/public/
($BLETRACE_SHARED, default ../shared beside the repository), and from crackle's PPI files in ppi/.

Every over-the-air packet (access address, PDU, CRC) is kept byte for byte; only the pseudo-header
and the file format change. Python 3 standard library only:

    python3 Captures/linklayer/convert.py [--only crackle|known-ltk] [--out DIR]

The five crackle-* conversions are other people's data (the Ubertooth capture's packets), so they
are not committed: the tests make them into a temporary directory (Tests/TestSupport/Fixtures.swift)
and skip with a reason when the shared folder is absent. Without --out, they are written here,
where .gitignore keeps them out of git. The two known-ltk files are written here.

Outputs (see README.md in this directory):
  crackle-known-ltk.pcap            pcap, link type 251, from ppi/known_ltk.pcap (crackle's)
  crackle-known-ltk-decrypted.pcap  pcap, link type 251, from ppi/expected_output.pcap
  crackle-nordic-v3.pcap     pcap,   link type 272, nRF Sniffer header version 3
  crackle-nordic-v1.pcapng   pcapng, link type 272, nRF Sniffer header version 1
  crackle-nordic-v2.pcap     pcap,   link type 272, nRF Sniffer header version 2
  crackle-ll.pcapng          pcapng, link type 251, no pseudo-header
  crackle-phdr.pcap          pcap,   link type 256, the original LE RF header

The nRF header needs facts the LE RF header does not give; they are made as a sniffer would:
  - channel index: from the RF channel (RF 0, 12, 39 are advertising channels 37, 38, 39);
  - RSSI: the LE RF signal power (0 dBm in this capture), without its sign;
  - CRC OK: the CRC recomputed here (CRCInit 0x555555 on the advertising channels, the
    CONNECT_IND's CRCInit on the connection);
  - direction (data packets): by timing, as bletrace infers it for 256 captures: a packet that
    starts within the previous packet's air time + 150 us + 300 us answers it; any other opens a
    connection event, which the central does;
  - event counter: incremented at each packet that opens a connection event;
  - encrypted (data packets with a payload after the connection's LL_START_ENC_REQ): set, with
    the MIC flag clear, as the sniffer writes a packet it could not decrypt;
  - timestamp (version 3): the record time in microseconds, modulo 2^32; delta time (versions
    1, 2): microseconds from the end of the previous packet.
"""
import argparse
import os
import struct
import sys
from pathlib import Path

ADV_AA = 0x8E89BED6
ROOT = Path(__file__).resolve().parents[2]
SHARED = Path(os.environ.get("BLETRACE_SHARED") or ROOT.parent / "shared")
SOURCE = SHARED / "captures/public/mikeryan-crackle-le-sc.pcapng"
OUT = ROOT / "Captures/linklayer"


def read_pcapng(path):
    """(timestamp in microseconds, packet bytes) of each Enhanced Packet Block (one IDB, ns)."""
    data = path.read_bytes()
    offset, packets, resolution = 0, [], 1_000_000
    while offset < len(data):
        block_type, length = struct.unpack_from("<II", data, offset)
        body = data[offset + 8: offset + length - 4]
        if block_type == 1:  # IDB: look for if_tsresol
            options = body[8:]
            pos = 0
            while pos + 4 <= len(options):
                code, size = struct.unpack_from("<HH", options, pos)
                if code == 0:
                    break
                if code == 9:
                    value = options[pos + 4]
                    resolution = 10 ** value if value < 128 else 2 ** (value & 0x7F)
                pos += 4 + (size + 3) // 4 * 4
        elif block_type == 6:
            _, high, low, captured, _ = struct.unpack_from("<IIIII", body, 0)
            stamp = (high << 32 | low) * 1_000_000 // resolution
            packets.append((stamp, body[20: 20 + captured]))
        offset += length
    return packets


def rf_to_index(rf):
    if rf == 0:
        return 37
    if rf == 12:
        return 38
    if rf == 39:
        return 39
    return rf - 1 if rf < 12 else rf - 2


def reverse24(value):
    return int(f"{value:024b}"[::-1], 2)


def crc24(init, data):
    state = reverse24(init)
    for byte in data:
        for _ in range(8):
            bit = (state ^ byte) & 1
            byte >>= 1
            state >>= 1
            if bit:
                state = (state | 1 << 23) ^ 0x5A6000
    return state


def annotate(packets):
    """Per packet: channel index, CRC ok, is data, direction (1 central to peripheral), event counter, encrypted."""
    crc_init, last, result, encrypted = {}, {}, [], set()
    events = {}
    for stamp, packet in packets:
        rf_channel = packet[0]
        signal = struct.unpack_from("<b", packet, 1)[0]
        ll = packet[10:]
        aa = struct.unpack_from("<I", ll, 0)[0]
        length = ll[5]
        pdu = ll[4: 6 + length]
        crc_field = int.from_bytes(ll[6 + length: 9 + length], "little")
        is_data = aa != ADV_AA
        init = 0x555555 if not is_data else crc_init.get(aa)
        crc_ok = init is not None and crc24(init, pdu) == crc_field
        direction, counter = 0, 0
        if not is_data and ll[4] & 0x0F == 5 and length >= 34:
            new_aa = struct.unpack_from("<I", ll, 6 + 12)[0]
            crc_init[new_aa] = int.from_bytes(ll[6 + 16: 6 + 19], "little")
            events[new_aa] = -1
        if is_data:
            previous = last.get(aa)
            direction = 1
            if previous and 0 <= stamp - previous[0] <= previous[1] + 450:
                direction = 1 - previous[2]
            if direction == 1 and (not previous or previous[2] != 1 or stamp - previous[0] > previous[1] + 450):
                events[aa] = events.get(aa, -1) + 1
            counter = max(events.get(aa, 0), 0)
            last[aa] = (stamp, (10 + length) * 8, direction)
        ciphertext = is_data and length > 0 and aa in encrypted
        if is_data and crc_ok and not ciphertext and ll[4] & 0x03 == 3 and length >= 1 and ll[6] == 0x05:
            encrypted.add(aa)  # LL_START_ENC_REQ: what follows is encrypted
        result.append((stamp, rf_to_index(rf_channel), -signal, crc_ok, is_data, direction, counter, ciphertext, ll))
    return result


def nordic(version, counter, entry, delta):
    stamp, channel, rssi, crc_ok, is_data, direction, event, ciphertext, ll = entry
    flags = (1 if crc_ok else 0) | ((direction << 1) if is_data else 0) | (0x04 if ciphertext else 0)
    event_header = struct.pack("<BBBBHI", 10, flags, channel, rssi & 0xFF, event, (stamp if version >= 3 else delta) & 0xFFFFFFFF)
    packet_id = (0x06 if is_data else 0x02) if version >= 3 else 0x06
    payload = event_header + ll
    board = 0
    if version == 1:
        header = struct.pack("<BBBBHB", board, 6, len(payload), 1, counter, packet_id)
    else:
        header = struct.pack("<BHBHB", board, len(payload), version, counter, packet_id)
    return header + payload


def write_pcap(path, link_type, records):
    out = bytearray(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, link_type))
    for stamp, data in records:
        out += struct.pack("<IIII", stamp // 1_000_000, stamp % 1_000_000, len(data), len(data)) + data
    path.write_bytes(bytes(out))


def write_pcapng(path, link_type, records):
    def block(kind, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", kind, len(body) + 12) + body + struct.pack("<I", len(body) + 12)

    shb = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = block(1, struct.pack("<HHI", link_type, 0, 65535) + struct.pack("<HHB3x", 9, 1, 6) + struct.pack("<HH", 0, 0))
    out = bytearray(shb + idb)
    for stamp, data in records:
        out += block(6, struct.pack("<IIIII", 0, stamp >> 32, stamp & 0xFFFFFFFF, len(data), len(data)) + data)
    path.write_bytes(bytes(out))


def read_ppi_pcap(path):
    """(timestamp in microseconds, link-layer packet) of each record of a pcap of PPI records
    (link type 192) that wrap an LE link-layer packet, as crackle writes them: the PPI header
    (version, flags, header length, wrapped link type) and its fields are dropped."""
    data = path.read_bytes()
    magic, = struct.unpack_from("<I", data, 0)
    assert magic == 0xA1B2C3D4 and struct.unpack_from("<I", data, 20)[0] == 192, f"{path}: pcap of PPI records expected"
    offset, packets = 24, []
    while offset + 16 <= len(data):
        seconds, micros, captured, _ = struct.unpack_from("<IIII", data, offset)
        record = data[offset + 16: offset + 16 + captured]
        header_length, = struct.unpack_from("<H", record, 2)
        packets.append((seconds * 1_000_000 + micros, record[header_length:]))
        offset += 16 + captured
    return packets


def main():
    parser = argparse.ArgumentParser(description="Derive the link-layer test captures (README.md in this directory).")
    parser.add_argument("--only", choices=["crackle", "known-ltk"], help="make only these outputs")
    parser.add_argument("--out", type=Path, default=OUT, help="output directory (default: this directory)")
    parser.add_argument("--source", type=Path, default=SOURCE, help=f"the Ubertooth capture (default: {SOURCE})")
    args = parser.parse_args()
    out = args.out
    if args.only != "crackle":
        # crackle's LTK-decryption test capture (an Ubertooth recording of an encrypted link whose
        # LTK is known) and crackle's own decryption of it, as plain LE LL (link type 251).
        for source, name in [("known_ltk.pcap", "crackle-known-ltk.pcap"), ("expected_output.pcap", "crackle-known-ltk-decrypted.pcap")]:
            write_pcap(out / name, 251, read_ppi_pcap(OUT / "ppi" / source))
    if args.only == "known-ltk":
        return
    if not args.source.is_file():
        print(f"{args.source} not found (the shared folder: set BLETRACE_SHARED): crackle-* not made", file=sys.stderr)
        sys.exit(0 if args.only is None else 1)
    packets = read_pcapng(args.source)
    entries = annotate(packets)
    for version, name, writer in [(3, "crackle-nordic-v3.pcap", write_pcap), (1, "crackle-nordic-v1.pcapng", write_pcapng),
                                  (2, "crackle-nordic-v2.pcap", write_pcap)]:
        records, previous_end = [], None
        for counter, entry in enumerate(entries):
            stamp, ll = entry[0], entry[8]
            delta = 0 if previous_end is None else max(stamp - previous_end, 0)
            previous_end = stamp + (len(ll) + 1) * 8
            records.append((stamp, nordic(version, counter, entry, delta)))
        writer(out / name, 272, records)
    write_pcapng(out / "crackle-ll.pcapng", 251, [(stamp, packet[10:]) for stamp, packet in packets])
    write_pcap(out / "crackle-phdr.pcap", 256, packets)
    print(f"{len(packets)} packets converted", file=sys.stderr)


if __name__ == "__main__":
    main()
