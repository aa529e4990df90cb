import Wire

/// One record of a capture, as any reader yields it.
///
/// `bytes` is borrowed from the reader's buffer and stays valid only until the reader is asked
/// for the next record; copy it to keep it. For HCI packets it holds the packet without any H4
/// indicator byte or capture-format header.
public struct CaptureRecord {
    /// 0-based position in the file.
    public var index: Int
    /// Byte offset of the record's header in the file.
    public var fileOffset: Int64
    public var timestamp: Timestamp
    /// Nil where the format does not say (pcap link type 187).
    public var direction: Direction?
    public var kind: PacketKind
    /// Controller (adapter) index, for formats that carry one (Linux monitor).
    public var controllerIndex: UInt16?
    /// Length of the packet on the wire; larger than `bytes.count` when the capture truncated it.
    public var originalLength: Int
    public var bytes: UnsafeRawBufferPointer
    /// For records of kind `.other`: what the record is, and the text the capture tool wrote
    /// where it wrote text (a system note, a log line). Made from the record's bytes when asked
    /// for, so that a record holds no reference and is copied as plain bytes.
    public var note: String? {
        guard kind == .other else { return nil }
        switch sourceType {
        case .linuxMonitor(let opcode): return LinuxMonitor.note(opcode: opcode, payload: bytes)
        case .packetLogger(let type): return PacketLoggerReader.note(type: type, payload: bytes)
        case nil: return unclassified?.description
        }
    }

    /// Why an H4 reader could not say what the record is.
    enum Unclassified: Hashable, CustomStringConvertible {
        case empty
        case unknownH4Type(UInt8)
        case notH4

        var description: String {
            switch self {
            case .empty: "empty record"
            case .unknownH4Type(let type): "unknown H4 packet type \(hex(type, digits: 1))"
            case .notH4: "not an H4 packet"
            }
        }
    }

    /// Set by the H4 readers (btsnoop 1002, pcap 187 and 201) on a record of kind `.other`.
    var unclassified: Unclassified?
    /// The record's type in the numbering of the format it was read from, where kind and
    /// direction do not say all of it: the Linux monitor opcode (btsnoop 2001, pcap 254) or the
    /// PacketLogger record type. ``CaptureWriter`` uses it to write non-HCI records (notes, logs,
    /// index records) back as they were, and to carry notes between the two. Nil for the other
    /// formats and for records made in code.
    public var sourceType: SourceType?
    /// btsnoop only: the record header's flags and cumulative-drops words as the file had them,
    /// so that a btsnoop written from these records is byte-identical even where a writer set
    /// non-standard flags (such as 0x10 for commands and events). Nil for other formats.
    public var btsnoopFlags: BTSnoopFlags?

    /// A record type in its capture format's own numbering (see ``sourceType``).
    public enum SourceType: Hashable, Sendable {
        /// Linux monitor opcode (btsnoop 2001, pcap link type 254), e.g. 12 system note.
        case linuxMonitor(opcode: UInt16)
        /// PacketLogger record type, e.g. 0xFC note, 0x0A.
        case packetLogger(type: UInt8)
    }

    /// The two btsnoop record-header words that kind and direction do not determine.
    public struct BTSnoopFlags: Hashable, Sendable {
        public var flags: UInt32
        public var cumulativeDrops: UInt32

        public init(flags: UInt32, cumulativeDrops: UInt32) {
            self.flags = flags
            self.cumulativeDrops = cumulativeDrops
        }
    }

    public init(
        index: Int, fileOffset: Int64, timestamp: Timestamp, direction: Direction?,
        kind: PacketKind, controllerIndex: UInt16? = nil, originalLength: Int,
        bytes: UnsafeRawBufferPointer, sourceType: SourceType? = nil,
        btsnoopFlags: BTSnoopFlags? = nil
    ) {
        self.index = index
        self.fileOffset = fileOffset
        self.timestamp = timestamp
        self.direction = direction
        self.kind = kind
        self.controllerIndex = controllerIndex
        self.originalLength = originalLength
        self.bytes = bytes
        self.sourceType = sourceType
        self.btsnoopFlags = btsnoopFlags
    }

    /// True when the capture kept fewer bytes than the packet had.
    public var isTruncated: Bool { originalLength > bytes.count }
}
