import ArgumentParser
import BLETrace

/// `bletrace diagnose FILE`: why each connection ended and what to change, most serious first,
/// each finding with its rule, frame, connection, evidence and CoreBluetooth's view
/// (Formats/diagnose.md).
struct Diagnose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diagnose",
        abstract:
            "Say why each connection ended and what the app or accessory should change: findings, most serious first, with their evidence.",
        discussion:
            "Each finding comes from a rule described in Formats/diagnose.md: how links ended (supervision timeout, LL Response Timeout, 0x3E, ATT timeout, a lost bond, MIC failure, unacceptable parameters, the host giving up after a refusal, the peer hanging up right after a procedure), connects that never came (timed out, to a peer not heard, while another was under way), security (pairing unfinished or failed, refusals never retried, short keys, bonds not kept), GATT (requests outside the database, rediscovery, discovery on every connection, a bonded peer's database changed with no Service Changed, notifications not restored, refused writes and subscriptions, values too long), scans filtered on a service the peer never advertises, connection parameters against Apple's Accessory Design Guidelines, and traffic figures. First, when the capture cannot tell the whole story (ACL cut short, started inside a connection, encrypted without its key, one side only), it says so, with how to record one that can."
    )

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (one finding per line).") var format: OutputFormat = .text
    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 when a finding is at least this serious: error, or warning (warnings and errors).",
            discussion: "For CI: bletrace diagnose trace.btsnoop --fail-on error. Without it, findings exit 0."))
    var failOn: FailOn?
    @Option(
        name: .customLong("min-severity"),
        help: ArgumentHelp(
            "List only findings at least this serious: error, warning (warnings and errors), or info (all, the default).",
            discussion: "The counts and --fail-on are those of the findings listed."))
    var minSeverity: Finding.Severity = .info
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions

    enum FailOn: String, ExpressibleByArgument, CaseIterable { case error, warning }

    func validate() throws {
        if let failOn, let severity = Finding.Severity(rawValue: failOn.rawValue), !severity.isAtLeast(minSeverity) {
            throw ValidationError(
                "--fail-on \(failOn.rawValue) judges \(failOn.rawValue)s, which --min-severity \(minSeverity.rawValue) leaves out."
            )
        }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        let read = try AnalyzedCapture(
            path: path, output: output, air: air, diagnosing: true, selection: selection.criteria)
        let (origin, fault) = (read.origin, read.fault)

        let names = read.pass.names
        let findings = read.pass.findings.atLeast(minSeverity)
        switch format {
        case .json:
            try Output.prettyJSON(
                WithSecrets(
                    FileNamed(JSONFindings(findings, all: []), file: capture.file),
                    read.secrets ?? SecretsReport(RedactionTally()),
                    fitness: FitnessList(read.fitness)),
                streaming: "findings", findings.map(JSONFinding.init))
        case .jsonl:
            for finding in findings {
                var line = JSONFinding(finding)
                line.version = jsonVersion
                try Output.json(line)
            }
        case .text:
            // What the capture cannot say comes first.
            FitnessList(read.fitness).write(Output.line)
            FindingList(
                findings: findings, origin: origin, names: names, brief: selection.brief,
                style: TextStyle(color: Style.enabled)
            )
            .write(Output.line)
            if let advice = read.secrets?.advice { Output.line("Secrets: the capture \(advice).") }
        }
        try finish(fault)
        let failing =
            switch failOn {
            case .error: findings.contains { $0.severity == .error }
            case .warning: findings.contains { $0.severity <= .warning }
            case nil: false
            }
        if failing { throw Exit.finding }
    }
}

extension Finding.Severity: ExpressibleByArgument {}
