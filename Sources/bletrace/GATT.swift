import ArgumentParser
import BLETrace

/// `bletrace gatt FILE`: each peer's GATT database, rebuilt from the capture's discovery.
struct GATT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract: "Rebuild each peer's GATT database from the discovery in the capture: services, characteristics with properties, descriptors, last values.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var output: OutputOptions

    func run() throws {
        try output.apply(input: capture.file)
        let reader = try openCapture(try capture.path)
        var decoder = TraceDecoder()
        var analyzer = LifecycleAnalyzer()
        var collector = GATTCollector()
        var fault: (any Error)?
        do {
            while let record = try reader.next() {
                let decoded = decoder.decode(record)
                analyzer.add(record, decoded)
                collector.add(record, decoded, analyzer: analyzer)
            }
        } catch { fault = error }
        let listing = GATTListing(collector.entries)
        if format != .text {
            try Output.json(FileNamed(JSONGATT(listing.entries), file: capture.file), pretty: format == .json)
        } else {
            // With colour, each peer's heading is bold.
            listing.write { line in Output.line(line.hasPrefix("peer ") ? Style.bold(line) : line) }
        }
        try finish(fault)
    }
}
