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
///
/// (A finding's sentences, `summary` among them, are the Reports module's: `import BLETrace` or
/// `import Reports` for them.)
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
        var pass = try AnalysisPass(path: path, air: air)
        var collected = Collected()
        pass.run(&collected)
        fault = pass.fault.map { "\($0)" }
        format = pass.format.description
        lifecycle = pass.analysis.lifecycle.report
        errors = pass.analysis.errors.errors
        gatt = collected.gatt.entries.filter { !$0.isEmpty }
        statistics = collected.statistics.statistics(errors: errors, connections: lifecycle.connections.count)
        summary = LifecycleSummary(
            connections: lifecycle.connections, scans: lifecycle.scans, errors: errors,
            strayDisconnections: lifecycle.strayDisconnections.count)
        findings = pass.analysis.findings
    }

    /// What the analysis pass adds to the lifecycles, errors and findings: each peer's databases
    /// and the counts.
    private struct Collected: RecordCollector {
        var gatt = GATTCollector()
        var statistics = TraceStatistics.Counter()

        mutating func add(
            _ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer
        ) {
            gatt.add(record, quick, &analysis)
            statistics.add(record, quick, &analysis)
        }
    }
}
