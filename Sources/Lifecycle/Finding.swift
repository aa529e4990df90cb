import AndroidCodes
import Wire

/// One conclusion `bletrace diagnose` draws from a capture: what went wrong (or is worth knowing),
/// where, the records that show it, and what to change.
///
/// Every finding comes from a named rule (``DiagnosisRule``, Formats/diagnose.md) applied to what
/// the analysis computed; none is a guess that the capture does not support.
public struct Finding: Hashable, Sendable, Codable {
    /// How serious a finding is: an `error` broke something the app or the accessory relied on (a
    /// link lost, a pairing failed, a request refused); a `warning` is a risk or a cost (parameters
    /// iOS may refuse, a bond not kept, discovery repeated); `info` describes (traffic figures).
    public enum Severity: String, Hashable, Sendable, Codable, CaseIterable, Comparable {
        case error, warning, info

        /// Errors first.
        public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
        var rank: Int {
            switch self {
            case .error: 0
            case .warning: 1
            case .info: 2
            }
        }
    }

    /// The rule's name (kebab-case, ``DiagnosisRule``).
    public var rule: String
    public var severity: Severity
    /// The record the finding is about (0-based; Wireshark's frame is `record + 1`) and its time.
    public var record: Int
    public var time: Timestamp
    /// The connection (``Connection/id``), its handle and peer, where the finding is about one.
    public var connection: Int?
    public var handle: UInt16?
    public var peer: BluetoothAddress?
    /// The name the capture gave the peer (`"Thermometer"`), where it gave one.
    public var peerName: String?
    /// The records that show it, in order (``record`` among them).
    public var evidence: [Int]
    /// What the rule found, as values: the sentences (`summary`, what CoreBluetooth told the app,
    /// what to look at) are written from them by the Reports module.
    public var facts: Facts
    /// What Android's `BluetoothGattCallback` received for the same failure (the connection's or
    /// the error's own view), where the finding is about one.
    public var android: AndroidStatus?
    /// Figures behind the finding, for tools (`latency_ms_median`, `gap_s`…), by name.
    public var values: [String: Double]

    public init(
        rule: DiagnosisRule, record: Int, time: Timestamp, connection: Connection? = nil, evidence: [Int],
        facts: Facts, android: AndroidStatus? = nil, values: [String: Double] = [:]
    ) {
        self.rule = rule.name
        self.severity = rule.severity
        self.record = record
        self.time = time
        self.connection = connection?.id
        self.handle = connection?.handle
        self.peer = connection?.peer
        self.peerName = connection?.peerName
        // Sorted, each record once (a few records: no set needed).
        var records = evidence
        records.append(record)
        records.sort()
        var unique: [Int] = []
        unique.reserveCapacity(records.count)
        for record in records where unique.last != record { unique.append(record) }
        self.evidence = unique
        self.facts = facts
        self.android = android
        self.values = values
    }

    /// Most serious first; then in capture order.
    public static func ordered(_ a: Finding, _ b: Finding) -> Bool {
        if a.severity != b.severity { return a.severity < b.severity }
        if a.record != b.record { return a.record < b.record }
        return a.rule < b.rule
    }

    /// `findings` in ``ordered(_:_:)``'s order, equal ones as they were (what
    /// `findings.sorted(by: Finding.ordered)` gives); `findings` itself when already so.
    public static func inOrder(_ findings: [Finding]) -> [Finding] {
        // The positions sorted by their keys, not the findings: a sort moves each finding, its
        // strings and arrays retained, at every step, and comparing two findings read from the
        // array copied both. (The same comparisons: severity, record, then the rule's name.)
        let keys = findings.map { (rank: $0.severity.rank, record: $0.record) }
        func before(_ a: Int, _ b: Int) -> Bool {
            keys[a] != keys[b] ? keys[a] < keys[b] : findings[a].rule < findings[b].rule
        }
        if findings.indices.dropFirst().allSatisfy({ !before($0, $0 - 1) }) { return findings }
        return findings.indices.sorted(by: before).map { findings[$0] }
    }
}

extension Finding.Severity {
    /// Whether a finding of this severity is at least as serious as `minimum`: `.warning` is at
    /// least `.warning` and at least `.info`, not at least `.error`.
    public func isAtLeast(_ minimum: Self) -> Bool { self <= minimum }
}

extension Sequence<Finding> {
    /// The findings at least as serious as `minimum`, in their order (`bletrace diagnose
    /// --min-severity`).
    package func atLeast(_ minimum: Finding.Severity) -> [Finding] { filter { $0.severity.isAtLeast(minimum) } }
}
