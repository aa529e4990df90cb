import Flow
import Wire

extension FaultSweep {
    /// The failures shown in full in the text report; `--format json` lists every one.
    public static let failuresShown = 20

    /// The report for people: one line per fault (its points, how many fail, the first
    /// failure), then each failure, most serious first, with the `--inject` that replays it
    /// alone (`reproduce` gives the command for a fault) and where its flow parts from the run
    /// without a fault.
    public func text(capture: String, app: String, reproduce: ([Fault]) -> String) -> String {
        let failing = failures
        var lines = [
            "fault sweep of \(app) on \(capture): \(Wording.count(runs.count, "fault"))"
                + (replayed == runs.count
                    ? "" : " (\(replayed) replayed; the others' app state is that of the point before them)")
                + ", \(failing.count) \(failing.count == 1 ? "fails" : "fail")",
            "without a fault the app ends " + KillPointSweep.describe(reference),
        ]
        if !referenceFailures.isEmpty {
            lines.append("without a fault the app already breaks (not counted against a fault):")
            for failure in referenceFailures { lines.append("  \(failure)") }
        }
        lines.append("")
        var kinds: [(name: String, runs: [Run])] = []
        for run in runs {
            if kinds.last?.name == run.kindText {
                kinds[kinds.count - 1].runs.append(run)
            } else {
                kinds.append((run.kindText, [run]))
            }
        }
        let width = max(5, kinds.map(\.name.count).max() ?? 0)
        func pad(_ text: String, _ count: Int) -> String {
            text + String(repeating: " ", count: max(0, count - text.count))
        }
        lines.append(pad("fault", width) + "  points  fail  first failure")
        for (name, ofKind) in kinds {
            let failed = ofKind.filter { !$0.survived }
            let first = failed.min { ($0.worst!, $0.seconds) < ($1.worst!, $1.seconds) }
            lines.append(
                pad(name, width) + "  " + pad("\(ofKind.count)", 6) + "  " + pad("\(failed.count)", 4) + "  "
                    + (first.map { "\($0.fault.pointText) \($0.worst!.rawValue)" } ?? "-"))
        }
        let swept = Set(runs.map(\.family))
        let empty = families.filter { !swept.contains($0) }
        if !empty.isEmpty {
            lines.append(
                "no point for: " + empty.map { "\($0.rawValue) (\(Self.noPoint($0)))" }.joined(separator: "; "))
        }
        lines.append("")
        guard !failing.isEmpty else {
            lines.append("the app survives every fault")
            return lines.joined(separator: "\n")
        }
        lines.append("\(Wording.count(failing.count, "failure")), most serious first:")
        for (number, run) in failing.prefix(Self.failuresShown).enumerated() {
            lines.append("")
            lines.append(
                "\(number + 1). \(run.name) (\(run.failures.map(\.invariant.rawValue).joined(separator: ", ")))")
            lines.append("   at `\(run.after)` (\(Wording.sinceStart(seconds: run.seconds)))")
            for failure in run.failures { lines.append("   \(failure.message)") }
            if let same = run.sameAs { lines.append("   (not replayed: the app state is that of \(same))") }
            lines.append("   reproduce: " + reproduce(run.faults))
            if let divergence = run.divergence {
                lines.append("   first divergence, at event \(divergence.event) of the run without the fault:")
                for line in divergence.lines { lines.append("     " + line) }
            }
        }
        if failing.count > Self.failuresShown {
            lines.append("")
            lines.append("and \(failing.count - Self.failuresShown) more (--format json lists every one)")
        }
        return lines.joined(separator: "\n")
    }

    /// Why a family has no point in a run.
    static func noPoint(_ family: Family) -> String {
        switch family {
        case .linkLoss, .serviceChanged: "no link is up"
        case .attError, .timeout, .pairing: "the app makes no GATT request"
        case .notifications: "no notification, no subscription"
        case .bondLost: "the capture never shows a link encrypted, or the app never connects"
        case .reset, .power: "the flow has no event"
        case .reconnectLoss: "the app never connects again after a link loss"
        }
    }
}
