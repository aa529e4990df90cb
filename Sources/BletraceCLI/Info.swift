import ArgumentParser
import BLETrace

/// `bletrace info FILE`: what a capture is, how many records it holds, and the time it spans.
struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Say what a capture is: format, datalink, record count, time span.")

    @OptionGroup var capture: CaptureOptions
    @Option(help: "text, json, or jsonl (the JSON document on one line).") var format: OutputFormat = .text
    @OptionGroup var output: OutputOptions

    func run() throws {
        try output.apply(input: capture.file)
        let path = try capture.path
        let reader = try openCapture(path, linkLayer: true)
        // An over-the-air capture's records are counted by what the link-layer decoder makes of them.
        var info = CaptureInfo(file: capture.file, reading: reader)
        if let container = try ContainerInputs.open(try CaptureOptions.standardInputPath(of: capture.file)) {
            info.container = ContainerListing(container, reading: path)
        }
        if format != .text {
            try Output.json(info, pretty: format == .json)
        } else {
            // With colour, each label is bold.
            info.write { line in Output.line(Style.boldLabel(line)) }
        }
        try finish(info.fault)
    }
}

/// Opens a capture, turning "cannot open" into exit code 2 with the reason. `linkLayer`: the
/// command reads over-the-air captures too (`info`, `decode`); the others refuse them by name.
func openCapture(_ path: String, linkLayer: Bool = false) throws -> CaptureReader {
    do {
        return try CaptureReader(path: path, linkLayer: linkLayer)
    } catch {
        Output.error("\(error)")
        throw Exit.badInput
    }
}

/// Flushes output, then reports a fault met after some records were shown (exit code 1).
func finish(_ fault: (any Error)?) throws {
    Output.flush()
    if let fault {
        Output.error("\(fault)")
        throw Exit.finding
    }
}
