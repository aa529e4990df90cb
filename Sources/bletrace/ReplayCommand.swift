import ArgumentParser
import BLETrace
import Foundation

/// `bletrace replay FILE [--app NAME]`: play a capture to an app and print its flow;
/// `bletrace replay --list-apps`: the apps.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Replay a capture to an app and print the app's flow (Formats/flow.md).",
        discussion: "Apps: " + ReferenceApps.all.map { "\($0.name) — \($0.summary)" }.joined(separator: "; "))

    @Argument(help: "A capture file: btsnoop, pcap, pcapng or PacketLogger (.pklg); - reads standard input.")
    var file: String?
    @Flag(help: "List the apps a capture can be replayed to, one a line: the name, then what it does.")
    var listApps = false
    @Option(help: "The reference app to replay to (\(ReferenceApps.all.map(\.name).joined(separator: ", "))).")
    var app: String = "mirror"
    @Option(name: .shortAndLong, help: "Write the flow to this file instead of standard output.")
    var output: String?
    @Option(help: "What to do with a request the capture cannot answer: pend (never answered, as by a silent peer), error (CBATTError.unlikelyError) or fail (stop, exit 1). Each is a divergence comment in the flow.")
    var unmatched: UnmatchedPolicy = .pend
    @Flag(help: "Play the capture at its own pace in wall time, with callbacks on the main thread, for app code that uses DispatchQueue.main.asyncAfter or Timer directly (default: capture time, at once).")
    var realtime = false

    func validate() throws {
        guard listApps || file != nil else { throw ValidationError("missing the capture file (or --list-apps)") }
        guard ReferenceApps.named(app) != nil else {
            throw ValidationError("no app named '\(app)'; the apps are: \(ReferenceApps.all.map(\.name).joined(separator: ", "))")
        }
    }

    func run() async throws {
        guard let file, !listApps else {
            for entry in ReferenceApps.all { Output.line("\(entry.name)\t\(entry.summary)") }
            return try finish(nil)
        }
        // Checked first, so that a refused -o (the capture itself, a directory) costs nothing.
        if let output { try Output.redirect(to: output, inputs: [file]) }
        let cassette: Cassette
        let fault: (any Error)?
        do {
            (cassette, fault) = try Cassette.load(path: try CaptureOptions.path(of: file))
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        let entry = ReferenceApps.named(app)!
        let engine = ReplayEngine(cassette: cassette, pacing: realtime ? .realtime : .virtual)
        engine.unmatched = unmatched
        // The events go to a temporary file as they happen (a long capture's flow is not held in
        // memory); the comments, which come first in the text, are known only at the end.
        let writer: FlowWriter
        do { writer = try FlowWriter.spooling() } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        engine.writer = writer
        var flow = await engine.run(entry.make(for: cassette), name: entry.name)
        flow.comments.insert("capture: \((file as NSString).lastPathComponent)  app: \(entry.name)", at: 0)
        do {
            try writer.writeFlow(comments: flow.comments) { chunk in
                Output.text(String(decoding: chunk, as: UTF8.self))
                Output.flush()
            }
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        if engine.failed {
            Output.flush()
            throw Exit.finding
        }
        try finish(fault)
    }
}

extension UnmatchedPolicy: ExpressibleByArgument {}
