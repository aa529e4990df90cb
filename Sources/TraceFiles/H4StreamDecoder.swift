import Wire

/// Cuts an H4 byte stream into HCI packets, incrementally: bytes may arrive split anywhere.
///
/// H4 is the UART transport (Core 6.0, Vol 4, Part A, §2): a packet indicator byte, then the HCI
/// packet, whose header says how long it is (Core 6.0, Vol 4, Part E, §5.4):
///
/// | indicator | packet | header | payload length |
/// | --- | --- | --- | --- |
/// | 0x01 | command | 3 bytes | u8 at header offset 2 |
/// | 0x02 | ACL | 4 bytes | u16 LE at header offset 2 |
/// | 0x03 | SCO | 3 bytes | u8 at header offset 2 |
/// | 0x04 | event | 2 bytes | u8 at header offset 1 |
/// | 0x05 | ISO | 4 bytes | low 14 bits of the u16 LE at header offset 2 |
///
/// Memory is one fixed buffer of twice the largest packet (an ACL packet: 1 + 4 + 65,535 bytes);
/// no length field can make it allocate.
///
/// H4 carries no sync pattern, so an unknown indicator byte is a framing error, which is reported
/// and skipped, never fatal: the decoder drops bytes up to the next place where an event or a
/// command packet plausibly starts (indicator 0x04 with a known event code, or 0x01 with an opcode
/// of a defined group), and goes on from there. ACL, SCO and ISO headers are too permissive to
/// resynchronise on (any length reads as valid). ``framingErrors`` says where each error was and
/// ``skippedBytes`` how much was dropped.
///
/// Use: write into ``space()``, report the count with ``append(_:)``, then call ``next()`` until
/// it returns nil. A packet's bytes are borrowed until the next call to any method.
final class H4StreamDecoder {
    /// A complete packet, borrowed from the decoder's buffer.
    struct Packet {
        var kind: PacketKind
        /// The HCI packet (header and payload), without the indicator byte.
        var bytes: UnsafeRawBufferPointer
        /// Stream offset of the indicator byte.
        var offset: Int64
    }

    /// The longest H4 packet: indicator, 4-byte ACL header, 65,535 payload bytes.
    static let largestPacket = 1 + 4 + 65_535

    private let storage: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    /// Bytes of the packet last returned, dropped at the next call.
    private var returned = 0
    /// Stream offset of `storage[start]`.
    private var offset: Int64 = 0
    /// True after a framing error, until a plausible packet start is found.
    private var resynchronising = false
    /// The framing errors met (the first 100), each at the stream offset of the byte at fault.
    private(set) var framingErrors: [DecodeError] = []
    /// How many framing errors, and how many bytes they cost.
    private(set) var framingErrorCount = 0
    private(set) var skippedBytes: Int64 = 0

    init() {
        storage = .allocate(byteCount: 2 * Self.largestPacket, alignment: 16)
    }

    deinit { storage.deallocate() }

    /// Stream offset of the first byte not yet returned in a packet.
    var streamOffset: Int64 {
        dropReturned()
        return offset
    }

    /// Buffered bytes that are not yet a returned packet.
    var pendingCount: Int {
        dropReturned()
        return end - start
    }

    /// Free room to read into; never empty while at most one incomplete packet is buffered
    /// (``next()`` has returned nil since the last ``append(_:)``).
    func space() -> UnsafeMutableRawBufferPointer {
        dropReturned()
        if start == end {
            start = 0
            end = 0
        } else if start > 0, storage.count - end < Self.largestPacket {
            // Slide the incomplete packet (under `largestPacket` bytes) to the front.
            storage.baseAddress!.copyMemory(from: storage.baseAddress! + start, byteCount: end - start)
            end -= start
            start = 0
        }
        return UnsafeMutableRawBufferPointer(rebasing: storage[end...])
    }

    /// Records that `count` bytes were written at the start of ``space()``.
    func append(_ count: Int) {
        precondition(count >= 0 && end + count <= storage.count, "wrote past the space the decoder gave")
        end += count
    }

    /// Copies bytes in (for callers that have them in hand rather than reading into ``space()``);
    /// returns how many fitted.
    @discardableResult
    func append(contentsOf bytes: UnsafeRawBufferPointer) -> Int {
        let room = space()
        let count = min(room.count, bytes.count)
        if count > 0 { room.baseAddress!.copyMemory(from: bytes.baseAddress!, byteCount: count) }
        append(count)
        return count
    }

    /// The next complete packet, or nil when more bytes are needed. A framing error is recorded
    /// in ``framingErrors`` and the bytes up to the next plausible packet start are skipped.
    func next() throws(DecodeError) -> Packet? {
        dropReturned()
        while end - start >= 1 {
            let indicator = storage[start]
            guard let kind = PacketKind(rawValue: indicator), kind != .other else {
                if !resynchronising {
                    resynchronising = true
                    framingErrorCount += 1
                    if framingErrors.count < 100 {
                        framingErrors.append(
                            DecodeError(
                                layer: .hci, offset: Int(offset),
                                expected:
                                    "an H4 packet indicator (0x01 command, 0x02 ACL, 0x03 SCO, 0x04 event, 0x05 ISO), not \(Self.hex(indicator)); skipped up to the next event or command"
                            ))
                    }
                }
                skip()
                continue
            }
            let have = end - start
            let headerLength = Self.headerLength(kind)
            guard have >= 1 + headerLength else { return nil }
            let header = UnsafeRawBufferPointer(rebasing: storage[(start + 1)..<(start + 1 + headerLength)])
            if resynchronising {
                guard Self.plausibleStart(kind, header: header) else {
                    skip()
                    continue
                }
                resynchronising = false
            }
            let total = 1 + headerLength + Self.payloadLength(kind, header: header)
            guard have >= total else { return nil }
            returned = total
            return Packet(
                kind: kind, bytes: UnsafeRawBufferPointer(rebasing: storage[(start + 1)..<(start + total)]),
                offset: offset)
        }
        return nil
    }

    /// Drops one byte while looking for a packet start.
    private func skip() {
        start += 1
        offset += 1
        skippedBytes += 1
    }

    /// Whether a header found while resynchronising starts a real packet: an event with an event
    /// code of Core 6.0 (0x01-0x5A, or 0xFF vendor), or a command whose group is defined (OGF 0x01-0x08, or 0x3F
    /// vendor; Core 6.0, Vol 4, Part E, §7).
    static func plausibleStart(_ kind: PacketKind, header: UnsafeRawBufferPointer) -> Bool {
        switch kind {
        case .event: (header[0] >= 0x01 && header[0] <= 0x5A) || header[0] == 0xFF
        case .command:
            switch (UInt16(header[0]) | UInt16(header[1]) << 8) >> 10 {
            case 0x01...0x08, 0x3F: true
            default: false
            }
        default: false
        }
    }

    /// Where the stream ended, if it ended inside a packet: what was missing, at the offset of the
    /// packet's indicator byte. Nil when the stream ended cleanly between packets.
    func truncation() -> DecodeError? {
        dropReturned()
        let have = end - start
        guard have > 0, !resynchronising, let kind = PacketKind(rawValue: storage[start]), kind != .other else {
            return nil
        }
        let headerLength = Self.headerLength(kind)
        let name = Self.name(kind)
        guard have >= 1 + headerLength else {
            return DecodeError(
                layer: .hci, offset: Int(offset),
                expected:
                    "the rest of the \(headerLength)-byte header of \(name); the stream ended \(Wording.count(have - 1, "byte")) into it"
            )
        }
        let header = UnsafeRawBufferPointer(rebasing: storage[(start + 1)..<(start + 1 + headerLength)])
        let payload = Self.payloadLength(kind, header: header)
        let got = have - 1 - headerLength
        return DecodeError(
            layer: .hci, offset: Int(offset),
            expected: "the \(payload)-byte payload of \(name) its header announces; the stream ended after \(got)")
    }

    private func dropReturned() {
        guard returned > 0 else { return }
        start += returned
        offset += Int64(returned)
        returned = 0
    }

    /// HCI packet header lengths, Core 6.0, Vol 4, Part E, §5.4.1 to §5.4.5.
    static func headerLength(_ kind: PacketKind) -> Int {
        switch kind {
        case .command: 3
        case .acl: 4
        case .sco: 3
        case .event: 2
        case .iso: 4
        case .other: 0
        }
    }

    /// The payload length a complete header announces.
    static func payloadLength(_ kind: PacketKind, header: UnsafeRawBufferPointer) -> Int {
        switch kind {
        case .command, .sco: Int(header[2])
        case .event: Int(header[1])
        case .acl: Int(header[2]) | Int(header[3]) << 8
        case .iso: (Int(header[2]) | Int(header[3]) << 8) & 0x3FFF
        case .other: 0
        }
    }

    static func name(_ kind: PacketKind) -> String {
        switch kind {
        case .command: "a command packet"
        case .acl: "an ACL packet"
        case .sco: "a SCO packet"
        case .event: "an event packet"
        case .iso: "an ISO packet"
        case .other: "a packet"
        }
    }

    static func hex(_ byte: UInt8) -> String { Wire.hex(byte, digits: 2, uppercase: true) }
}
