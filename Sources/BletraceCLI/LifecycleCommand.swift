import ArgumentParser
import BLETrace

/// `bletrace lifecycle FILE`: the story of every connection.
struct LifecycleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lifecycle",
        abstract: "Tell what happened to every connection: attempt, connection, MTU, traffic, who disconnected and why."
    )

    @OptionGroup var capture: CaptureOptions
    @Option(
        help: "text, json, jsonl (the JSON document on one line), or a timeline picture: svg or html (self-contained).")
    var format: LifecycleFormat = .text
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions
    @OptionGroup var gattSource: GATTSourceOptions

    @OptionGroup var selection: SelectionOptions

    func validate() throws {
        if selection.brief, format != .text {
            throw ValidationError("--brief shortens the text; --format \(format.rawValue) has every connection in full")
        }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        if format == .svg || format == .html {
            return try printTimeline(path: path, html: format == .html, air: air, output: output, selection: selection)
        }
        // The findings go only into the text's story.
        let read = try AnalyzedCapture(
            path: path, output: output, air: air, diagnosing: format == .text, given: try gattSource.load(air: air),
            selection: selection.criteria)
        let (analysis, fault) = (read.analysis, read.fault)
        let analyzer = analysis.lifecycle
        let criteria = selection.criteria
        let names = read.pass.names
        let report = read.pass.report
        // (Times from the lifecycles' first, as the story counts them.)
        let errors =
            report.firstTime == nil
            ? analysis.errors.errors : criteria.errors(analysis.errors.errors, names: names, origin: report.firstTime)
        let summary = LifecycleSummary(
            connections: report.connections, scans: report.scans, errors: errors,
            strayDisconnections: report.strayDisconnections.count)
        if format == .json {
            // The connections are written one by one: a long capture has thousands.
            var document = JSONLifecycle(report, summary: summary)
            let connections = document.connections
            document.connections = []
            try Output.prettyJSON(FileNamed(document, file: capture.file), streaming: "connections", connections)
        } else if format == .jsonl {
            try Output.json(FileNamed(JSONLifecycle(report, summary: summary), file: capture.file))
        } else {
            // The findings the story tells with each connection (only the text has them): those of
            // the connections shown.
            let shown = Set(report.connections.map(\.id))
            let findings =
                selection.isEmpty
                ? analysis.findings
                : analysis.findings.filter { finding in
                    guard let connection = finding.connection else { return selection.peer == nil }
                    return shown.contains(connection)
                }
            LifecycleStory(
                report: report, summary: summary, showing: criteria.isEmpty ? nil : criteria.description,
                brief: selection.brief,
                style: TextStyle(color: Style.enabled), findings: findings
            ).write(Output.line)
        }
        try finish(fault)
        _ = selection.warnIfPeerMatchesNothing(analyzer.connections, names: names, path: path)
    }
}

/// The formats of `bletrace lifecycle`: the two of `OutputFormat` it takes, and the picture.
/// (Its own type, so the other commands need not reject svg and html one by one.)
enum LifecycleFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json, jsonl, svg, html
}

/// `bletrace lifecycle FILE --format svg|html`: reads the capture once (lifecycles, errors and
/// traffic together) and prints the timeline picture of the connections and errors `selection`
/// keeps.
func printTimeline(
    path: String, html: Bool, air: AirCaptureOptions, output: OutputOptions, selection: SelectionOptions
) throws {
    var traffic = TrafficHistogram()
    let pass = try readCapture(
        path, output: output, air: air, analysis: CaptureAnalyzer(diagnosing: false), selection: selection.criteria,
        into: &traffic)
    let report = pass.report
    let errors =
        report.firstTime == nil
        ? pass.analysis.errors.errors
        : selection.criteria.errors(pass.analysis.errors.errors, names: pass.names, origin: report.firstTime)
    if html {
        Output.line(timelineHTML(report, errors: errors, traffic: traffic, file: path))
    } else {
        Output.line(timelineSVG(report, errors: errors, traffic: traffic, file: path))
    }
    try finish(pass.fault)
    _ = selection.warnIfPeerMatchesNothing(pass.analysis.lifecycle.connections, names: pass.names, path: path)
}
