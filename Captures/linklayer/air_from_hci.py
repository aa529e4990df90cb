#!/usr/bin/env python3
"""Make the over-the-air capture of a session from one host's HCI capture: what a sniffer would
have recorded of the same connections, for testing that bletrace's analyses give the same answers
on both (its "HCI twins", Formats/link-layer.md).

    python3 Captures/linklayer/air_from_hci.py IN.btsnoop OUT.pcap

Input: a btsnoop (datalink 1002, H4) of the host recorded by Captures/record.py. Output: pcap,
link type 256 (LE LL with the LE RF header, which says each data packet's direction; CRCs
computed). Needs Python 3 and the `cryptography` package (AES and AES-CCM, for links that encrypt).

What the air gets, per LE connection of the HCI capture:
  - LE Connection Complete -> a CONNECT_IND just before it (InitA the central, AdvA the
    peripheral, from the event's role and this host's address; its interval, latency and
    supervision timeout; all 37 data channels);
  - connection events every interval from the CONNECT_IND on (first anchor 1.25 ms after it),
    until the link ends or the capture does: in each, the central's packet, the peripheral's
    answer, and as many more pairs as there are PDUs ready (each side sends an Empty PDU when it
    has nothing); SN and NESN as two sides that acknowledge everything;
  - every ACL packet (both ways) -> one LL data PDU per 251 bytes (LLID 0b10 for a start, 0b01 a
    continuation), sent at the first event at or after its HCI time, in HCI order;
  - LE Connection Update Complete -> LL_CONNECTION_UPDATE_IND from the central, instant six
    events on, the new parameters from the instant;
  - LE Enable Encryption (or LE Long Term Key Request Reply) and Encryption Change -> LL_ENC_REQ,
    LL_ENC_RSP, LL_START_ENC_REQ, then every PDU with a payload encrypted with AES-CCM under the
    session key from the HCI command's LTK (SKD and IV fixed per connection); an Encryption
    Change with an error -> LL_ENC_REQ answered by LL_REJECT_IND with that error;
  - Encryption Key Refresh Complete -> LL_PAUSE_ENC_REQ and the peripheral's LL_PAUSE_ENC_RSP
    (encrypted), the central's LL_PAUSE_ENC_RSP (not), then a new LL_ENC_REQ/LL_ENC_RSP (SKDs and
    IVs one more than the last) and LL_START_ENC_REQ: new session key, packet counters from 0;
  - HCI Disconnect by this host -> LL_TERMINATE_IND from its side with the command's reason;
    Disconnection Complete otherwise -> LL_TERMINATE_IND from the other side with its reason,
    except reason 0x08 (supervision timeout): the link goes silent a supervision timeout before
    the event (or after its last PDU, if later), and 10 ms after the timeout has run the
    peripheral's ADV_IND (Flags only) is heard, as a peripheral that lost its link advertises
    again and a sniffer still listening hears it;
  - LE Advertising Reports -> the advertising PDUs they report (ADV_IND, ADV_SCAN_IND,
    ADV_NONCONN_IND, SCAN_RSP), from the advertiser, at their time.
"""
import struct
import sys
from pathlib import Path

from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
from cryptography.hazmat.primitives.ciphers.aead import AESCCM

sys.path.insert(0, str(Path(__file__).resolve().parent))
from convert import crc24, write_pcap  # noqa: E402

ADV_AA = 0x8E89BED6
BTSNOOP_EPOCH = 0x00DCDDB30F2F8000  # microseconds from 0 AD to 1970


def read_btsnoop(path):
    data = Path(path).read_bytes()
    assert data[:8] == b"btsnoop\0", "not a btsnoop file"
    version, datalink = struct.unpack_from(">II", data, 8)
    assert datalink == 1002, f"datalink {datalink}: H4 (1002) expected"
    offset, records = 16, []
    while offset + 24 <= len(data):
        _, included, flags, _, stamp = struct.unpack_from(">IIIIq", data, offset)
        body = data[offset + 24: offset + 24 + included]
        records.append((stamp - BTSNOOP_EPOCH, flags & 1, body[0], body[1:]))
        offset += 24 + included
    return records


def aes(key, block):
    encryptor = Cipher(algorithms.AES(key), modes.ECB()).encryptor()
    return encryptor.update(block) + encryptor.finalize()


class Link:
    """One connection as it goes over the air."""

    def __init__(self, handle, access_address, crc_init, interval, latency, timeout, anchor):
        self.handle, self.aa, self.crc_init = handle, access_address, crc_init
        self.interval, self.latency, self.timeout = interval, latency, timeout
        self.anchor, self.event = anchor, 0
        self.queue = []          # (ready time, sender 'C'/'P', llid, payload)
        self.sent = {"C": 0, "P": 0}
        self.update = None       # (instant, interval, latency, timeout)
        self.end = None          # time the link goes silent (supervision timeout)
        self.closed = False
        self.cipher = None       # (AESCCM, iv) once LL_START_ENC_REQ is sent
        self.pending_cipher = None
        self.counter = {"C": 0, "P": 0}
        self.last_data = 0       # time of the last PDU with a payload
        self.encryptions = 0     # encryption starts so far (a second one is a key refresh)


class Converter:
    def __init__(self):
        self.out = []            # (time, bytes of the LE RF record)
        self.local = None        # this host's address and whether it is random
        self.links = {}          # handle -> Link
        self.next_aa = 0x50654C01
        self.disconnect_reason = {}
        self.ltk = {}            # handle -> (ltk bytes LSO first, rand, ediv)
        self.readvertise = []    # (time, link): an ADV_IND after a supervision timeout

    # -- output ---------------------------------------------------------------------------
    def emit(self, time, channel_index, aa, pdu, crc_init, pdu_type):
        rf = {37: 0, 38: 12, 39: 39}.get(channel_index)
        if rf is None:
            rf = channel_index + 1 if channel_index <= 10 else channel_index + 2
        flags = 0x0001 | 0x0002 | 0x0010 | (pdu_type << 7) | 0x0400 | 0x0800
        header = struct.pack("<BbbBIH", rf, -40, -90, 0, aa, flags)
        packet = struct.pack("<I", aa) + pdu + crc24(crc_init, pdu).to_bytes(3, "little")
        self.out.append((time, header + packet))

    def advertise(self, time, pdu_type, tx_random, rx_random, payload):
        header = pdu_type | (0x40 if tx_random else 0) | (0x80 if rx_random else 0)
        self.emit(time, 37, ADV_AA, bytes([header, len(payload)]) + payload, 0x555555, 0)

    # -- connection events ----------------------------------------------------------------
    def run_events(self, link, until):
        """Connection events of `link` up to time `until`."""
        while not link.closed and link.anchor <= until:
            if link.end is not None and link.anchor > link.end:
                link.closed = True
                break
            self.connection_event(link)
            link.event += 1
            # The instant's event comes one old interval after the event before it; the new
            # interval runs from there (transmit window offset 0).
            link.anchor += link.interval * 1250
            if link.update and link.event == link.update[0]:
                link.interval, link.latency, link.timeout = link.update[1:]
                link.update = None

    def connection_event(self, link):
        ready = [item for item in link.queue if item[0] <= link.anchor]
        del link.queue[:len(ready)]
        packets, expected = [], "C"
        for _, sender, llid, payload in ready:
            if sender != expected:
                packets.append((expected, 1, b""))
                expected = sender
            packets.append((sender, llid, payload))
            expected = "P" if sender == "C" else "C"
        if not packets or packets[-1][0] == "C":
            if not packets:
                packets.append(("C", 1, b""))
            packets.append(("P", 1, b""))
        time = link.anchor
        channel = (link.event * 7) % 37
        for sender, llid, payload in packets:
            other = "P" if sender == "C" else "C"
            sn, nesn = link.sent[sender] % 2, link.sent[other] % 2
            if llid == 3 and payload[:1] == b"\x00":
                # LL_CONNECTION_UPDATE_IND: its instant six events on.
                instant = (link.event + 6) & 0xFFFF
                payload = payload[:10] + struct.pack("<H", instant)
                link.update = (link.event + 6,) + struct.unpack_from("<HHH", payload, 4)
            body = payload
            if link.cipher and payload:
                ccm, iv = link.cipher
                counter = link.counter[sender]
                link.counter[sender] += 1
                nonce = counter.to_bytes(5, "little")
                nonce = nonce[:4] + bytes([(nonce[4] & 0x7F) | (0x80 if sender == "C" else 0)]) + iv
                body = ccm.encrypt(nonce, payload, bytes([llid]))
            header = llid | nesn << 2 | sn << 3
            pdu = bytes([header, len(body)]) + body
            self.emit(time, channel, link.aa, pdu, link.crc_init, 2 if sender == "C" else 3)
            link.sent[sender] += 1
            if payload:
                link.last_data = time
            time += (1 + 4 + len(pdu) + 3) * 8 + 150
            if llid == 3 and payload[:1] == b"\x0B" and sender == "P" and link.cipher:
                # The peripheral's LL_PAUSE_ENC_RSP, sent encrypted, ends encryption until the
                # next start; the central's LL_PAUSE_ENC_RSP goes unencrypted.
                link.cipher = None
            if llid == 3 and payload[:1] == b"\x05" and link.pending_cipher:
                link.cipher, link.pending_cipher = link.pending_cipher, None
                link.counter = {"C": 0, "P": 0}
            if llid == 3 and payload[:1] == b"\x02":
                # LL_TERMINATE_IND: the other side's acknowledgement ends the link.
                link.closed = True
                sn, nesn = link.sent[other] % 2, link.sent[sender] % 2
                self.emit(time, channel, link.aa, bytes([1 | nesn << 2 | sn << 3, 0]), link.crc_init, 2 if other == "C" else 3)
                break

    def run_all(self, until):
        for link in self.links.values():
            self.run_events(link, until)

    # -- HCI --------------------------------------------------------------------------------
    def convert(self, records):
        last_time = records[-1][0] if records else 0
        create_own_random = True
        for time, received, h4, packet in records:
            self.run_all(time)
            if h4 == 1:  # command
                opcode, = struct.unpack_from("<H", packet, 0)
                params = packet[3:]
                if opcode == 0x2005:  # LE Set Random Address
                    self.local = (params[:6], True)
                elif opcode == 0x200D:  # LE Create Connection
                    create_own_random = params[12] & 1 == 1
                elif opcode == 0x0406:  # Disconnect
                    handle, reason = struct.unpack_from("<HB", params, 0)
                    self.disconnect_reason[handle] = reason
                    link = self.links.get(handle)
                    if link:
                        link.queue.append((time, self.role_side(handle), 3, bytes([0x02, reason])))
                elif opcode == 0x2019:  # LE Enable Encryption
                    handle, = struct.unpack_from("<H", params, 0)
                    self.ltk[handle] = (params[12:28], params[2:10], params[10:12])
                elif opcode == 0x201A:  # LE Long Term Key Request Reply
                    handle, = struct.unpack_from("<H", params, 0)
                    rand, ediv = self.ltk.get(handle, (None, bytes(8), bytes(2)))[1:]
                    self.ltk[handle] = (params[2:18], rand, ediv)
            elif h4 == 4:  # event
                code, params = packet[0], packet[2:]
                if code == 0x0E and struct.unpack_from("<H", params, 1)[0] == 0x1009 and params[3] == 0:
                    if self.local is None:
                        self.local = (params[4:10], False)
                elif code == 0x3E and params[0] == 0x01 and params[1] == 0:
                    self.connected(time, params, create_own_random)
                elif code == 0x3E and params[0] == 0x05:  # LE Long Term Key Request
                    handle, = struct.unpack_from("<H", params, 1)
                    self.ltk[handle] = (None, params[3:11], params[11:13])
                elif code == 0x3E and params[0] == 0x03 and params[1] == 0:
                    handle, interval, latency, timeout = struct.unpack_from("<HHHH", params, 2)
                    link = self.links.get(handle)
                    if link:
                        link.queue.append((time, "C", 3, struct.pack("<BBHHHHH", 0x00, 2, 0, interval, latency, timeout, 0)))
                elif code == 0x3E and params[0] == 0x02:
                    self.reports(time, params)
                elif code == 0x08:
                    status, handle, enabled = struct.unpack_from("<BHB", params, 0)
                    self.encryption(time, handle, status, enabled)
                elif code == 0x30:  # Encryption Key Refresh Complete
                    status, handle = struct.unpack_from("<BH", params, 0)
                    self.encryption(time, handle, status, 1)
                elif code == 0x05 and params[0] == 0:
                    _, handle, reason = struct.unpack_from("<BHB", params, 0)
                    self.disconnected(time, handle, reason)
            elif h4 == 2:  # ACL
                word, length = struct.unpack_from("<HH", packet, 0)
                handle, boundary = word & 0x0FFF, word >> 12 & 3
                link = self.links.get(handle)
                if link:
                    sender = self.role_side(handle) if not received else self.other_side(handle)
                    data = packet[4:4 + length]
                    for start in range(0, len(data), 251):
                        llid = 2 if boundary != 1 and start == 0 else 1
                        link.queue.append((time, sender, llid, data[start:start + 251]))
        # What the last records queued (a terminate after the last Disconnection Complete) goes
        # out in the events that follow.
        for link in self.links.values():
            while link.queue and not link.closed:
                self.run_events(link, link.anchor)
        for time, link in self.readvertise:
            self.advertise(time, 0, link.peripheral_random, 0, link.peripheral + bytes([2, 1, 6]))
        self.out.sort(key=lambda item: item[0])
        return self.out

    def connected(self, time, params, own_random):
        _, handle, role, peer_type = struct.unpack_from("<BHBB", params, 1)
        peer = params[6:12]
        interval, latency, timeout = struct.unpack_from("<HHH", params, 12)
        local, local_random = self.local or (bytes(6), own_random)
        if role == 0:
            central, central_random, peripheral, peripheral_random = local, local_random, peer, peer_type & 1
        else:
            central, central_random, peripheral, peripheral_random = peer, peer_type & 1, local, local_random
        aa, crc_init = self.next_aa, 0x123456 ^ handle
        self.next_aa += 0x01010101
        start = time - 1500
        lldata = struct.pack("<IBBBBHHHH", aa, crc_init & 0xFF, crc_init >> 8 & 0xFF, crc_init >> 16, 2, 0, interval, latency, timeout)
        lldata += (0x1FFFFFFFFF).to_bytes(5, "little") + bytes([7])
        self.advertise(start, 5, central_random, peripheral_random, central + peripheral + lldata)
        link = Link(handle, aa, crc_init, interval, latency, timeout, start + 352 + 1250)
        link.role = role
        self.disconnect_reason.pop(handle, None)
        link.peripheral, link.peripheral_random = peripheral, peripheral_random
        self.links[handle] = link

    def role_side(self, handle):
        return "C" if self.links[handle].role == 0 else "P"

    def other_side(self, handle):
        return "P" if self.links[handle].role == 0 else "C"

    def encryption(self, time, handle, status, enabled):
        link = self.links.get(handle)
        if not link:
            return
        ltk, rand, ediv = self.ltk.get(handle, (None, bytes(8), bytes(2)))
        # A link encrypted already refreshes its key: the encryption pause first (Core 6.0,
        # Vol 6, Part B, §5.1.3.2), then a new start with new SKDs and IVs.
        refresh = link.encryptions
        link.encryptions += 1
        if refresh:
            link.queue.append((time, "C", 3, b"\x0A"))
            link.queue.append((time, "P", 3, b"\x0B"))
            link.queue.append((time, "C", 3, b"\x0B"))
        skdm, ivm = bytes(range(0x10 + refresh, 0x18 + refresh)), bytes([0x21 + refresh, 0x22, 0x23, 0x24])
        skds, ivs = bytes(range(0x30 + refresh, 0x38 + refresh)), bytes([0x41 + refresh, 0x42, 0x43, 0x44])
        link.queue.append((time, "C", 3, b"\x03" + rand + ediv + skdm + ivm))
        if status != 0:
            link.queue.append((time, "P", 3, bytes([0x0D, status])))
            return
        link.queue.append((time, "P", 3, b"\x04" + skds + ivs))
        assert ltk is not None, f"handle {handle:#x}: Encryption Change with no LTK in the capture"
        session = aes(bytes(reversed(ltk)), bytes(reversed(skds)) + bytes(reversed(skdm)))
        link.pending_cipher = (AESCCM(session, tag_length=4), ivm + ivs)
        link.queue.append((time, "P", 3, b"\x05"))
        link.queue.append((time, "C", 3, b"\x06"))
        link.queue.append((time, "P", 3, b"\x06"))

    def disconnected(self, time, handle, reason):
        link = self.links.get(handle)
        if not link:
            return
        if handle in self.disconnect_reason:
            return  # this host's LL_TERMINATE_IND is queued already
        if reason == 0x08:
            link.end = max(time - link.timeout * 10_000, link.last_data, max((item[0] for item in link.queue), default=0))
            # The events already made past the end were never heard.
            self.out = [(t, data) for t, data in self.out if t <= link.end or data[10:14] != struct.pack("<I", link.aa)]
            link.closed = True
            # The peripheral advertises again once its supervision timeout has run, and the
            # sniffer, still listening, hears it.
            self.readvertise.append((link.end + link.timeout * 10_000 + 10_000, link))
            return
        link.queue.append((time, self.other_side(handle), 3, bytes([0x02, reason])))

    def reports(self, time, params):
        count, offset = params[1], 2
        for _ in range(count):
            kind, address_type = params[offset], params[offset + 1]
            address = params[offset + 2: offset + 8]
            length = params[offset + 8]
            data = params[offset + 9: offset + 9 + length]
            offset += 10 + length
            pdu_type = {0: 0, 2: 6, 3: 2, 4: 4}.get(kind)
            if pdu_type is not None:
                self.advertise(time, pdu_type, address_type & 1, 0, address + data)


def main():
    source, target = sys.argv[1], sys.argv[2]
    records = read_btsnoop(source)
    converter = Converter()
    out = converter.convert(records)
    write_pcap(Path(target), 256, out)
    print(f"{source}: {len(records)} HCI records -> {len(out)} air packets", file=sys.stderr)


if __name__ == "__main__":
    main()
