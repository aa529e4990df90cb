import ArgumentParser
import BLETrace

/// `bletrace errors FILE`: every ATT error, HCI failure and SMP failure, with its CoreBluetooth
/// equivalent, then a summary by code.
struct Errors: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors",
        abstract: "List every ATT error, HCI failure and SMP failure with what CoreBluetooth would have reported.",
        discussion:
            "An Attribute Not Found that ends a discovery, and status 0x02 ending a cancelled attempt, are normal: they are marked expected and left out of the text unless --all is given."
    )

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (one error per line).") var format: OutputFormat = .text
    @Flag(help: "Also list the expected ones (discovery ends, cancelled attempts).") var all = false
    @Option(
        name: .customLong("fail-on"),
        help: ArgumentHelp(
            "Exit 1 when the capture has errors: unexpected ones, or any.",
            discussion:
                "For CI: bletrace errors trace.btsnoop --fail-on unexpected. Without it, finding errors exits 0."))
    var failOn: FailOn?
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions

    enum FailOn: String, ExpressibleByArgument, CaseIterable { case unexpected, any }

    func validate() throws {
        // JSON lists every error with "expected": what --brief chooses is the text's (--all too,
        // which asks for what JSON has anyway: a note in run()).
        if format != .text, selection.brief {
            throw ValidationError("--brief shortens the text; --format \(format.rawValue) has every field")
        }
    }

    func run() throws {
        if format != .text, all {
            Output.error(
                "note: --all chooses what the text shows; --format \(format.rawValue) lists every error anyway, each with \"expected\""
            )
        }
        try output.apply(input: capture.file)
        let path = try capture.path
        // The errors are written at the end: the progress line may show on the output's terminal.
        let read = try AnalyzedCapture(
            path: path, output: output, air: air, diagnosing: false, selection: selection.criteria)
        let (analysis, origin, fault) = (read.analysis, read.origin, read.fault)
        let analyzer = analysis.lifecycle
        let names = read.pass.names
        let errors = read.pass.errors
        switch format {
        case .json:
            // The errors are written one by one: a long capture has thousands.
            try Output.prettyJSON(
                FileNamed(JSONErrors(errors, all: []), file: capture.file), streaming: "errors",
                errors.map(JSONError.init))
        case .jsonl:
            for error in errors {
                var line = JSONError(error)
                line.version = jsonVersion
                try Output.json(line)
            }
        case .text:
            ErrorTable(
                errors: errors, origin: origin, names: names, all: all, brief: selection.brief,
                style: TextStyle(color: Style.enabled)
            ).write(Output.line)
        }
        try finish(fault)
        // A --peer that names nobody is a warning, and under --fail-on a failure: a typo must not
        // pass CI as "no errors".
        let nobody = selection.warnIfPeerMatchesNothing(analyzer.connections, names: names, path: path)
        let failing =
            switch failOn {
            case .any: !errors.isEmpty
            case .unexpected: errors.contains { !$0.expected }
            case nil: false
            }
        if failing || nobody && failOn != nil { throw Exit.finding }
    }
}
