import LinkLayer
import TraceFiles
import Wire

/// What a capture is (`bletrace info`): its format, how many records of each kind it holds, and
/// the time it spans. Encoded, it is the JSON document of `bletrace info --format json` (its
/// contract: Formats/json.md).
public struct CaptureInfo: Encodable {
    var version = jsonVersion
    var file: String
    var format: String
    var datalink: Int?
    var description: String
    var records: Int
    var kinds: [String: Int]
    var first_ts_us: Int64?
    var last_ts_us: Int64?
    var duration_ms: Double?
    var error: String?
    /// What the container read holds, when the file is one (a bug report zip, a sysdiagnose).
    public var container: ContainerListing?

    /// Counts in the order of `PacketKind.allCases` (or as given, for a link-layer capture), for
    /// the text; not part of the document.
    private var kindCounts: [(String, Int)]
    private var first: Timestamp?
    private var last: Timestamp?
    /// What stopped the reading of a damaged file (``error`` in the document).
    public private(set) var fault: (any Error)?

    private enum CodingKeys: String, CodingKey {
        case version, file, format, datalink, description, records, kinds, first_ts_us, last_ts_us, duration_ms, error,
            container
    }

    /// The facts of a capture read from `file`: its `format`, the number of records of each
    /// kind, the first and last record's times, and the fault that ended the reading early, if
    /// one did.
    public init(
        file: String, format: CaptureFormat, kinds: [PacketKind: Int], first: Timestamp?, last: Timestamp?,
        fault: (any Error)? = nil
    ) {
        self.file = file
        self.format = format.name
        datalink = format.datalink
        description = format.description
        records = kinds.values.reduce(0, +)
        self.kinds = Dictionary(uniqueKeysWithValues: kinds.map { ("\($0.key)", $0.value) })
        first_ts_us = first?.microseconds
        last_ts_us = last?.microseconds
        // Whole microseconds over a thousand: 1899.944, not seconds times 1000 (1899.9440000000002);
        // a span past Int64's range (a damaged clock) as seconds times 1000.
        duration_ms = first.flatMap { first in
            last.map { last in
                let (span, overflow) = last.microseconds.subtractingReportingOverflow(first.microseconds)
                return overflow
                    ? ReportJSON.milliseconds(last.seconds(since: first) * 1000)
                    : ReportJSON.milliseconds(microseconds: span)
            }
        }
        error = fault.map { "\($0)" }
        self.fault = fault
        kindCounts = PacketKind.allCases.compactMap { kind in kinds[kind].map { ("\(kind)", $0) } }
        self.first = first
        self.last = last
    }

    /// The facts of an over-the-air capture: its records counted by what the link-layer decoder
    /// made of them (`advertising`, `data`, `isochronous`, `undecodable`), in the order given, in place of the
    /// HCI packet kinds.
    public init(
        file: String, format: CaptureFormat, linkLayerKinds: [(String, Int)], first: Timestamp?, last: Timestamp?,
        fault: (any Error)? = nil
    ) {
        self.init(file: file, format: format, kinds: [:], first: first, last: last, fault: fault)
        records = linkLayerKinds.reduce(0) { $0 + $1.1 }
        kinds = Dictionary(linkLayerKinds, uniquingKeysWith: +)
        kindCounts = linkLayerKinds.filter { $0.1 > 0 }
    }

    /// Reads the capture `reader` reads (named `file`) to its end, counting its records: by HCI
    /// packet kind, or for an over-the-air capture by what the link-layer decoder makes of them.
    /// A fault after some records is ``error``: the counts cover the records before it. Each
    /// record is also handed to `each` (`info` counts the secrets in the same pass).
    public init(file: String, reading reader: CaptureReader, each: (CaptureRecord) -> Void = { _ in }) {
        var kinds: [PacketKind: Int] = [:]
        var first: Timestamp?
        var last: Timestamp?
        var fault: (any Error)?
        var linkLayer = reader.format.linkLayerType.map { LinkLayerDecoder(linkType: $0) }
        var airKinds = [("advertising", 0), ("data", 0), ("isochronous", 0), ("undecodable", 0)]
        do {
            while let record = try reader.next() {
                each(record)
                if linkLayer != nil {
                    let decoded = linkLayer!.decode(record.bytes, time: record.timestamp, index: record.index)
                    switch decoded.packet?.pdu {
                    case .advertising: airKinds[0].1 += 1
                    case .data: airKinds[decoded.isochronous == nil ? 1 : 2].1 += 1
                    case nil: airKinds[3].1 += 1
                    }
                } else {
                    kinds[record.kind, default: 0] += 1
                }
                if first == nil { first = record.timestamp }
                last = record.timestamp
            }
        } catch { fault = error }
        if linkLayer == nil {
            self.init(file: file, format: reader.format, kinds: kinds, first: first, last: last, fault: fault)
        } else {
            self.init(
                file: file, format: reader.format, linkLayerKinds: airKinds, first: first, last: last, fault: fault)
        }
    }

    /// Writes the text form, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        let counts = kindCounts.map { "\($0.1) \($0.0)" }
        emit("file:     \(file)")
        container?.write(emit)
        emit("format:   \(description)")
        emit("records:  \(records)" + (counts.isEmpty ? "" : " (" + counts.joined(separator: ", ") + ")"))
        if let first, let last {
            emit("first:    \(isoTime(first))")
            emit("last:     \(isoTime(last))")
            emit("duration: \(Wording.sinceStart(last, origin: first).dropFirst()) s")
        }
    }
}
