import AndroidCodes
import Lifecycle
import Wire

/// The findings of a capture for people (`bletrace diagnose`): most serious first, each with its
/// severity, rule, time, frame and connection, its sentence, what CoreBluetooth told the app,
/// what to look at and the frames that show it; then the counts by severity.
///
/// ```swift
/// let analysis = try TraceAnalysis(path: "btsnoop_hci.log")
/// print(FindingList(findings: analysis.findings, origin: analysis.lifecycle.firstTime).text)
/// ```
public struct FindingList {
    /// The findings, most serious first (``Finding/ordered(_:_:)``).
    public var findings: [Finding]
    /// The first record's time, from which times are counted.
    public var origin: Timestamp?
    /// The names peers advertised, shown beside their addresses.
    public var names: [BluetoothAddress: String]
    /// A line per finding (severity, frame, rule, sentence) instead of the whole entry.
    public var brief: Bool
    /// Colour for a terminal, or plain text.
    public var style: TextStyle

    public init(
        findings: [Finding], origin: Timestamp?, names: [BluetoothAddress: String] = [:], brief: Bool = false,
        style: TextStyle = .plain
    ) {
        self.findings = Finding.inOrder(findings)
        self.origin = origin
        self.names = names
        self.brief = brief
        self.style = style
    }

    /// The findings of a whole capture read with `TraceAnalysis(path:)`.
    public init(_ analysis: TraceAnalysis, style: TextStyle = .plain) {
        self.init(findings: analysis.findings, origin: analysis.lifecycle.firstTime, style: style)
    }

    /// The whole list, each line ended by a line feed.
    public var text: String {
        var text = ""
        write { text += $0 + "\n" }
        return text
    }

    /// `2 errors, 1 warning, 3 info`, or `none`.
    public static func counts(_ findings: [Finding]) -> String {
        guard !findings.isEmpty else { return "none" }
        // One pass, reading each finding's severity in place (a loop over the findings copies
        // each, its strings and arrays retained).
        var tally: [Finding.Severity: Int] = [:]
        for index in findings.indices { tally[findings[index].severity, default: 0] += 1 }
        return Finding.Severity.allCases.map { severity in
            let count = tally[severity] ?? 0
            return severity == .info ? "\(count) info" : Wording.count(count, severity.rawValue)
        }.joined(separator: ", ")
    }

    /// Writes the list, a line at a time (without line ends), to `emit`.
    public func write(_ emit: (String) -> Void) {
        if findings.isEmpty { emit("no findings") }
        for (index, finding) in findings.enumerated() {
            var head = finding.severity.rawValue.rightPadded(8)
            head += Wording.sinceStart(finding.time, origin: origin ?? finding.time) + "  frame \(finding.record + 1)"
            if let connection = finding.connection {
                head += "  connection \(connection + 1)"
                var about: [String] = []
                if let handle = finding.handle { about.append("handle \(hex(handle, digits: 4))") }
                if let peer = finding.peer { about.append("\(peer)" + (names[peer].map { " \"\($0)\"" } ?? "")) }
                if !about.isEmpty { head += " (" + about.joined(separator: ", ") + ")" }
            }
            head += "  " + finding.rule
            let color: (String) -> String =
                switch finding.severity {
                case .error: style.red
                case .warning: style.yellow
                case .info: { $0 }
                }
            // The three sentences are written together: each alone would write all three.
            let words = finding.words
            if brief {
                emit(color(head) + "  " + words.summary)
                continue
            }
            if index > 0 { emit("") }
            emit(color(head))
            emit("  " + words.summary)
            if let cb = words.coreBluetooth { emit("  CoreBluetooth: " + cb) }
            if let android = finding.android { emit("  Android: \(android)") }
            emit("  look at: " + words.lookAt)
            emit(
                style.dim(
                    "  evidence: \(Wording.noun("frame", count: finding.evidence.count)) "
                        + finding.evidence.map { String($0 + 1) }.joined(separator: ", ")))
        }
        emit("")
        emit(
            "summary: \(Wording.count(findings.count, "finding"))"
                + (findings.isEmpty ? "" : ": " + Self.counts(findings)))
        var byRule: [String: (Finding.Severity, Int)] = [:]
        for index in findings.indices { byRule[findings[index].rule, default: (findings[index].severity, 0)].1 += 1 }
        for (rule, entry) in byRule.sorted(by: {
            $0.value.0 != $1.value.0
                ? $0.value.0 < $1.value.0 : $0.value.1 != $1.value.1 ? $0.value.1 > $1.value.1 : $0.key < $1.key
        }) {
            emit("  \(String(entry.1).leftPadded(6))  \(entry.0.rawValue.rightPadded(8))\(rule)")
        }
    }
}
