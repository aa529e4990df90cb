#!/usr/bin/env python3
"""Make the synthetic over-the-air captures in Captures/linklayer/synthetic/: link-layer
procedures the public captures and the HCI twins do not show, written packet by packet from the
Core specification (6.0, Vol 6, Part B) so that the tests know what each packet says.

    python3 Captures/linklayer/synthetic.py

Needs Python 3 and the `cryptography` package (for the encrypted link).

  chain.pcap (link type 256, LE RF header) and chain-nordic.pcap (272, nRF Sniffer header
  version 3, with the AUX type flags an nRF Sniffer sets on secondary channels):
    - advertiser C0:11:22:33:44:55 (random), set 3: three extended advertising events 100 ms
      apart, each ADV_EXT_IND (channel 37) -> AUX_ADV_IND (channel 5) -> AUX_CHAIN_IND
      (channel 12) -> AUX_CHAIN_IND (channel 20), following the AuxPtr offsets; 277 bytes of
      AdvData (Flags, 241 bytes of manufacturer data, the Complete Local Name "bletrace chained
      advertiser", the Battery service UUID) cut at bytes 200 and 260, so that the name
      straddles the two AUX_CHAIN_INDs. The second event's last AUX_CHAIN_IND is not in the
      capture (a sniffer that missed it): its chain is lost. The third has DID 0x018, the
      others 0x017;
    - advertiser C0:66:77:88:99:AA (random), set 1, scannable: ADV_EXT_IND -> AUX_ADV_IND (no
      data) -> AUX_SCAN_REQ from D0:00:00:00:00:01 -> AUX_SCAN_RSP (AuxPtr) -> AUX_CHAIN_IND,
      the scan response data (Complete Local Name "bletrace scan response that is chained",
      then Tx Power Level) cut inside the name;
    - a legacy ADV_IND from C0:AB:CD:EF:00:01 ("legacy") after each.
  periodic.pcap (256) and periodic-nordic.pcap (272, version 3): advertiser C0:11:22:33:44:77,
    set 2: ADV_EXT_IND -> AUX_ADV_IND with a SyncInfo (access address 0x5A3C9E17, CRCInit
    0x0ABCDE, interval 100 ms), then three AUX_SYNC_IND on that access address 100 ms apart, each
    with the Complete Local Name "bletrace periodic" and manufacturer data counting 0, 1, 2; a
    legacy ADV_IND after them.
  cis.pcap (256) and cis-ll.pcap (251, the same packets without the LE RF header): a connection
    (central D0:00:00:00:00:01, peripheral C0:11:22:33:44:88) that sets up a CIS (LL_CIS_REQ,
    LL_CIS_RSP, LL_CIS_IND with access address 0x6B4A1C35), then three CIS events on that access
    address, each the central's PDU (LE RF PDU type 4) and the peripheral's (5): an unframed
    whole SDU answered by a null PDU (NPI), a framed PDU (one segment: SC 0, CMPLT 1, TimeOffset
    0x000123, 8 octets) answered by an unframed one, and an SDU start with CIE answered with CIE;
    then LL_TERMINATE_IND.
  key-refresh.btsnoop: the HCI of a central host (D0:00:00:00:00:01) that connects to
    C0:11:22:33:44:55, encrypts (LE Enable Encryption with the LTK
    0x00112233445566778899AABBCCDDEEFF, written as a number; Encryption Change), reads an
    attribute ("before refresh"), refreshes the key (LE Enable Encryption again; Encryption Key
    Refresh Complete), reads it again ("after refresh") and disconnects (0x13); and
    key-refresh.air.pcap (link type 256), its air twin made by air_from_hci.py: the refresh is
    LL_PAUSE_ENC_REQ/RSP, then LL_ENC_REQ/RSP with new SKDs and IVs, LL_START_ENC_REQ/RSP, and
    packet counters from 0 under the new session key.
"""
import struct
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from convert import crc24, write_pcap  # noqa: E402

ADV_AA = 0x8E89BED6
OUT = HERE / "synthetic"


def address(text):
    return bytes(reversed(bytes.fromhex(text.replace(":", ""))))


def aux_ptr(channel, offset_us, units300=False, phy=0):
    unit = 300 if units300 else 30
    return bytes([channel | (0x80 if units300 else 0)]) + struct.pack("<H", (offset_us // unit) | phy << 13)


def extended(mode, adva=None, adi=None, aux=None, tx_power=None, data=b"", sync=None):
    """The common extended advertising payload (§2.3.4)."""
    flags, fields = 0, b""
    if adva is not None:
        flags |= 0x01
        fields += adva
    if adi is not None:
        flags |= 0x08
        fields += struct.pack("<H", adi)
    if aux is not None:
        flags |= 0x10
        fields += aux
    if sync is not None:
        flags |= 0x20
        fields += sync
    if tx_power is not None:
        flags |= 0x40
        fields += struct.pack("<b", tx_power)
    header = bytes([flags]) + fields if flags else b""
    return bytes([len(header) | mode << 6]) + header + data


def air_time(pdu):
    return (1 + 4 + len(pdu) + 3) * 8


class Air:
    def __init__(self):
        self.packets = []  # (time µs, channel index, PDU, aux type or None, access address, CRCInit)

    def adv(self, time, channel, pdu_type, payload, tx_random=True, rx_random=False, aux_type=None, aa=ADV_AA, crc_init=0x555555):
        header = pdu_type | (0x40 if tx_random else 0) | (0x80 if rx_random else 0)
        pdu = bytes([header, len(payload)]) + payload
        assert len(payload) <= 255
        self.packets.append((time, channel, pdu, aux_type, aa, crc_init))
        return pdu

    def rf(self):
        out = []
        for time, channel, pdu, aux_type, aa, crc_init in sorted(self.packets, key=lambda p: p[0]):
            rf = {37: 0, 38: 12, 39: 39}.get(channel, channel + 1 if channel <= 10 else channel + 2)
            kind = 0 if channel >= 37 else 1
            flags = 0x0001 | 0x0002 | 0x0010 | kind << 7 | 0x0400 | 0x0800
            header = struct.pack("<BbbBIH", rf, -50, -90, 0, aa, flags)
            out.append((time, header + struct.pack("<I", aa) + pdu + crc24(crc_init, pdu).to_bytes(3, "little")))
        return out

    def nordic(self):
        """nRF Sniffer header version 3: packet ID 0x02 (advertising), the AUX type in flags
        bits 1-2 on secondary channels, the firmware's µs timestamp of each packet's start."""
        out = []
        for counter, (time, channel, pdu, aux_type, aa, crc_init) in enumerate(sorted(self.packets, key=lambda p: p[0])):
            flags = 0x01 | ((aux_type or 0) << 1 if channel < 37 else 0)
            event = struct.pack("<BBBBHI", 10, flags, channel, 50, 0, time & 0xFFFFFFFF)
            packet = struct.pack("<I", aa) + pdu + crc24(crc_init, pdu).to_bytes(3, "little")
            payload = event + packet
            out.append((time, struct.pack("<BHBHB", 0, len(payload), 3, counter & 0xFFFF, 0x02) + payload))
        return out


def chain_capture():
    air = Air()
    adva = address("C0:11:22:33:44:55")
    name = b"bletrace chained advertiser"
    data = bytes([2, 1, 6]) + bytes([240, 0xFF, 0x59, 0x00]) + bytes(i & 0xFF for i in range(237))
    data += bytes([len(name) + 1, 0x09]) + name + bytes([3, 3, 0x0F, 0x18])
    assert len(data) == 277 and data[244:246] == bytes([28, 9])
    parts = [data[:200], data[200:260], data[260:]]
    legacy = address("C0:AB:CD:EF:00:01")
    for event in range(3):
        t = 1_000_000 + event * 100_000
        did = 0x017 if event < 2 else 0x018
        adi = did | 3 << 12
        # ADV_EXT_IND -> AUX_ADV_IND 1200 µs later on channel 5.
        air.adv(t, 37, 7, extended(0, adi=adi, aux=aux_ptr(5, 1200)))
        t1 = t + 1200
        first = air.adv(t1, 5, 7, extended(0, adva=adva, adi=adi, aux=aux_ptr(12, 2700), tx_power=-4, data=parts[0]), aux_type=0)
        assert air_time(first) + 300 <= 2700
        t2 = t1 + 2700
        second = air.adv(t2, 12, 7, extended(0, adi=adi, aux=aux_ptr(20, 1200), data=parts[1]), aux_type=1)
        assert air_time(second) + 300 <= 1200
        if event != 1:
            air.adv(t2 + 1200, 20, 7, extended(0, adi=adi, data=parts[2]), aux_type=1)
        air.adv(t + 20_000, 37, 0, legacy + bytes([2, 1, 6, 7, 9]) + b"legacy")

    # A scannable set whose scan response is chained.
    advb, scanner = address("C0:66:77:88:99:AA"), address("D0:00:00:00:00:01")
    response_name = b"bletrace scan response that is chained"
    response = bytes([len(response_name) + 1, 0x09]) + response_name + bytes([2, 0x0A, 0x00])
    t = 1_350_000
    adi = 0x005 | 1 << 12
    air.adv(t, 37, 7, extended(2, adi=adi, aux=aux_ptr(8, 900)))
    ind = air.adv(t + 900, 8, 7, extended(2, adva=advb, adi=adi), aux_type=0)
    request_time = t + 900 + air_time(ind) + 150
    request = air.adv(request_time, 8, 3, scanner + advb, tx_random=False, rx_random=True)
    response_time = request_time + air_time(request) + 150
    rsp = air.adv(response_time, 8, 7, extended(0, adva=advb, adi=adi, aux=aux_ptr(30, 900), data=response[:20]), aux_type=3)
    assert air_time(rsp) + 300 <= 900
    air.adv(response_time + 900, 30, 7, extended(0, adi=adi, data=response[20:]), aux_type=1)
    air.adv(t + 50_000, 37, 0, legacy + bytes([2, 1, 6, 7, 9]) + b"legacy")

    OUT.mkdir(exist_ok=True)
    write_pcap(OUT / "chain.pcap", 256, air.rf())
    write_pcap(OUT / "chain-nordic.pcap", 272, air.nordic())
    print(f"chain.pcap, chain-nordic.pcap: {len(air.packets)} packets", file=sys.stderr)


def write_btsnoop(path, records):
    """btsnoop version 1, datalink 1002 (H4): (time µs since 1970, received, H4 type, packet)."""
    epoch = 0x00DCDDB30F2F8000
    out = bytearray(b"btsnoop\0" + struct.pack(">II", 1, 1002))
    for time, received, h4, packet in records:
        body = bytes([h4]) + packet
        flags = (1 if received else 0) | (2 if h4 in (1, 4) else 0)
        out += struct.pack(">IIIIq", len(body), len(body), flags, 0, time + epoch) + body
    path.write_bytes(bytes(out))


def key_refresh_capture():
    """The central host's HCI of an encrypted link whose key is refreshed, written as a btsnoop,
    and its air capture made from it by air_from_hci.py."""
    from air_from_hci import Converter

    central, peripheral = address("D0:00:00:00:00:01"), address("C0:11:22:33:44:55")
    handle = 0x0040
    ltk = bytes(reversed(bytes.fromhex("00112233445566778899AABBCCDDEEFF")))
    rand, ediv = bytes(range(1, 9)), struct.pack("<H", 0x1234)

    def command(opcode, params):
        return (1, struct.pack("<HB", opcode, len(params)) + params)

    def event(code, params):
        return (4, bytes([code, len(params)]) + params)

    def acl(payload, start=True):
        l2cap = struct.pack("<HH", len(payload), 4) + payload
        return (2, struct.pack("<HH", handle | (0x2000 if start else 0x1000), len(l2cap)) + l2cap)

    t = 1_000_000
    hci = [
        (t, 0) + command(0x2005, central),
        (t + 10_000, 1) + event(0x3E, bytes([0x01, 0x00]) + struct.pack("<HBB", handle, 0, 1) + peripheral + struct.pack("<HHHB", 24, 0, 500, 0)),
        (t + 100_000, 0) + command(0x2019, struct.pack("<H", handle) + rand + ediv + ltk),
        (t + 200_000, 1) + event(0x08, struct.pack("<BHB", 0, handle, 1)),
        (t + 300_000, 0) + acl(bytes([0x0A, 0x03, 0x00])),
        (t + 350_000, 1) + acl(bytes([0x0B]) + b"before refresh"),
        (t + 500_000, 0) + command(0x2019, struct.pack("<H", handle) + rand + ediv + ltk),
        (t + 600_000, 1) + event(0x30, struct.pack("<BH", 0, handle)),
        (t + 700_000, 0) + acl(bytes([0x0A, 0x03, 0x00])),
        (t + 750_000, 1) + acl(bytes([0x0B]) + b"after refresh"),
        (t + 900_000, 0) + command(0x0406, struct.pack("<HB", handle, 0x13)),
        (t + 950_000, 1) + event(0x05, struct.pack("<BHB", 0, handle, 0x16)),
    ]
    for _, _, h4, packet in hci:
        if h4 == 1:
            assert packet[2] == len(packet) - 3
    OUT.mkdir(exist_ok=True)
    write_btsnoop(OUT / "key-refresh.btsnoop", hci)
    converter = Converter()
    air = converter.convert([(time, received, h4, packet) for time, received, h4, packet in hci])
    write_pcap(OUT / "key-refresh.air.pcap", 256, air)
    print(f"key-refresh.btsnoop: {len(hci)} HCI records -> key-refresh.air.pcap: {len(air)} air packets", file=sys.stderr)


def periodic_capture():
    air = Air()
    adva = address("C0:11:22:33:44:77")
    train_aa, train_crc = 0x5A3C9E17, 0x0ABCDE
    adi = 0x021 | 2 << 12
    t = 1_000_000
    air.adv(t, 37, 7, extended(0, adi=adi, aux=aux_ptr(9, 600)))
    # SyncInfo (§2.3.4.6): first AUX_SYNC_IND 3000 µs after the AUX_ADV_IND (30 µs units),
    # interval 100 ms, all 37 channels, SCA 0, the train's AA and CRCInit, event counter 0.
    sync = struct.pack("<HH", 100, 80) + (0x1FFFFFFFFF).to_bytes(5, "little") + struct.pack("<I", train_aa)
    sync += train_crc.to_bytes(3, "little") + struct.pack("<H", 0)
    assert len(sync) == 18
    air.adv(t + 600, 9, 7, extended(0, adva=adva, adi=adi, sync=sync, tx_power=0), aux_type=0)
    name = b"bletrace periodic"
    for event in range(3):
        data = bytes([len(name) + 1, 0x09]) + name + bytes([4, 0xFF, 0x59, 0x00, event])
        air.adv(t + 600 + 3000 + event * 100_000, (3 + 14 * event) % 37, 7, extended(0, data=data), tx_random=False, aux_type=2,
                aa=train_aa, crc_init=train_crc)
    air.adv(t + 250_000, 37, 0, address("C0:AB:CD:EF:00:01") + bytes([2, 1, 6, 7, 9]) + b"legacy")
    write_pcap(OUT / "periodic.pcap", 256, air.rf())
    write_pcap(OUT / "periodic-nordic.pcap", 272, air.nordic())
    print(f"periodic.pcap, periodic-nordic.pcap: {len(air.packets)} packets", file=sys.stderr)


def cis_capture():
    """A connection that sets up a CIS (LL_CIS_REQ, LL_CIS_RSP, LL_CIS_IND with the CIS's access
    address), then isochronous events on that access address, then LL_TERMINATE_IND."""
    from air_from_hci import Converter

    central, peripheral = address("D0:00:00:00:00:01"), address("C0:11:22:33:44:88")
    handle, cis_aa = 0x0040, 0x6B4A1C35
    converter = Converter()
    converter.local = (central, True)
    t = 1_000_000
    converter.connected(t, bytes([0x01, 0x00]) + struct.pack("<HBB", handle, 0, 1) + peripheral + struct.pack("<HHHB", 24, 0, 500, 0), True)
    link = converter.links[handle]
    # LL_CIS_REQ (§2.4.2.29, 35 octets): CIG 1, CIS 1, LE 2M both ways, Max_SDU 40 (framed, bit
    # 15) and 20, SDU interval 10 ms both ways, Max_PDU 48 and 24, NSE 2, Sub_Interval 2 ms,
    # BN 1/1, FT 1/1, ISO_Interval 8 (10 ms), CIS_Offset 500-2000 µs, connEventCount 20.
    request = bytes([0x1F, 1, 1, 2, 2]) + struct.pack("<HH", 40 | 0x8000, 20) + (10000).to_bytes(3, "little") * 2
    request += struct.pack("<HHB", 48, 24, 2) + (2000).to_bytes(3, "little") + bytes([0x11, 1, 1]) + struct.pack("<H", 8)
    request += (500).to_bytes(3, "little") + (2000).to_bytes(3, "little") + struct.pack("<H", 20)
    assert len(request) == 36
    response = bytes([0x20]) + (500).to_bytes(3, "little") + (2000).to_bytes(3, "little") + struct.pack("<H", 20)
    indication = bytes([0x21]) + struct.pack("<I", cis_aa) + (1000).to_bytes(3, "little") + (3000).to_bytes(3, "little") * 2 + struct.pack("<H", 20)
    assert len(indication) == 16
    link.queue += [(t + 100_000, "C", 3, request), (t + 100_000, "P", 3, response), (t + 100_000, "C", 3, indication)]
    converter.run_events(link, t + 200_000)
    # CIS events every 10 ms from t + 250 ms: the central's PDU (LE RF PDU type 4), the
    # peripheral's answer (5) 150 µs after it ends. Header: LLID, NESN (bit 2), SN (3), CIE (4), NPI (6).
    events = [
        ((0b00, 0, 0, 0, 0), b"0123456789", (0b00, 1, 0, 0, 1), b""),  # unframed whole SDU; a null PDU back
        ((0b10, 0, 1, 0, 0), bytes([0x02, 11]) + (0x000123).to_bytes(3, "little") + b"framed!!", (0b00, 0, 0, 0, 0), b"answer"),
        ((0b01, 1, 0, 1, 0), b"start of an SDU", (0b00, 1, 1, 1, 0), b"last"),
    ]
    for number, (c_header, c_data, p_header, p_data) in enumerate(events):
        time = t + 250_000 + number * 10_000
        for (llid, nesn, sn, cie, npi), data, kind in ((c_header, c_data, 4), (p_header, p_data, 5)):
            pdu = bytes([llid | nesn << 2 | sn << 3 | cie << 4 | npi << 6, len(data)]) + data
            converter.emit(time, (number * 5 + kind) % 37, cis_aa, pdu, link.crc_init, kind)
            time += (2 + 4 + len(pdu) + 3) * 4 + 150
    link.queue.append((t + 300_000, "C", 3, bytes([0x02, 0x13])))
    converter.run_events(link, t + 400_000)
    records = sorted(converter.out, key=lambda item: item[0])
    write_pcap(OUT / "cis.pcap", 256, records)
    write_pcap(OUT / "cis-ll.pcap", 251, [(time, data[10:]) for time, data in records])
    print(f"cis.pcap, cis-ll.pcap: {len(records)} packets", file=sys.stderr)


def main():
    chain_capture()
    periodic_capture()
    cis_capture()
    key_refresh_capture()


if __name__ == "__main__":
    main()
