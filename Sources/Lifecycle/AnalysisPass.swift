import TraceFiles
import Wire

/// What an ``AnalysisPass`` hands its records to: each record once the pass's
/// ``CaptureAnalyzer`` has added it, so that the lifecycles already know the connection the
/// record belongs to and the request it answers (``LifecycleAnalyzer/lastAnswered``); then, once,
/// the end of the capture.
///
/// A collector that needs more than one thing (`bletrace stats` counts, and shows progress) is
/// one struct holding them. A collector may be non-copyable (one that owns a buffer it writes
/// into, as `bletrace decode`'s lines do).
public protocol RecordCollector: ~Copyable {
    /// `record`, just added to `analysis`: `quick` is its quick form when it had one, nil when
    /// it was decoded whole into `analysis.decoded`.
    ///
    /// `analysis` is the pass's, lent by address for reading: a collector must not change it.
    /// (Lent by value, the analyzer, hundreds of bytes and every reference it holds, was copied
    /// for each record: five times the pass's own time, measured.)
    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer)
    /// The capture is read: every record it could give was added, and an over-the-air capture's
    /// links are attached to `analysis`.
    mutating func finish(_ analysis: borrowing CaptureAnalyzer)
}

extension RecordCollector where Self: ~Copyable {
    public mutating func finish(_ analysis: borrowing CaptureAnalyzer) {}
}

/// The collector of a pass that needs only the analysis.
public struct NoCollector: RecordCollector {
    public init() {}
    public mutating func add(
        _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
    ) {}
}

/// One reading of a capture, the way every analysis command reads one: the reader (an
/// over-the-air capture translated into the HCI its host would have carried, ``AnalysisReader``),
/// the ``CaptureAnalyzer`` (decoder, lifecycles, errors, diagnosis), the first record's time,
/// the fault that stopped a damaged file, and the selection (`--peer`, `--transport`, `--from`,
/// `--to`) applied to what the reading found.
///
/// ```swift
/// var pass = try AnalysisPass(path: "btsnoop_hci.log", selection: TraceSelection(peer: "Inspire"))
/// var gatt = GATTCollector()
/// pass.run(&gatt)
/// let connections = pass.report.connections   // the peer's only
/// ```
public struct AnalysisPass {
    public let reader: AnalysisReader
    public var analysis: CaptureAnalyzer { read.analysis }
    public let selection: TraceSelection
    /// The first record's time, from which selections and texts count seconds.
    public var origin: Timestamp? { read.analysis.origin }
    /// What stopped the reading of a damaged file; everything before it was added.
    public var fault: (any Error)? { read.fault }
    /// What the reading gathered.
    private var read: (analysis: CaptureAnalyzer, fault: (any Error)?)

    /// A pass over `reader`'s records into `analysis`.
    public init(
        reader: AnalysisReader, analysis: CaptureAnalyzer = CaptureAnalyzer(),
        selection: TraceSelection = TraceSelection()
    ) {
        (self.reader, self.selection) = (reader, selection)
        read = (analysis, nil)
    }

    /// A pass over the capture at `path` (an over-the-air capture read as `air` says). Throws
    /// when the file cannot be opened or is not a capture.
    public init(
        path: String, air: AirOptions = AirOptions(), analysis: CaptureAnalyzer = CaptureAnalyzer(),
        selection: TraceSelection = TraceSelection()
    ) throws {
        self.init(reader: try AnalysisReader(path: path, air: air), analysis: analysis, selection: selection)
    }

    /// Reads every record from the reader's place on (at most `limit` of them): each to the
    /// analysis, then to `collector`. A fault ends the reading (``fault``); the analysis then gets
    /// the air capture's links and `collector` its ``RecordCollector/finish(_:)``.
    public mutating func run<Collector: RecordCollector & ~Copyable>(
        _ collector: inout Collector, records limit: Int = .max
    ) {
        // Locals, not `self`'s properties, in the loop: the closure would otherwise access
        // `self` for each record while the pass is being changed. (Not inlined into the
        // commands: inlined, the closure's accesses to these locals were checked at run time,
        // 13 % of `errors`' time, measured with perf.)
        var (analysis, fault) = read
        do {
            if limit == .max {
                try reader.forEach { record in
                    let quick = analysis.add(record)
                    collector.add(record, quick, &analysis)
                }
            } else {
                var count = 0
                while count < limit, let record = try reader.next() {
                    let quick = analysis.add(record)
                    collector.add(record, quick, &analysis)
                    count += 1
                }
            }
        } catch {
            fault = error
        }
        analysis.attach(reader.airCapture)
        collector.finish(analysis)
        read = (analysis, fault)
    }

    /// Reads every record into the analysis alone.
    public mutating func run(records limit: Int = .max) {
        var none = NoCollector()
        run(&none, records: limit)
    }

    /// The capture's format, as read.
    public var format: CaptureFormat { reader.format }
    /// The names the capture's scans heard, by address.
    public var names: [BluetoothAddress: String] { analysis.lifecycle.names }

    /// The lifecycles the selection keeps.
    public var report: LifecycleReport { selection.report(analysis.lifecycle.report, names: names) }
    /// The errors the selection keeps.
    public var errors: [TraceError] { selection.errors(analysis.errors.errors, names: names, origin: origin) }
    /// The findings the selection keeps (none unless the analysis diagnoses).
    public var findings: [Finding] {
        selection.findings(analysis.findings, report: analysis.lifecycle.report, names: names, origin: origin)
    }
    /// The GATT entries of the peers with a connection the selection keeps.
    public func gatt(_ entries: [GATTCollector.Entry]) -> [GATTCollector.Entry] {
        selection.gatt(entries, report: analysis.lifecycle.report)
    }
    /// The selection names a peer that no connection and no scan of the capture shows.
    public var peerMatchesNothing: Bool {
        selection.peerMatchesNothing(analysis.lifecycle.connections, names: names)
    }
}
