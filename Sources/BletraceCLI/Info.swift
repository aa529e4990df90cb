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
        // The secrets it holds, counted as `redact` finds them, in the same pass.
        let secrets = SecretScanner(airLinkType: reader.format.linkLayerType)
        // Whether the capture can answer at all, in the same pass too.
        var fitness = CaptureFitness(format: reader.format)
        var info = CaptureInfo(file: capture.file, reading: reader) { record in
            secrets.add(record)
            fitness.add(record)
        }
        if let container = try ContainerInputs.open(try CaptureOptions.standardInputPath(of: capture.file)) {
            info.container = ContainerListing(container, reading: path)
        }
        let problems = FitnessList(fitness.problems)
        if format != .text {
            try Output.json(WithSecrets(info, secrets.report, fitness: problems), pretty: format == .json)
        } else {
            // What the capture cannot say comes first.
            problems.write(Output.line)
            // With colour, each label is bold.
            info.write { line in Output.line(Style.boldLabel(line)) }
            if let advice = secrets.report.advice { Output.line(Style.boldLabel("secrets:  \(advice)")) }
        }
        try finish(info.fault)
    }
}

/// A JSON document with the `secrets` object and the `fitness` list (`info`, `diagnose`) among
/// its members.
struct WithSecrets<Document: Encodable>: Encodable {
    var document: Document
    var secrets: SecretsReport
    var fitness: FitnessList

    init(_ document: Document, _ secrets: SecretsReport, fitness: FitnessList) {
        (self.document, self.secrets, self.fitness) = (document, secrets, fitness)
    }

    private enum Key: String, CodingKey { case secrets, fitness }

    func encode(to encoder: any Encoder) throws {
        // The document's members go into the same object, as with ``FileNamed``.
        try document.encode(to: encoder)
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(secrets, forKey: .secrets)
        try container.encode(fitness.json, forKey: .fitness)
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
