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
    /// For records of kind `.other`: what the capture tool wrote, where it is text.
    public var note: String?

    public init(
        index: Int, fileOffset: Int64, timestamp: Timestamp, direction: Direction?,
        kind: PacketKind, controllerIndex: UInt16? = nil, originalLength: Int,
        bytes: UnsafeRawBufferPointer, note: String? = nil
    ) {
        self.index = index
        self.fileOffset = fileOffset
        self.timestamp = timestamp
        self.direction = direction
        self.kind = kind
        self.controllerIndex = controllerIndex
        self.originalLength = originalLength
        self.bytes = bytes
        self.note = note
    }

    /// True when the capture kept fewer bytes than the packet had.
    public var isTruncated: Bool { originalLength > bytes.count }
}
