import ArgumentParser
import BLETrace
import Foundation

extension ReplayCommand {
    /// `--sweep link-loss,…|faults`: one replay per fault and point, the report in `--format`,
    /// exit 1 when a fault breaks the app.
    func sweepFaults(
        _ families: [FaultSweep.Family], cassette: Cassette, entry: ReferenceApps.Entry, file: String,
        fault: (any Error)?
    ) async throws {
        var expectation: FlowExpectation?
        if let expect {
            do {
                expectation = try FlowExpectation(
                    parsing: String(contentsOfFile: expect, encoding: .utf8), source: expect)
            } catch {
                Output.error("\(error)")
                throw Exit.badInput
            }
        }
        let capture = Self.captureName(file)
        let progress = StepProgress(name: "fault sweep of \(capture)", quiet: output.quiet)
        var report: (@Sendable (Int, Int) -> Void)?
        if let progress { report = { done, total in progress.advance(done, of: total, unit: "replays") } }
        let sweep = await FaultSweep.run(
            cassette, app: entry, families: families, unmatched: unmatched, events: events,
            launchState: launchState.state, platform: platform,
            points: points, expect: expectation, progress: report)
        progress?.finish()
        let reproduce = { (faults: [Fault]) in reproducer(faults, file: file, app: entry.name) }
        switch format {
        case .text: Output.line(sweep.text(capture: capture, app: entry.name, reproduce: reproduce))
        case .json:
            try Output.json(
                FileNamed(JSONFaultSweep(sweep, capture: capture, app: entry.name, reproduce: reproduce), file: file))
        case .junit: Output.line(JSONFaultSweep(sweep, capture: capture, app: entry.name, reproduce: reproduce).junit)
        }
        Output.flush()
        if !sweep.survived { throw Exit.finding }
        try finish(fault)
    }

    /// The command line that replays `faults` alone, with the options that shaped the sweep.
    func reproducer(_ faults: [Fault], file: String, app: String) -> String {
        let options = replayOptions
        return "bletrace replay \(file) --app \(app)" + (options.isEmpty ? "" : " \(options)")
            + faults.map { " --inject \($0)" }.joined()
    }

    /// `faults` with their `frame:N` points placed at their frames' times.
    func resolvingFrames(_ faults: [Fault], path: String, cassette: Cassette) throws -> [Fault] {
        do {
            return try Fault.resolvingFrames(faults, path: path, origin: cassette.origin)
        } catch {
            Output.error("--inject: \(error)")
            throw Exit.badInput
        }
    }
}
