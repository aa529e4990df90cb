import LinkLayer
import TraceFiles
import Wire

/// A capture as the analyses read it: an HCI trace's records as they are; an over-the-air
/// capture's (pcap/pcapng link types 251, 256, 272) as this host's HCI would have carried the
/// same session (`AirTranslator`), with what only the air shows kept per link (`airCapture`).
///
/// ```swift
/// let reader = try AnalysisReader(path: "sniffer.pcapng")   // the central is this host
/// var pass = AnalysisPass(reader: reader)
/// pass.run()   // the air capture's links attached at the end
/// ```
public final class AnalysisReader {
    public let capture: CaptureReader
    public var format: CaptureFormat { capture.format }
    public var path: String { capture.path }
    private var air: AirTranslator?
    /// The made records of the last air record not handed out yet, and the air record's place.
    private var nextMade = 0
    private var airIndex = 0
    private var airOffset: Int64 = 0

    /// Opens the capture at `path`. With `linkLayer` false, an over-the-air capture is refused
    /// (`CaptureReader.init(path:linkLayer:)`'s error): for a reading of HCI records as the
    /// file holds them.
    public init(path: String, air options: AirOptions = AirOptions(), linkLayer: Bool = true) throws {
        capture = try CaptureReader(path: path, linkLayer: linkLayer)
        if let linkType = capture.format.linkLayerType { air = AirTranslator(linkType: linkType, options: options) }
    }

    /// True for an over-the-air capture.
    public var isAir: Bool { air != nil }

    /// What an over-the-air capture showed of itself and its links, so far; nil for HCI.
    package var airCapture: AirCapture? {
        guard let air else { return nil }
        var capture = AirCapture()
        (capture.records, capture.firstTime, capture.lastTime, capture.links) = (
            airRecords, airFirst, airLast, air.links
        )
        return capture
    }
    private var airRecords = 0
    private var airFirst: Timestamp?
    private var airLast: Timestamp?

    /// The next record, or nil at the end of the capture. Its bytes are valid until the next call.
    public func next() throws -> CaptureRecord? {
        guard air != nil else { return try capture.next() }
        while true {
            if nextMade < air!.made.count {
                let made = air!.made[nextMade]
                nextMade += 1
                return CaptureRecord(
                    index: airIndex, fileOffset: airOffset, timestamp: made.time, direction: made.direction,
                    kind: made.kind,
                    originalLength: made.count,
                    bytes: UnsafeRawBufferPointer(rebasing: air!.bytes.buffer[made.start..<made.start + made.count]))
            }
            guard let record = try capture.next() else { return nil }
            (airIndex, airOffset, nextMade) = (record.index, record.fileOffset, 0)
            airRecords += 1
            if airFirst == nil { airFirst = record.timestamp }
            airLast = record.timestamp
            _ = air!.translate(record)
        }
    }

    /// Hands every record from the next one on to `body`, as ``next()`` returns them.
    public func forEach(_ body: (borrowing CaptureRecord) throws -> Void) throws {
        guard air != nil else { return try capture.forEach(body) }
        while let record = try next() { try body(record) }
    }
}
