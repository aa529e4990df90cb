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

    // The reader of the file's format, held by `source`; one of the three references below is
    // set, to call it directly. They are unmanaged, called through a guaranteed reference
    // (`source` keeps the reader alive as long as this object): a call then costs no reference
    // counting and no copy of the record through an existential, and it is made once a record.
    private let source: AnyObject
    private let btsnoop: Unmanaged<BTSnoopReader>?
    private let pcap: Unmanaged<PcapReader>?
    private let packetLogger: Unmanaged<PacketLoggerReader>?

    /// Opens `path`: a file, or a FIFO or character device read as a stream (btsnoop and
    /// PacketLogger; libpcap reads pcap and pcapng from files only). A FIFO that no program
    /// writes to within `streamWait` is refused by name rather than waited on forever.
    public convenience init(path: String) throws {
        try self.init(path: path, streamWait: .seconds(10))
    }

    /// `linkLayer`: read the over-the-air sniffer link types (pcap/pcapng 251, 256, 272) too,
    /// for a caller that decodes them (the `LinkLayer` module); they are refused by name
    /// otherwise, since every HCI analysis would find nothing in them.
    public convenience init(path: String, streamWait: Duration = .seconds(10), linkLayer: Bool) throws {
        do {
            try self.init(opening: path, streamWait: streamWait, linkLayer: linkLayer)
        } catch {
            throw Self.naming(error, path: path)
        }
    }

    public convenience init(path: String, streamWait: Duration) throws {
        do {
            try self.init(opening: path, streamWait: streamWait, linkLayer: false)
        } catch {
            throw Self.naming(error, path: path)
        }
    }

    /// A member unpacked from a container (``CaptureContainer``) is named in errors as
    /// "CONTAINER: MEMBER" rather than by its temporary file.
    private static func naming(_ error: any Error, path: String) -> any Error {
        guard var fault = error as? DecodeError, let name = ContainerNames.name(for: path) else { return error }
        fault.file = name
        return fault
    }

    private init(opening path: String, streamWait: Duration, linkLayer: Bool) throws {
        self.path = path
        let window = try FileWindow(path: path, streamWait: streamWait)
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
            (source, btsnoop, pcap, packetLogger) = (reader, .passUnretained(reader), nil, nil)
            format = .btsnoop(datalink: reader.datalink)
        case .pcap, .pcapng:
            let isNG = CaptureFormat.signature(of: prefix) == .pcapng
            guard !window.isStream else {
                throw CaptureError.unsupported(
                    path: path,
                    reason:
                        "a \(isNG ? "pcapng" : "pcap") stream from a FIFO or device cannot be read (libpcap reads pcap and pcapng from files); save it to a file first, or send btsnoop"
                )
            }
            let reader = try PcapReader(path: path, linkLayer: linkLayer)
            (source, btsnoop, pcap, packetLogger) = (reader, nil, .passUnretained(reader), nil)
            format = isNG ? .pcapng(linkType: reader.linkType) : .pcap(linkType: reader.linkType)
        case .unknown:
            guard let bigEndian = PacketLoggerReader.detectByteOrder(prefix) else {
                throw DecodeError(
                    layer: .file, offset: 0,
                    expected: "a btsnoop, pcap, pcapng or PacketLogger file; the first bytes match none of them",
                    file: path)
            }
            let reader = PacketLoggerReader(window: window, bigEndian: bigEndian)
            (source, btsnoop, pcap, packetLogger) = (reader, nil, nil, .passUnretained(reader))
            format = .packetLogger
        }
    }

    /// Hands every record from the next one to the end of the file to `body`, in file order. A
    /// record is borrowed: its bytes are valid only during the call. This is the fastest way
    /// through a file (a record is built once, in place); a fault in the file is thrown after
    /// every good record before it has been handed over, as from ``next()``.
    public func forEach(_ body: (borrowing CaptureRecord) throws -> Void) throws {
        do {
            if let btsnoop { return try btsnoop._withUnsafeGuaranteedRef { try $0.forEach(body) } }
            while let record = try next() { try body(record) }
        } catch {
            throw Self.naming(error, path: path)
        }
    }

    /// The next record, or nil at the end of the file.
    public func next() throws -> CaptureRecord? {
        do {
            if let btsnoop { return try btsnoop._withUnsafeGuaranteedRef { try $0.next() } }
            if let pcap { return try pcap._withUnsafeGuaranteedRef { try $0.next() } }
            return try packetLogger?._withUnsafeGuaranteedRef { try $0.next() }
        } catch {
            throw Self.naming(error, path: path)
        }
    }
}
