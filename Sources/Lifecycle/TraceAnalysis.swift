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
        var statistics = TraceStatistics.Counter()
        var diagnosis = DiagnosisCollector()
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                errors.add(record, decoded, analyzer: analyzer)
                gatt.add(record, decoded, analyzer: analyzer)
                diagnosis.add(record, decoded, analyzer: &analyzer)
                statistics.count(record, nil, decoded)
            }
        } catch {
            fault = "\(error)"
        }
        format = reader.format.description
        analyzer.attach(reader.airCapture)
        lifecycle = analyzer.report
        self.errors = errors.errors
        self.gatt = gatt.entries.filter { !$0.isEmpty }
        self.statistics = statistics.statistics(errors: self.errors, connections: lifecycle.connections.count)
        summary = LifecycleSummary(
            connections: lifecycle.connections, scans: lifecycle.scans, errors: self.errors,
            strayDisconnections: lifecycle.strayDisconnections.count)
        findings = diagnosis.findings(report: lifecycle, errors: self.errors)
    }
}
