import ATT
import HCI
import TraceFiles
import Wire

/// What a capture holds, counted: records by kind, HCI commands, events and LE subevents, ATT PDUs
/// and SMP commands by code, errors by layer and code, connections, and the records that did not
/// decode. Its JSON is the document of `bletrace stats --format json` (Formats/json.md), without
/// the `file` and `version` the command adds.
///
/// ``Counter`` counts a capture record by record; ``TraceAnalysis/statistics`` is one.
public struct TraceStatistics: Hashable, Sendable, Codable {
    /// How many records had one code, with the code's name.
    public struct Count: Hashable, Sendable, Codable {
        public var code: Int
        public var name: String
        public var count: Int

        public init(code: Int, name: String, count: Int) {
            (self.code, self.name, self.count) = (code, name, count)
        }
    }

    /// How many errors had one code of one layer, and how many of those were expected.
    public struct ErrorCount: Hashable, Sendable, Codable {
        /// `att`, `hci` or `smp` (``TraceError/Layer``).
        public var layer: String
        public var code: Int
        public var name: String
        public var count: Int
        public var expected: Int
    }

    public var records = 0
    /// The bytes of the records' packets.
    public var bytes = 0
    /// Records per kind (`command`, `event`, `acl`, `sco`, `iso`, `other`), the kinds seen only.
    public var kinds: [String: Int] = [:]
    /// Each list in order of code, the codes seen only.
    public var hciCommands: [Count] = []
    public var hciEvents: [Count] = []
    public var leSubevents: [Count] = []
    public var attPDUs: [Count] = []
    public var smpCommands: [Count] = []
    /// In order of layer, then code.
    public var errors: [ErrorCount] = []
    /// Connections and attempts, as the lifecycle counts them.
    public var connections = 0
    /// Records with a layer that did not decode, and records that revealed lost ACL fragments.
    public var undecodableRecords = 0
    public var lostFragments = 0

    enum CodingKeys: String, CodingKey {
        case records, bytes, kinds, hciCommands = "hci_commands", hciEvents = "hci_events", leSubevents = "le_subevents"
        case attPDUs = "att_pdus", smpCommands = "smp_commands", errors, connections
        case undecodableRecords = "undecodable_records", lostFragments = "lost_fragments"
    }

    public init() {}
}

extension TraceStatistics {
    /// Counts records into fixed tables: nothing is allocated per record (`bletrace stats` reads
    /// a capture at the speed of its ``CaptureAnalyzer``).
    ///
    /// ```swift
    /// var pass = try AnalysisPass(path: "btsnoop_hci.log", analysis: CaptureAnalyzer(diagnosing: false))
    /// var counter = TraceStatistics.Counter()
    /// pass.run(&counter)
    /// let statistics = counter.statistics(errors: pass.errors, connections: pass.report.connections.count)
    /// ```
    public struct Counter {
        // (Inlinable, with its tables: `count` is called once a record, from another module.)
        @usableFromInline var records = 0
        @usableFromInline var bytes = 0
        @usableFromInline let kinds = Tally()
        @usableFromInline var commands: [UInt16: Int] = [:]
        @usableFromInline let events = Tally()
        @usableFromInline let subevents = Tally()
        @usableFromInline let att = Tally()
        @usableFromInline let smp = Tally()
        @usableFromInline var faults = 0
        @usableFromInline var lostFragments = 0

        public init() {}

        /// Counts `record`: from `quick`, its quick form, when it has one (``CaptureAnalyzer/add(_:)``);
        /// from `decoded`, its full decoding, when `quick` is nil.
        @inlinable @inline(__always)
        public mutating func count(_ record: CaptureRecord, _ quick: QuickRecord?, _ decoded: borrowing DecodedRecord) {
            records += 1
            bytes += record.bytes.count
            kinds[Int(record.kind.rawValue)] += 1
            if let quick {
                switch quick {
                case .att(_, let opcode, _, _): att[Int(opcode.rawValue)] += 1
                case .event(let code): events[Int(code.rawValue)] += 1
                case .fragment: break
                }
                return
            }
            // (Each layer read where it is, not the whole decoded record copied.)
            switch decoded.packet {
            case .command(let command): commands[command.opcode.rawValue, default: 0] += 1
            case .event(let event):
                events[Int(event.code.rawValue)] += 1
                if case .le(let meta) = event { subevents[Int(meta.subevent.rawValue)] += 1 }
            default: break
            }
            if let pdu = decoded.att { att[Int(pdu.opcode.rawValue)] += 1 }
            if let command = decoded.smp { smp[Int(command.code.rawValue)] += 1 }
            if decoded.fault != nil { faults += 1 }
            if decoded.lostFragments != nil { lostFragments += 1 }
        }

        /// The counts so far, with `errors` counted by layer and code and `connections` (which
        /// the caller may have narrowed, as `stats --peer` does).
        public func statistics(errors: [TraceError], connections: Int) -> TraceStatistics {
            var statistics = TraceStatistics()
            statistics.records = records
            statistics.bytes = bytes
            statistics.kinds = Dictionary(
                uniqueKeysWithValues: PacketKind.allCases.filter { kinds[Int($0.rawValue)] > 0 }.map {
                    ("\($0)", kinds[Int($0.rawValue)])
                })
            statistics.hciCommands = commands.sorted { $0.key < $1.key }.map {
                Count(code: Int($0.key), name: HCIOpcode(rawValue: $0.key).description, count: $0.value)
            }
            statistics.hciEvents = Self.counts(events) { HCIEventCode(rawValue: UInt8($0)).description }
            statistics.leSubevents = Self.counts(subevents) { LESubeventCode(rawValue: UInt8($0)).description }
            statistics.attPDUs = Self.counts(att) { ATTOpcode(rawValue: UInt8($0)).description }
            statistics.smpCommands = Self.counts(smp) { SMPCode(rawValue: UInt8($0)).description }
            var rows: [String: ErrorCount] = [:]
            for error in errors {
                let key = "\(error.layer.rawValue) \(error.code)"
                var row =
                    rows[key]
                    ?? ErrorCount(
                        layer: error.layer.rawValue, code: Int(error.code), name: error.name, count: 0, expected: 0)
                row.count += 1
                if error.expected { row.expected += 1 }
                rows[key] = row
            }
            statistics.errors = rows.values.sorted { ($0.layer, $0.code) < ($1.layer, $1.code) }
            statistics.connections = connections
            statistics.undecodableRecords = faults
            statistics.lostFragments = lostFragments
            return statistics
        }

        private static func counts(_ table: Tally, name: (Int) -> String) -> [Count] {
            (0..<256).filter { table[$0] > 0 }.map { Count(code: $0, name: name($0), count: table[$0]) }
        }
    }
}

/// A count per 8-bit code, in one fixed block: counting is an add, with no copy-on-write check
/// (the counts are counted once a record, several times).
@usableFromInline
final class Tally {
    @usableFromInline let counts = UnsafeMutablePointer<Int>.allocate(capacity: 256)

    init() { counts.initialize(repeating: 0, count: 256) }
    deinit { counts.deallocate() }

    @inlinable subscript(code: Int) -> Int {
        get { counts[code & 0xFF] }
        set { counts[code & 0xFF] = newValue }
    }
}

extension TraceStatistics.Counter: RecordCollector {
    /// Counts `record` as the pass that has just analysed it decoded it.
    @inlinable
    public mutating func add(
        _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
    ) {
        count(record, quick, analysis.decoded)
    }
}
