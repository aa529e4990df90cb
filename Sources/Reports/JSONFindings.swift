import AndroidCodes
import Lifecycle

/// The JSON document of `bletrace diagnose --format json` (its contract: Formats/json.md): the
/// findings, most serious first, and their counts by severity.
package struct JSONFindings: Encodable {
    var version = jsonVersion
    /// Findings per severity: `error`, `warning`, `info` (each present, 0 when none).
    var counts: [String: Int]
    var findings: [JSONFinding]

    /// The counts of `findings`, with `all` as the list (empty when a writer streams the list in
    /// its place).
    package init(_ findings: [Finding], all: [JSONFinding]) {
        counts = Dictionary(
            uniqueKeysWithValues: Finding.Severity.allCases.map { severity in
                (severity.rawValue, findings.count { $0.severity == severity })
            })
        self.findings = all
    }
}

/// One finding of `bletrace diagnose --format json` and one line of `--format jsonl`.
package struct JSONFinding: Encodable {
    /// On each line of `--format jsonl` only: in `--format json` the document carries it.
    package var version: Int?
    var rule: String
    var severity: String
    /// Wireshark's frame number (1-based) and the record's index (0-based).
    var frame: Int
    var index: Int
    var ts_us: Int64
    /// The connection's `id` in `bletrace lifecycle --format json` (1-based), its handle and peer.
    var connection: Int?
    var handle: UInt16?
    var peer: String?
    /// Frame numbers.
    var evidence_frames: [Int]
    var summary: String
    /// Always present: `null` where no app callback is involved.
    var coreBluetooth: NullOr<String>
    /// Always present: what Android's callback received, `null` where the finding concerns no
    /// failure an Android app is told of.
    var android: NullOr<AndroidJSON>
    var look_at: String
    /// Figures behind the finding, by name (units in the name).
    var values: [String: Double]?

    /// The JSON form of `finding`, without a version.
    package init(_ finding: Finding) {
        rule = finding.rule
        severity = finding.severity.rawValue
        frame = finding.record + 1
        index = finding.record
        ts_us = finding.time.microseconds
        connection = finding.connection.map { $0 + 1 }
        handle = finding.handle
        peer = finding.peer.map { "\($0)" }
        evidence_frames = finding.evidence.map { $0 + 1 }
        let words = finding.words
        summary = words.summary
        coreBluetooth = NullOr(words.coreBluetooth)
        android = NullOr(finding.android.map(AndroidJSON.init))
        look_at = words.lookAt
        values =
            finding.values.isEmpty
            ? nil : Dictionary(uniqueKeysWithValues: finding.values.map { ($0, ReportJSON.rounded($1, unitOf: $0)) })
    }
}
