import Wire

/// Writes pcapng natively (libpcap reads pcapng but writes only pcap): one Section Header Block,
/// one Interface Description Block (link type 187, 201 or 254; snap length), then one Enhanced
/// Packet Block per record, each with no options. Little-endian by default; every block padded
/// to 32 bits with zeros.
///
/// Timestamps are in microseconds, the pcapng default (no `if_tsresol`), counted from 1970 plus
/// the interface's `if_tsoffset` seconds. The Interface Description Block is written with the
/// first record (or at the first flush or close, if that comes first): when the first record's
/// time is before 1970 it gets an `if_tsoffset` that places it, so that such captures (Android
/// phones whose clock was never set) keep their times. libpcap and tshark 4.0 both apply it.
///
/// Given the header of a source pcapng (``CaptureWriter/PcapngHeader``), the blocks repeat its
/// version, section length and options, and the timestamps use its `if_tsresol` (when decimal
/// and at least µs) and `if_tsoffset`, so the rewrite is byte-identical when the source's
/// packet blocks had no options.
final class PcapngWriter {
    let out: BufferedFileWriter
    let bigEndian: Bool
    let linkType: UInt16
    let snapLength: UInt32
    private let target: String
    /// Options of the Interface Description Block, raw (empty when none).
    private var interfaceOptions: [UInt8]
    private var interfaceWritten = false
    /// The link-layer packet being written, reused from record to record.
    private var scratch: [UInt8] = []
    /// `if_tsoffset`, in seconds.
    private var offsetSeconds: Int64 = 0
    /// Ticks per microsecond (10^(if_tsresol - 6)).
    private var ticksPerMicrosecond: Int64 = 1
    /// True when the source header fixed the options (no `if_tsoffset` is added).
    private let interfaceFromSource: Bool

    init(path: String, linkType: UInt16, snapLength: UInt32, bigEndian: Bool, header: CaptureWriter.PcapngHeader?)
        throws
    {
        self.bigEndian = bigEndian
        self.linkType = linkType
        self.snapLength = snapLength
        target = "pcapng \(linkType)"
        interfaceFromSource = header != nil
        interfaceOptions = []
        out = try BufferedFileWriter(path: path)
        let section = header ?? CaptureWriter.PcapngHeader()
        try block(type: 0x0A0D_0D0A, bodyLength: 16 + section.sectionOptions.count) { () in
            try out.integer(UInt32(0x1A2B_3C4D), bigEndian: bigEndian)
            try out.integer(section.majorVersion, bigEndian: bigEndian)
            try out.integer(section.minorVersion, bigEndian: bigEndian)
            try out.integer(section.sectionLength, bigEndian: bigEndian)
            try out.bytes(section.sectionOptions)
        }
        if let header { adoptInterfaceOptions(header.interfaceOptions) }
    }

    /// Takes a source interface's options, keeping the `if_tsresol` and `if_tsoffset` that this
    /// writer can honour and dropping an `if_tsresol` it cannot (binary, or coarser than µs).
    private func adoptInterfaceOptions(_ raw: [UInt8]) {
        var kept: [(code: UInt16, value: [UInt8])] = []
        var changed = false
        var offset = 0
        while offset + 4 <= raw.count {
            let code = u16(raw, offset)
            let length = Int(u16(raw, offset + 2))
            if code == 0 { break }
            guard offset + 4 + length <= raw.count else { changed = true; break }
            let value = Array(raw[offset + 4..<offset + 4 + length])
            offset += 4 + (length + 3) / 4 * 4
            if code == 9, length == 1 {
                let exponent = Int(value[0])
                if value[0] & 0x80 == 0, (6...9).contains(exponent) {
                    ticksPerMicrosecond = [1, 10, 100, 1000][exponent - 6]
                } else {
                    changed = true
                    continue
                }
            }
            if code == 14, length == 8 {
                offsetSeconds = Int64(
                    bitPattern: value.withUnsafeBytes { bytes in
                        let raw = bytes.loadUnaligned(as: UInt64.self)
                        return bigEndian ? UInt64(bigEndian: raw) : UInt64(littleEndian: raw)
                    })
            }
            kept.append((code, value))
        }
        guard changed else {
            interfaceOptions = raw
            return
        }
        interfaceOptions = encodeOptions(kept)
    }

    private func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        bigEndian
            ? UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            : UInt16(bytes[offset + 1]) << 8 | UInt16(bytes[offset])
    }

    /// Options in this section's byte order, ending with opt_endofopt; empty for none.
    private func encodeOptions(_ options: [(code: UInt16, value: [UInt8])]) -> [UInt8] {
        guard !options.isEmpty else { return [] }
        func u16(_ value: UInt16) -> [UInt8] {
            bigEndian ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF), UInt8(value >> 8)]
        }
        var bytes: [UInt8] = []
        for option in options {
            bytes += u16(option.code) + u16(UInt16(option.value.count)) + option.value
            bytes += [UInt8](repeating: 0, count: (4 - option.value.count % 4) % 4)
        }
        return bytes + [0, 0, 0, 0]
    }

    /// One block: type, total length, body, padding, total length again.
    private func block(type: UInt32, bodyLength: Int, padding: Int = 0, _ body: () throws -> Void)
        throws
    {
        let total = UInt32(12 + bodyLength + padding)
        try out.integer(type, bigEndian: bigEndian)
        try out.integer(total, bigEndian: bigEndian)
        try body()
        try out.zeros(padding)
        try out.integer(total, bigEndian: bigEndian)
    }

    /// Writes the Interface Description Block, choosing an `if_tsoffset` that places `first`
    /// when it is before 1970 and the source did not fix the options.
    private func writeInterface(first: Timestamp?) throws {
        interfaceWritten = true
        if !interfaceFromSource, let first, first.microseconds < 0 {
            offsetSeconds = RecordMapping.split(first).seconds
            let value = withUnsafeBytes(
                of: bigEndian ? offsetSeconds.bigEndian : offsetSeconds.littleEndian, Array.init)
            interfaceOptions = encodeOptions([(14, value)])
        }
        try block(type: 1, bodyLength: 8 + interfaceOptions.count) { () in
            try out.integer(linkType, bigEndian: bigEndian)
            try out.integer(UInt16(0), bigEndian: bigEndian)
            try out.integer(snapLength, bigEndian: bigEndian)
            try out.bytes(interfaceOptions)
        }
    }

    func write(_ record: CaptureRecord, losses: inout [CaptureWriter.Loss]) throws -> Bool {
        if !interfaceWritten { try writeInterface(first: record.timestamp) }
        guard
            let original = PcapFraming.frame(
                record, linkType: Int32(linkType), target: target, into: &scratch, losses: &losses)
        else { return false }
        let captured = PcapFraming.clip(scratch.count, to: snapLength, target: target, losses: &losses)
        // Ticks from the interface's start (if_tsoffset seconds), as pcapng's unsigned 64 bits;
        // a time before that start, or too far after it to count in ticks, is written as it.
        // (In seconds and microseconds, since if_tsoffset may be a second no Timestamp holds.)
        let (seconds, microseconds) = RecordMapping.split(record.timestamp)
        let (elapsed, wrapped) = seconds.subtractingReportingOverflow(offsetSeconds)
        let before = elapsed < 0 && !wrapped
        var ticks = (partialValue: UInt64(0), overflow: wrapped)
        if !before && !wrapped {
            let micros = UInt64(elapsed).multipliedReportingOverflow(by: 1_000_000)
            let sum = micros.partialValue.addingReportingOverflow(UInt64(microseconds))
            let scaled = sum.partialValue.multipliedReportingOverflow(by: UInt64(ticksPerMicrosecond))
            ticks = (scaled.partialValue, micros.overflow || sum.overflow || scaled.overflow)
        }
        if before {
            losses.append(
                .init(
                    .timestamp,
                    "before the time this pcapng's interface counts from (1970, or the first record's second when that is earlier); written as that time"
                ))
            ticks = (0, false)
        } else if ticks.overflow {
            losses.append(
                .init(
                    .timestamp,
                    "too far after the time this pcapng's interface counts from for its 64-bit ticks; written as the latest they hold"
                ))
            ticks = (.max, false)
        }
        let padding = (4 - captured % 4) % 4
        try block(type: 6, bodyLength: 20 + captured, padding: padding) { () in
            try out.integer(UInt32(0), bigEndian: bigEndian)
            try out.integer(UInt32(truncatingIfNeeded: ticks.partialValue >> 32), bigEndian: bigEndian)
            try out.integer(UInt32(truncatingIfNeeded: ticks.partialValue), bigEndian: bigEndian)
            try out.integer(UInt32(captured), bigEndian: bigEndian)
            try out.integer(UInt32(clamping: original), bigEndian: bigEndian)
            try scratch.withUnsafeBytes { (bytes) in
                try out.bytes(UnsafeRawBufferPointer(rebasing: bytes[0..<captured]))
            }
        }
        return true
    }

    func flush() throws {
        if !interfaceWritten { try writeInterface(first: nil) }
        try out.flush()
    }

    func close() throws {
        if !interfaceWritten {
            do { try writeInterface(first: nil) } catch {
                try? out.close()
                throw error
            }
        }
        try out.close()
    }
}
