import ArgumentParser
import BLETrace

/// `bletrace stats FILE`: decode every layer of every record and count what is there.
struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract:
            "Decode every layer of every record and count: records by kind, HCI commands and events, ATT PDUs, errors.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if selection.brief { throw ValidationError("--brief: stats has no shorter form (it is the counts)") }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        // (An over-the-air capture is refused: its records are the sniffer's, not HCI's to count.)
        let reader = try openAnalysis(path, linkLayer: false)
        // With a selection, every record is decoded whole for the filter's test.
        let filter = RecordFilter(selection.criteria)
        var counting = Counting(filter: filter)
        let pass = readCapture(
            reader, output: output, analysis: CaptureAnalyzer(diagnosing: false, wholeRecords: filter != nil),
            selection: selection.criteria, into: &counting)
        // With a selection, the connections and errors are those it keeps (from the first
        // record's time).
        let report = pass.analysis.lifecycle.report
        let connections =
            pass.origin.map { selection.criteria.connections(of: report, origin: $0) } ?? report.connections
        let statistics = counting.counter.statistics(errors: pass.errors, connections: connections.count)
        if format != .text {
            try Output.json(FileNamed(JSONStatistics(statistics), file: capture.file), pretty: format == .json)
        } else {
            StatisticsTable(
                statistics, file: capture.file, format: reader.format, style: TextStyle(color: Style.enabled)
            ).write(Output.line)
        }
        try finish(pass.fault)
        _ = selection.warnIfPeerMatchesNothing(report.connections, names: pass.names, path: capture.file)
    }
}

/// What `stats` counts: every record, or with a selection only those it keeps (as `decode` would
/// show them; the analysis still sees every record).
private struct Counting: RecordCollector {
    var counter = TraceStatistics.Counter()
    let filter: RecordFilter?

    init(filter: RecordFilter?) { self.filter = filter }

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        guard let filter else { return counter.count(record, quick, analysis.decoded) }
        let context = RecordFilter.Context(analyzer: analysis.lifecycle, origin: analysis.origin!)
        if filter.matches(record, analysis.decoded, context) { counter.count(record, quick, analysis.decoded) }
    }
}
