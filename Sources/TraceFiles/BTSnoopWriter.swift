import Wire

/// Writes btsnoop files: datalinks 1001 (H1), 1002 (H4) and 2001 (Linux monitor).
///
/// All header fields big-endian (Formats/btsnoop.md): the 16-byte file header `btsnoop\0`,
/// version 1, datalink; each record a 24-byte header (original length, included length, flags,
/// cumulative drops, timestamp in µs since 0000-01-01) and the packet.
///
/// Flags: 1001 and 1002 bit 0 direction (1 received), bit 1 command or event; 2001 controller
/// index << 16 | monitor opcode. A record read from a btsnoop keeps its own flags and drops
/// (``CaptureRecord/btsnoopFlags``) whenever they say the same kind, direction and controller as
/// the computed ones, so a rewrite is byte-identical even for non-standard flags.
final class BTSnoopWriter {
    static let datalinks: Set<UInt32> = [1001, 1002, 2001]

    let datalink: UInt32
    let out: BufferedFileWriter
    private let target: String

    init(path: String, datalink: UInt32) throws {
        self.datalink = datalink
        target = "btsnoop \(datalink)"
        out = try BufferedFileWriter(path: path)
        try out.bytes(Array("btsnoop\0".utf8))
        try out.integer(UInt32(1), bigEndian: true)
        try out.integer(datalink, bigEndian: true)
    }

    func write(_ record: CaptureRecord, losses: inout [CaptureWriter.Loss]) throws -> Bool {
        var flags: UInt32
        var indicator: UInt8?
        var payload = RecordMapping.Payload.record
        switch datalink {
        case 1002:
            guard let framing = RecordMapping.h4(record, target: target, recordsDirection: true, losses: &losses)
            else { return false }
            indicator = framing.indicator
            flags = framing.direction == .received ? 1 : 0
            if record.kind == .command || record.kind == .event { flags |= 2 }
        case 1001:
            guard let h1 = Self.h1Flags(record, losses: &losses) else { return false }
            flags = h1
        default:
            guard let monitor = RecordMapping.monitor(record, target: target, losses: &losses) else { return false }
            flags = UInt32(monitor.controller) << 16 | UInt32(monitor.opcode)
            payload = monitor.payload
        }
        var drops: UInt32 = 0
        if let kept = record.btsnoopFlags {
            drops = kept.cumulativeDrops
            if Self.sameMeaning(kept, of: record, flags, datalink: datalink) { flags = kept.flags }
        }
        let prefix = indicator == nil ? 0 : 1
        try payload.withBytes(of: record) { (bytes) in
            let included = prefix + bytes.count
            let original = Self.originalLength(record, payload: payload, included: included, prefix: prefix)
            try out.integer(UInt32(clamping: original), bigEndian: true)
            try out.integer(UInt32(included), bigEndian: true)
            try out.integer(flags, bigEndian: true)
            try out.integer(drops, bigEndian: true)
            try out.integer(record.timestamp.microseconds &+ BTSnoopReader.unixEpochOffset, bigEndian: true)
            if let indicator { try out.integer(indicator, bigEndian: true) }
            try out.bytes(bytes)
        }
        return true
    }

    /// The original length: the record's plus the indicator, or the included length for a
    /// payload made for this target.
    static func originalLength(_ record: CaptureRecord, payload: RecordMapping.Payload, included: Int, prefix: Int)
        -> Int
    {
        if case .made = payload { return included }
        return record.originalLength + prefix
    }

    /// H1: no indicator, so the kind lives in the flags (bit 1: command or event; command when
    /// bit 0 is clear). SCO and ISO become data, which reads back as ACL.
    static func h1Flags(_ record: CaptureRecord, losses: inout [CaptureWriter.Loss]) -> UInt32? {
        let target = "btsnoop 1001 (H1)"
        if record.kind != .other { RecordMapping.checkController(record, target: target, losses: &losses) }
        switch record.kind {
        case .command:
            RecordMapping.checkFixedDirection(record, target: target, losses: &losses)
            return 2
        case .event:
            RecordMapping.checkFixedDirection(record, target: target, losses: &losses)
            return 3
        case .acl, .sco, .iso:
            if record.kind != .acl {
                losses.append(
                    .init(.kind, "\(target) cannot tell SCO and ISO from ACL; written as data, which reads back as ACL")
                )
            }
            return RecordMapping.direction(record, losses: &losses) == .received ? 1 : 0
        case .other:
            let what = record.sourceType.map(RecordMapping.describe) ?? "an unrecognised packet (no HCI packet type)"
            losses.append(.init(.record, "\(what); \(target) holds only HCI packets"))
            return nil
        }
    }

    /// True when a reader takes the same kind, direction and controller from the record's own
    /// flags as from the computed ones. Flags read from a Linux monitor file (the record has a
    /// monitor opcode) mean something else in 1001 and 1002.
    static func sameMeaning(
        _ kept: CaptureRecord.BTSnoopFlags, of record: CaptureRecord, _ computed: UInt32, datalink: UInt32
    ) -> Bool {
        let fromMonitor: Bool
        if case .linuxMonitor = record.sourceType { fromMonitor = true } else { fromMonitor = false }
        switch datalink {
        case 1002: return !fromMonitor && kept.flags & 1 == computed & 1
        case 1001: return !fromMonitor && kept.flags & 3 == computed & 3
        default: return kept.flags == computed
        }
    }
}
