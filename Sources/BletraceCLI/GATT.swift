import ArgumentParser
import BLETrace

/// `bletrace gatt FILE`: each peer's GATT database, rebuilt from the capture's discovery.
struct GATT: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "gatt",
        abstract:
            "Rebuild each peer's GATT database from the discovery in the capture: services, characteristics with properties, descriptors, last values."
    )

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var selection: SelectionOptions
    @OptionGroup var output: OutputOptions
    @OptionGroup var air: AirCaptureOptions
    @OptionGroup var gattSource: GATTSourceOptions

    func validate() throws {
        if selection.brief {
            throw ValidationError("--brief: gatt has no shorter form (its peers' databases are the listing)")
        }
    }

    func run() throws {
        try output.apply(input: capture.file)
        let given = try gattSource.load(air: air)
        var collector = GATTCollector()
        let pass = try readCapture(
            try capture.path, output: output, air: air, analysis: CaptureAnalyzer(diagnosing: false, given: given),
            selection: selection.criteria, into: &collector)
        // A peer the capture never discovered: the database --gatt gives it.
        var all = collector.entries
        var givenPeers: Set<Int> = []
        if let given {
            for index in all.indices where all[index].database.services.isEmpty {
                guard let database = given.database(for: all[index].peer) else { continue }
                all[index].database = database
                givenPeers.insert(all[index].connections[0])
            }
        }
        // The selection keeps the peers with a connection it selects (each peer's database is
        // what all its connections showed).
        let entries = pass.gatt(all)
        var listing = GATTListing(entries)
        if let given { listing.given = (given.name, givenPeers) }
        if format != .text {
            try Output.json(
                FileNamed(JSONGATT(listing.entries, given: listing.given), file: capture.file), pretty: format == .json)
        } else if entries.isEmpty, !selection.isEmpty, !collector.entries.isEmpty {
            Output.line(
                "no GATT discovery on the connections selected (\(Wording.count(collector.entries.count, "peer")) without the selection)"
            )
        } else {
            // With colour, each peer's heading is bold.
            listing.write { line in Output.line(line.hasPrefix("peer ") ? Style.bold(line) : line) }
        }
        try finish(pass.fault)
        _ = selection.warnIfPeerMatchesNothing(
            pass.analysis.lifecycle.connections, names: pass.names, path: capture.file)
    }
}
