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
        var counting = Counting(filter: RecordFilter(selection.criteria))
        let pass = readCapture(
            reader, output: output, analysis: CaptureAnalyzer(diagnosing: false), selection: selection.criteria,
            into: &counting)
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
/// show them: each decoded in full for the test; the analysis still sees every record).
private struct Counting: RecordCollector {
    var counter = TraceStatistics.Counter()
    let filter: RecordFilter?
    var decoder = TraceDecoder()
    var origin: Timestamp?

    init(filter: RecordFilter?) { self.filter = filter }

    mutating func add(_ record: borrowing CaptureRecord, _ quick: QuickRecord?, _ analysis: inout CaptureAnalyzer) {
        guard let filter else { return counter.count(record, quick, analysis.decoded) }
        if origin == nil { origin = record.timestamp }
        let context = RecordFilter.Context(analyzer: analysis.lifecycle, origin: origin!)
        let decoded = decoder.decode(record)
        if filter.matches(record, decoded, context) { counter.count(record, quick, analysis.decoded) }
    }
}
