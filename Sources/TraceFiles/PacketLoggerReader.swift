import Wire

/// Reads Apple PacketLogger (`.pklg`) files, in either byte order, in constant memory.
///
/// No file header. Each record: u32 length (of what follows it: 9 + payload), u32 seconds,
/// u32 microseconds, u8 type, payload. Classic macOS files are big-endian, newer ones
/// little-endian; the order is detected from the first records. HCI payloads carry no H4 byte.
/// See Formats/pklg.md.
final class PacketLoggerReader {
    static let recordHeaderLength = 13
    static let largestRecord = 65_540

    let bigEndian: Bool
    private let window: FileWindow
    private var index = 0

    /// The byte order that makes the first records plausible, or nil when neither does.
    static func detectByteOrder(_ prefix: UnsafeRawBufferPointer) -> Bool? {
        for bigEndian in [true, false] where plausible(prefix, bigEndian: bigEndian) {
            return bigEndian
        }
        return nil
    }

    /// Checks up to the first three record headers.
    private static func plausible(_ bytes: UnsafeRawBufferPointer, bigEndian: Bool) -> Bool {
        var offset = 0
        var checked = 0
        while checked < 3, offset + recordHeaderLength <= bytes.count {
            let length = Int(word(bytes, offset, bigEndian))
            let microseconds = word(bytes, offset + 8, bigEndian)
            guard length >= 9, length <= largestRecord + 9, microseconds < 1_000_000,
                isKnownType(bytes[offset + 12])
            else { return false }
            offset += 4 + length
            checked += 1
        }
        return checked > 0
    }

    private static func word(_ bytes: UnsafeRawBufferPointer, _ offset: Int, _ bigEndian: Bool) -> UInt32 {
        let raw = bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
        return bigEndian ? UInt32(bigEndian: raw) : UInt32(littleEndian: raw)
    }

    static func isKnownType(_ type: UInt8) -> Bool {
        [0x00, 0x01, 0x02, 0x03, 0x08, 0x09, 0x0A, 0x0B, 0x12, 0x13].contains(type) || type >= 0xF7
    }

    init(window: FileWindow, bigEndian: Bool) {
        self.window = window
        self.bigEndian = bigEndian
    }

    func next() throws -> CaptureRecord? {
        if try window.atEnd() { return nil }
        let recordOffset = window.fileOffset
        let fault = { (offset: Int64, expected: String) in
            DecodeError(
                layer: .packetLogger, offset: Int(offset), expected: expected,
                recordIndex: self.index, file: self.window.path)
        }
        let have = try window.fill(Self.recordHeaderLength)
        guard have >= Self.recordHeaderLength else {
            throw fault(recordOffset, "a 13-byte record header; the file ends \(have) bytes into it (truncated)")
        }
        let header = window.view(Self.recordHeaderLength)
        let length = Int(Self.word(header, 0, bigEndian))
        let microseconds = Self.word(header, 8, bigEndian)
        let type = header[12]
        guard length >= 9, length <= Self.largestRecord + 9 else {
            throw fault(
                recordOffset,
                "a record length from 9 to \(Self.largestRecord + 9), not \(length) (the file is damaged here)")
        }
        guard microseconds < 1_000_000 else {
            throw fault(
                recordOffset + 8, "microseconds below 1,000,000, not \(microseconds) (the file is damaged here)")
        }
        let total = 4 + length
        let got = try window.fill(total)
        guard got >= total else {
            throw fault(
                recordOffset + 13, "\(length - 9) bytes of payload; the file ends after \(got - 13) (truncated)")
        }
        let seconds = Int64(Self.word(header, 4, bigEndian))
        let payload = UnsafeRawBufferPointer(rebasing: window.view(total)[Self.recordHeaderLength...])
        var record = CaptureRecord(
            index: index, fileOffset: recordOffset,
            timestamp: Timestamp(microseconds: seconds * 1_000_000 + Int64(microseconds)),
            direction: nil, kind: .other, originalLength: payload.count, bytes: payload,
            sourceType: .packetLogger(type: type))
        switch type {
        case 0x00: (record.kind, record.direction) = (.command, .sent)
        case 0x01: (record.kind, record.direction) = (.event, .received)
        case 0x02: (record.kind, record.direction) = (.acl, .sent)
        case 0x03: (record.kind, record.direction) = (.acl, .received)
        case 0x08: (record.kind, record.direction) = (.sco, .sent)
        case 0x09: (record.kind, record.direction) = (.sco, .received)
        case 0x12: (record.kind, record.direction) = (.iso, .sent)
        case 0x13: (record.kind, record.direction) = (.iso, .received)
        default: break  // a note, log or other record: ``CaptureRecord/note`` says which
        }
        window.consume(total)
        index += 1
        return record
    }

    static func note(type: UInt8, payload: UnsafeRawBufferPointer) -> String {
        let label: String
        switch type {
        case 0xF7: label = "syslog"
        case 0xF8: label = "kernel"
        case 0xF9: label = "kernel debug"
        case 0xFA: label = "error"
        case 0xFB: label = "power"
        case 0xFC: label = "note"
        case 0xFD: label = "config"
        case 0xFE: label = "new controller"
        default: return "PacketLogger record type " + hex(type, digits: 1)
        }
        return label + ": " + LinuxMonitor.text(payload)
    }
}
