import ATT
import HCI
import TraceFiles
import Wire

/// Everything bletrace's analysis commands report about one capture, from one reading of it: the
/// connection lifecycles and their summary, every error with its CoreBluetooth equivalent, each
/// peer's GATT database, the counts of `bletrace stats`, and the findings of `bletrace diagnose`.
///
/// ```swift
/// let analysis = try TraceAnalysis(path: "btsnoop_hci.log")
/// for connection in analysis.lifecycle.connections where connection.outcome == .disconnected { … }
/// let unexpected = analysis.errors.filter { !$0.expected }
/// for finding in analysis.findings where finding.severity == .error { print(finding.rule, finding.summary) }
/// ```
public struct TraceAnalysis: Hashable, Sendable, Codable {
    /// The capture's format, as `bletrace info` names it (`btsnoop, datalink 1002 (HCI UART (H4))`).
    public var format: String
    public var lifecycle: LifecycleReport
    public var summary: LifecycleSummary
    public var errors: [TraceError]
    /// Per peer (or per connection when the capture does not name the peer), both GATT servers of
    /// its links: the peer's and this host's, as each side's client discovered them.
    public var gatt: [GATTCollector.Entry]
    public var statistics: TraceStatistics
    /// What `bletrace diagnose` concludes, most serious first (``DiagnosisCollector``), from
    /// the same reading.
    public var findings: [Finding]
    /// What stopped the reading of a damaged file (its file, record and byte offset); everything
    /// above covers every record before it.
    public var fault: String?

    /// Reads the capture at `path` once. Throws only when the file cannot be opened or is not a
    /// capture; damage after the first records is ``fault``. An over-the-air capture is read as
    /// `air` says (``AnalysisReader``).
    public init(path: String, air: AirOptions = AirOptions()) throws {
        let reader = try AnalysisReader(path: path, air: air)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var errors = ErrorCollector()
        var gatt = GATTCollector()
        var statistics = TraceStatistics()
        var diagnosis = DiagnosisCollector()
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                errors.add(record, decoded, analyzer: analyzer)
                gatt.add(record, decoded, analyzer: analyzer)
                diagnosis.add(record, decoded, analyzer: &analyzer)
                statistics.add(record, decoded)
            }
        } catch {
            fault = "\(error)"
        }
        format = reader.format.description
        analyzer.attach(reader.airCapture)
        lifecycle = analyzer.report
        self.errors = errors.errors
        self.gatt = gatt.entries.filter { !$0.isEmpty }
        statistics.connections = lifecycle.connections.count
        self.statistics = statistics
        summary = LifecycleSummary(connections: lifecycle.connections, scans: lifecycle.scans, errors: self.errors)
        findings = diagnosis.findings(report: lifecycle, errors: self.errors)
    }
}

/// What a capture holds, counted: records by kind, HCI commands, events and LE subevents, ATT PDUs
/// and SMP commands by code, and the records that did not decode. Codes are keys; names come from
/// ``HCIOpcode``, ``HCIEventCode``, ``LESubeventCode``, ``ATTOpcode`` and ``SMPCode``.
public struct TraceStatistics: Hashable, Sendable, Codable {
    public var records = 0
    /// The bytes of the records' packets.
    public var bytes = 0
    /// Records per kind (`command`, `event`, `acl`, `sco`, `iso`, `other`).
    public var kinds: [String: Int] = [:]
    /// Counts by code (as `Int`, so that JSON writes an object keyed by the decimal code).
    public var hciCommands: [Int: Int] = [:]
    public var hciEvents: [Int: Int] = [:]
    public var leSubevents: [Int: Int] = [:]
    public var attPDUs: [Int: Int] = [:]
    public var smpCommands: [Int: Int] = [:]
    /// Connections and attempts, as the lifecycle counts them.
    public var connections = 0
    /// Records with a layer that did not decode, and records that revealed lost ACL fragments.
    public var undecodableRecords = 0
    public var lostFragments = 0

    enum CodingKeys: String, CodingKey {
        case records, bytes, kinds, hciCommands = "hci_commands", hciEvents = "hci_events", leSubevents = "le_subevents"
        case attPDUs = "att_pdus", smpCommands = "smp_commands", connections
        case undecodableRecords = "undecodable_records", lostFragments = "lost_fragments"
    }

    public init() {}

    mutating func add(_ record: CaptureRecord, _ decoded: DecodedRecord) {
        records += 1
        bytes += record.bytes.count
        kinds["\(record.kind)", default: 0] += 1
        switch decoded.packet {
        case .command(let command): hciCommands[Int(command.opcode.rawValue), default: 0] += 1
        case .event(let event):
            hciEvents[Int(event.code.rawValue), default: 0] += 1
            if case .le(let meta) = event { leSubevents[Int(meta.subevent.rawValue), default: 0] += 1 }
        default: break
        }
        if let pdu = decoded.att { attPDUs[Int(pdu.opcode.rawValue), default: 0] += 1 }
        if let smp = decoded.smp { smpCommands[Int(smp.code.rawValue), default: 0] += 1 }
        if decoded.fault != nil { undecodableRecords += 1 }
        if decoded.lostFragments != nil { lostFragments += 1 }
    }
}
