import ArgumentParser
import BLETrace
import Foundation

/// `bletrace replay FILE --app NAME`: play a capture to an app and print its flow.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture to an app and print the app's flow (Formats/flow.md).",
        discussion: "Apps: " + ReferenceApps.all.map { "\($0.name) — \($0.summary)" }.joined(separator: "; "))

    @OptionGroup var capture: CaptureOptions
    @Option(help: "The reference app to replay to (\(ReferenceApps.all.map(\.name).joined(separator: ", "))).")
    var app: String = "mirror"
    @Option(name: .shortAndLong, help: "Write the flow to this file instead of standard output.")
    var output: String?
    @Option(help: "What to do with a request the capture cannot answer: pend (never answered, as by a silent peer), error (CBATTError.unlikelyError) or fail (stop, exit 1). Each is a divergence comment in the flow.")
    var unmatched: UnmatchedPolicy = .pend
    @Flag(help: "Play the capture at its own pace in wall time, with callbacks on the main thread, for app code that uses DispatchQueue.main.asyncAfter or Timer directly (default: capture time, at once).")
    var realtime = false

    func validate() throws {
        guard ReferenceApps.named(app) != nil else {
            throw ValidationError("no app named '\(app)'; the apps are: \(ReferenceApps.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        // Checked first, so that a refused -o (the capture itself, a directory) costs nothing.
        if let output { try Output.redirect(to: output, inputs: [capture.file]) }
        let cassette: Cassette
        let fault: (any Error)?
        do {
            (cassette, fault) = try Cassette.load(path: capture.file)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        let entry = ReferenceApps.named(app)!
        let engine = ReplayEngine(cassette: cassette, pacing: realtime ? .realtime : .virtual)
        engine.unmatched = unmatched
        var flow = await engine.run(entry.make(for: cassette), name: entry.name)
        flow.comments.insert("capture: \((capture.file as NSString).lastPathComponent)  app: \(entry.name)", at: 0)
        Output.line(String(flow.text.dropLast()))
        if engine.failed { throw Exit.finding }
        try finish(fault)
    }
}

extension UnmatchedPolicy: ExpressibleByArgument {}
