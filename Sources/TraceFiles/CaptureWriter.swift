import Wire

/// Writes capture records to a new file in any format bletrace reads: btsnoop (datalinks 1001,
/// 1002, 2001), pcap through libpcap's dump API (link types 187, 201, 254), pcapng (the same link
/// types; a native writer, since libpcap writes only pcap) and Apple PacketLogger.
///
/// Making the writer creates (or truncates) the file and writes the file header; each
/// ``write(_:)`` appends one record. Writes go through a buffer and reach the file when it fills,
/// at ``flush()`` and at ``close()`` (also called from deinit). None of these formats has a
/// trailer, so a file is valid up to its last complete record: **a live writer calls ``flush()``
/// after each record**, so that the file on disk is always valid up to the last complete record
/// and a killed process leaves a readable file.
///
/// Nothing is dropped silently. Whatever a record has that the target cannot hold (a note in an
/// H4 file, an ACL direction in pcap 187, a controller index in a format without one, a time
/// outside the format's range) is returned by ``write(_:)`` as ``Loss`` values and tallied in
/// ``losses``; the record itself is written whenever the target has a place for it, and
/// ``recordsNotWritten`` counts those it has none for. `bletrace convert` prints the tally and
/// exits 1 when it is not empty. The "Writing" section of each document in `Formats/` says, per
/// format, what is written and what cannot be carried.
///
/// Same-format rewrites are byte-identical: records keep their btsnoop flags and drops
/// (``CaptureRecord/btsnoopFlags``) and their Linux monitor opcode or PacketLogger type
/// (``CaptureRecord/sourceType``), and ``Options/matching(_:)`` takes the header fields a format
/// has beyond its datalink (snap length, byte order, pcapng block options) from the source file.
public final class CaptureWriter {
    public let path: String
    public let format: CaptureFormat
    /// Records written to the file.
    public private(set) var recordsWritten = 0
    /// Records the target has no place for (each also counted in ``losses``).
    public private(set) var recordsNotWritten = 0
    /// What could not be carried so far, with how many records it concerned.
    public private(set) var losses: [Loss: Int] = [:]

    private enum Sink {
        case btsnoop(BTSnoopWriter)
        case pcap(PcapWriter)
        case pcapng(PcapngWriter)
        case packetLogger(PacketLoggerWriter)
    }

    /// Nil once closed.
    private var sink: Sink?

    /// Creates the file at `path` in `format` with default header fields (see ``Options``).
    public convenience init(path: String, format: CaptureFormat) throws {
        try self.init(path: path, format: format, options: Options())
    }

    /// Creates the file at `path` in `format`, with the header fields in `options`.
    ///
    /// Throws ``CaptureError/unsupported(path:reason:)`` for a datalink or link type bletrace
    /// does not write, and ``Failure`` when the file cannot be created.
    public init(path: String, format: CaptureFormat, options: Options) throws {
        self.path = path
        self.format = format
        switch format {
        case .btsnoop(let datalink):
            guard BTSnoopWriter.datalinks.contains(datalink) else {
                throw CaptureError.unsupported(
                    path: path,
                    reason:
                        "bletrace writes btsnoop datalinks 1001 (H1), 1002 (H4) and 2001 (Linux monitor), not \(datalink) (\(BTSnoopDatalink(datalink)))"
                )
            }
            sink = .btsnoop(try BTSnoopWriter(path: path, datalink: datalink))
        case .pcap(let linkType), .pcapng(let linkType):
            // The over-the-air link types take only records read from a capture of the same type
            // (`bletrace redact` writes them back).
            guard PcapReader.readable.contains(linkType) || PcapReader.linkLayerSniffer.contains(linkType) else {
                throw CaptureError.unsupported(
                    path: path,
                    reason:
                        "bletrace writes the HCI link types 187, 201 and 254 (and an over-the-air capture's own 251, 256 or 272), not \(linkType) (\(PcapLinkType(linkType)))"
                )
            }
            if case .pcap = format {
                sink = .pcap(try PcapWriter(path: path, linkType: linkType, snapLength: options.snapLength))
            } else {
                sink = .pcapng(
                    try PcapngWriter(
                        path: path, linkType: UInt16(linkType), snapLength: options.snapLength,
                        bigEndian: options.bigEndian, header: options.pcapngHeader))
            }
        case .packetLogger:
            sink = .packetLogger(try PacketLoggerWriter(path: path, bigEndian: options.bigEndian))
        }
    }

    deinit { try? close() }

    /// Appends one record (to the buffer; see ``flush()``).
    ///
    /// Returns what of the record the target could not hold, empty when everything was carried
    /// (the same values are added to ``losses``). A ``Loss`` of part ``Loss/Part/record`` means the
    /// record was not written at all. Throws ``Failure`` when the file cannot be written.
    @discardableResult
    public func write(_ record: CaptureRecord) throws -> [Loss] {
        guard let sink else { throw Failure(path: path, reason: "the writer is closed") }
        var found: [Loss] = []
        let written: Bool
        switch sink {
        case .btsnoop(let writer): written = try writer.write(record, losses: &found)
        case .pcap(let writer): written = try writer.write(record, losses: &found)
        case .pcapng(let writer): written = try writer.write(record, losses: &found)
        case .packetLogger(let writer): written = try writer.write(record, losses: &found)
        }
        if written { recordsWritten += 1 } else { recordsNotWritten += 1 }
        for loss in found { losses[loss, default: 0] += 1 }
        return found
    }

    /// Makes every record written so far reach the file.
    public func flush() throws {
        switch sink {
        case .btsnoop(let writer): try writer.out.flush()
        case .pcap(let writer): try writer.flush()
        case .pcapng(let writer): try writer.flush()
        case .packetLogger(let writer): try writer.out.flush()
        case nil: break
        }
    }

    /// Flushes and closes the file. Later writes throw; closing again does nothing.
    public func close() throws {
        guard let open = sink else { return }
        sink = nil
        switch open {
        case .btsnoop(let writer): try writer.out.close()
        case .pcap(let writer): try writer.close()
        case .pcapng(let writer): try writer.close()
        case .packetLogger(let writer): try writer.out.close()
        }
    }

    /// The file could not be created or written.
    public struct Failure: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }

        public var description: String { "\(path): cannot write: \(reason)" }
    }
}
