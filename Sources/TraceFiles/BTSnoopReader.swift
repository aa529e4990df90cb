import Wire

/// Reads btsnoop files record by record, in constant memory.
///
/// Layout (all big-endian): the 16-byte file header `btsnoop\0`, version 1, datalink; then
/// records of a 24-byte header (original length, included length, flags, cumulative drops,
/// timestamp in microseconds since 0000-01-01) and the packet. Datalinks: 1001 (H1, the kind from
/// the flags), 1002 (H4, the kind from the packet's first byte, whatever the flags say), 2001
/// (Linux monitor, the kind from the opcode in the flags). See Formats/btsnoop.md.
final class BTSnoopReader {
    static let headerLength = 16
    static let recordHeaderLength = 24
    /// btsnoop counts from midnight, 1 January of year 0; this is 1970-01-01 in those units.
    static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000
    /// No HCI packet is longer: an ACL packet of 65,535 bytes, its 4-byte header, the H4 byte.
    static let largestRecord = 65_540

    let datalink: UInt32
    private let window: FileWindow
    private var index = 0

    init(window: FileWindow) throws {
        self.window = window
        let have = try window.fill(Self.headerLength)
        let fault = { (offset: Int, expected: String) in
            DecodeError(layer: .btsnoop, offset: offset, expected: expected, file: window.path)
        }
        guard have >= Self.headerLength else {
            throw fault(have, "a 16-byte btsnoop file header; the file has \(have) bytes")
        }
        var header = ByteReader(window.view(Self.headerLength), layer: .btsnoop)
        try header.skip(8, "btsnoop magic")
        let version = try header.u32be("version")
        guard version == 1 else { throw fault(8, "btsnoop version 1, not \(version)") }
        datalink = try header.u32be("datalink")
        guard [1001, 1002, 2001].contains(datalink) else {
            throw fault(
                12,
                "datalink 1001 (H1), 1002 (H4) or 2001 (Linux monitor), not \(datalink) (\(BTSnoopDatalink(datalink)))")
        }
        window.consume(Self.headerLength)
    }

    func next() throws -> CaptureRecord? {
        guard let header = try nextHeader() else { return nil }
        return record(header)
    }

    /// Hands every record from here to the end of the file to `body`, borrowed: each is built
    /// once, as a constant, and never copied on its way.
    func forEach(_ body: (borrowing CaptureRecord) throws -> Void) throws {
        while let header = try nextHeader() {
            let record = record(header)
            try body(record)
        }
    }

    /// A record's header fields and its packet, as ``nextHeader()`` reads them.
    private struct Header {
        var index: Int
        var offset: Int64
        var originalLength: Int
        var flags: UInt32
        var drops: UInt32
        var time: Int64
        var payload: UnsafeRawBufferPointer
    }

    /// Reads the next record's header and finds its packet in the window (valid until the next
    /// read); nil at the end of the file.
    @inline(__always)
    private func nextHeader() throws -> Header? {
        let recordOffset = window.fileOffset
        let have = try window.fill(Self.recordHeaderLength)
        if have == 0 { return nil }
        guard have >= Self.recordHeaderLength else {
            throw fault(
                recordOffset,
                "a 24-byte record header; the file ends \(have) bytes into it (truncated, as when the writer was killed)"
            )
        }
        // The header is read with plain loads from the window's first byte: its length was just
        // checked, and this runs once for every record of the file.
        var front = window.front
        func word(_ offset: Int) -> UInt32 {
            UInt32(bigEndian: front.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        let originalLength = Int(word(0))
        let includedLength = Int(word(4))
        let flags = word(8)
        let drops = word(12)
        let rawTime = Int64(bigEndian: front.loadUnaligned(fromByteOffset: 16, as: Int64.self))
        guard includedLength <= Self.largestRecord else {
            throw fault(
                recordOffset + 4,
                "an included length of at most \(Self.largestRecord) bytes (the largest HCI packet), not \(includedLength)"
            )
        }
        // Both lengths are bounded (the window's, the largest record): no overflow to check.
        let total = Self.recordHeaderLength &+ includedLength
        if have < total {
            // The packet runs past the window: the window moves (and its first byte with it).
            let got = try window.fill(total)
            guard got >= total else {
                throw fault(
                    recordOffset + 24,
                    "\(includedLength) bytes of packet data; the file ends after \(got - Self.recordHeaderLength) (truncated)"
                )
            }
            front = window.front
        }
        let payload = UnsafeRawBufferPointer(start: front + Self.recordHeaderLength, count: includedLength)
        window.consume(total)
        defer { index &+= 1 }
        return Header(
            index: index, offset: recordOffset, originalLength: originalLength, flags: flags, drops: drops,
            time: rawTime &- Self.unixEpochOffset, payload: payload)
    }

    /// The record of `header`, its kind and direction from the datalink's rules.
    @inline(__always)
    private func record(_ header: Header) -> CaptureRecord {
        let flags = header.flags
        var kind = PacketKind.other
        var bytes = header.payload
        var originalLength = header.originalLength
        var unclassified: CaptureRecord.Unclassified?
        switch datalink {
        case 1002:
            // H4: the first byte says the kind; it is stripped from `bytes`. The flags'
            // command/event bit is ignored, since some writers set 0x10 there instead.
            if let first = bytes.first {
                // (The H4 packet types, 1 to 5, spelled out: this runs for every record.)
                switch first {
                case 0x01: kind = .command
                case 0x02: kind = .acl
                case 0x03: kind = .sco
                case 0x04: kind = .event
                case 0x05: kind = .iso
                default: unclassified = .unknownH4Type(first)
                }
                if kind != .other {
                    // (Not empty: its first byte was just read.)
                    bytes = UnsafeRawBufferPointer(
                        start: bytes.baseAddress.unsafelyUnwrapped + 1, count: bytes.count &- 1)
                    originalLength = max(0, originalLength - 1)
                }
            } else {
                unclassified = .empty
            }
        case 1001:
            kind = flags & 2 != 0 ? (flags & 1 == 0 ? .command : .event) : .acl
        default:
            var record = CaptureRecord(
                index: header.index, fileOffset: header.offset, timestamp: Timestamp(microseconds: header.time),
                direction: flags & 1 == 0 ? .sent : .received, kind: .other, originalLength: originalLength,
                bytes: bytes, btsnoopFlags: .init(flags: flags, cumulativeDrops: header.drops))
            LinuxMonitor.classify(&record, controller: UInt16(flags >> 16), opcode: UInt16(flags & 0xFFFF))
            return record
        }
        var record = CaptureRecord(
            index: header.index, fileOffset: header.offset, timestamp: Timestamp(microseconds: header.time),
            direction: flags & 1 == 0 ? .sent : .received, kind: kind, originalLength: originalLength,
            bytes: bytes, btsnoopFlags: .init(flags: flags, cumulativeDrops: header.drops))
        if unclassified != nil { record.unclassified = unclassified }
        return record
    }

    private func fault(_ offset: Int64, _ expected: String) -> DecodeError {
        DecodeError(layer: .btsnoop, offset: Int(offset), expected: expected, recordIndex: index, file: window.path)
    }
}
