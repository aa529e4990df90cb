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
        let reader = try openCapture(path)
        var progress = output.progress(for: path, streamsOutput: false)
        var analysis = CaptureAnalyzer(diagnosing: false)
        var counter = TraceStatistics.Counter()
        let criteria = selection.criteria
        var origin: Timestamp?
        var fault: (any Error)?
        do {
            if let filter = RecordFilter(criteria) {
                // Only the records the selection keeps are counted (as decode would show them),
                // each decoded in full for the test; the analysis still sees every record.
                var decoder = TraceDecoder()
                try reader.forEach { record in
                    progress?.advance(record)
                    let quick = analysis.add(record)
                    if origin == nil { origin = record.timestamp }
                    let context = RecordFilter.Context(analyzer: analysis.lifecycle, origin: origin!)
                    let decoded = decoder.decode(record)
                    if filter.matches(record, decoded, context) { counter.count(record, quick, analysis.decoded) }
                }
            } else {
                try reader.forEach { record in
                    progress?.advance(record)
                    counter.count(record, analysis.add(record), analysis.decoded)
                }
            }
        } catch { fault = error }
        progress?.finish()
        // With a selection, the connections and errors are those it keeps (from the first
        // record's time).
        let report = analysis.lifecycle.report
        let errors = criteria.errors(analysis.errors.errors, names: analysis.lifecycle.scanning.names, origin: origin)
        let connections = origin.map { criteria.connections(of: report, origin: $0) } ?? report.connections
        let statistics = counter.statistics(errors: errors, connections: connections.count)
        if format != .text {
            try Output.json(FileNamed(JSONStatistics(statistics), file: capture.file), pretty: format == .json)
        } else {
            StatisticsTable(
                statistics, file: capture.file, format: reader.format, style: TextStyle(color: Style.enabled)
            ).write(Output.line)
        }
        try finish(fault)
        _ = selection.warnIfPeerMatchesNothing(
            analysis.lifecycle.connections, names: analysis.lifecycle.scanning.names, path: capture.file)
    }
}
