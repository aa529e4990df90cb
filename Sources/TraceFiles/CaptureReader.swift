import Wire

/// Opens a capture file of any supported format and yields its records in file order.
///
/// The format comes from the content (``format``), never from the file's name. Records are read
/// one at a time in constant memory; each record's bytes are valid until the next call to
/// ``next()``. A fault in the file is thrown as a ``DecodeError`` naming the file, the record
/// index and the byte offset, after every good record before it has been returned.
public final class CaptureReader {
    public let path: String
    public let format: CaptureFormat

    // The reader of the file's format: one of the three is set. (Three constants rather than an
    // enum or an existential: a call through a constant costs no reference counting and no
    // copy of the record, and this runs once a record.)
    private let btsnoop: BTSnoopReader?
    private let pcap: PcapReader?
    private let packetLogger: PacketLoggerReader?

    public init(path: String) throws {
        self.path = path
        let window = try FileWindow(path: path)
        let have = try window.fill(64)
        guard have > 0 else {
            throw DecodeError(
                layer: .file, offset: 0,
                expected: "a capture file (btsnoop, pcap, pcapng or PacketLogger); the file is empty",
                file: path)
        }
        let prefix = window.view(have)
        switch CaptureFormat.signature(of: prefix) {
        case .btsnoop:
            let reader = try BTSnoopReader(window: window)
            (btsnoop, pcap, packetLogger) = (reader, nil, nil)
            format = .btsnoop(datalink: reader.datalink)
        case .pcap, .pcapng:
            let isNG = CaptureFormat.signature(of: prefix) == .pcapng
            let reader = try PcapReader(path: path)
            (btsnoop, pcap, packetLogger) = (nil, reader, nil)
            format = isNG ? .pcapng(linkType: reader.linkType) : .pcap(linkType: reader.linkType)
        case .unknown:
            guard let bigEndian = PacketLoggerReader.detectByteOrder(prefix) else {
                throw DecodeError(
                    layer: .file, offset: 0,
                    expected: "a btsnoop, pcap, pcapng or PacketLogger file; the first bytes match none of them",
                    file: path)
            }
            (btsnoop, pcap, packetLogger) = (nil, nil, PacketLoggerReader(window: window, bigEndian: bigEndian))
            format = .packetLogger
        }
    }

    /// The next record, or nil at the end of the file.
    public func next() throws -> CaptureRecord? {
        if let btsnoop { return try btsnoop.next() }
        if let pcap { return try pcap.next() }
        return try packetLogger?.next()
    }
}
