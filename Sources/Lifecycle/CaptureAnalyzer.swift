import TraceFiles
import Wire

/// The decoder, the lifecycles, the errors and the diagnosis, fed together one record at a time:
/// how `bletrace lifecycle`, `errors`, `diagnose` and `stats` read a capture.
///
/// The commonest records (ATT notifications, write commands and reads, ACL fragments, raw events
/// such as Number Of Completed Packets) take their ``QuickRecord`` form, with no
/// ``DecodedRecord`` built; every other record is decoded whole into ``decoded``. Either way the lifecycles and errors are those
/// of feeding every record's full decoding to ``LifecycleAnalyzer`` and ``ErrorCollector``.
///
/// An ``AnalysisPass`` feeds it every record of a capture:
///
/// ```swift
/// var pass = try AnalysisPass(path: "btsnoop_hci.log", analysis: CaptureAnalyzer(diagnosing: false))
/// pass.run()
/// let report = pass.analysis.lifecycle.report
/// ```
public struct CaptureAnalyzer {
    public private(set) var lifecycle = LifecycleAnalyzer()
    public private(set) var errors = ErrorCollector()
    public private(set) var diagnosis = DiagnosisCollector()
    private var decoder = TraceDecoder()
    /// The full decoding of the latest record added that had no quick form; valid, as its views
    /// are, until the next record is read.
    public private(set) var decoded = DecodedRecord()
    /// The ATT PDU (opcode and parameters) of the latest record added, when it was a quick
    /// ``QuickRecord/att(connection:opcode:attribute:length:)``; valid until the next record is
    /// read.
    public var quickPDU: UnsafeRawBufferPointer { decoder.quickPDU }
    /// The first record's time, from which selections and texts count seconds.
    public private(set) var origin: Timestamp?
    /// Whether ``diagnosis`` is gathered.
    public let diagnosing: Bool

    /// An analyzer of a capture's records. With `diagnosing` false (`bletrace stats`, which
    /// counts), nothing is gathered for `bletrace diagnose`: ``findings`` is empty, and the time
    /// and memory it would take (4 bytes an ATT request for the latencies, and a few fields a
    /// connection) are saved.
    /// `given`: the peer's database where the capture never discovered it (`--gatt`), which names
    /// the subscriptions' characteristics.
    /// With `wholeRecords`, every record is decoded whole into ``decoded`` (none takes its quick
    /// form): for a reader that shows each record, as `bletrace decode` does.
    public init(diagnosing: Bool = true, given: GivenGATT? = nil, wholeRecords: Bool = false) {
        self.diagnosing = diagnosing
        self.wholeRecords = wholeRecords
        lifecycle.given = given
    }

    /// Whether every record is decoded whole (``init(diagnosing:given:wholeRecords:)``).
    public let wholeRecords: Bool

    /// Gives the lifecycles what an over-the-air capture showed of itself and its links
    /// (``AnalysisReader/airCapture``), once its records are all added.
    package mutating func attach(_ air: AirCapture?) { lifecycle.attach(air) }

    /// The findings of `bletrace diagnose` for every record added so far, most serious first
    /// (none when not ``diagnosing``).
    public var findings: [Finding] {
        diagnosing ? diagnosis.findings(report: lifecycle.report, errors: errors.errors) : []
    }

    /// Adds `record`. Returns its quick form when it had one; nil when it was decoded whole, into
    /// ``decoded``.
    @discardableResult
    public mutating func add(_ record: CaptureRecord) -> QuickRecord? {
        if origin == nil { origin = record.timestamp }
        if wholeRecords {
            decoded = decoder.decode(record)
        } else if let quick = decoder.decode(record, into: &decoded) {
            // The connection is looked up once, by the lifecycles, and its id handed on.
            // `lifecycle` goes by address (inout, never changed): passed by value it would be
            // copied whole, 360 bytes, for each call, as `self` is being changed meanwhile.
            switch quick {
            case .att(let handle, let opcode, let attribute, let length):
                let id = lifecycle.addATT(handle, opcode, attribute, length, record)
                errors.add(quick, record, analyzer: &lifecycle)
                guard diagnosing else { return quick }
                diagnosis.addTraffic(on: id, record, &lifecycle)
                if lifecycle.lastAnswered != nil { diagnosis.addAnswer(on: id, record, &lifecycle) }
                // (Only a PDU longer than the smallest MTU can be too long for its own.)
                if length > ProcedureTrails.defaultMTU, opcode == .writeCommand {
                    diagnosis.trails.longCommand(attribute, length: length, on: id, handle: handle, record, &lifecycle)
                }
            case .fragment(let handle):
                let id = lifecycle.addFragment(on: handle, record)
                errors.add(quick, record, analyzer: &lifecycle)
                if diagnosing { diagnosis.addTraffic(on: id, record, &lifecycle) }
            case .event(let code):
                lifecycle.addEvent(code, record)
                errors.add(quick, record, analyzer: &lifecycle)
                if diagnosing { diagnosis.addEvent(code, record, &lifecycle) }
            }
            return quick
        }
        // The record too goes by address: passed by value from `self` it would be copied, 232
        // bytes and its references retained, for each call.
        lifecycle.add(record, &decoded)
        errors.add(record, &decoded, analyzer: &lifecycle)
        if diagnosing { diagnosis.add(record, &decoded, analyzer: &lifecycle) }
        return nil
    }
}
