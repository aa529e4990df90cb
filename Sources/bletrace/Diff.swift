import ArgumentParser
import BLETrace
import Foundation

/// `bletrace diff EXPECTED ACTUAL`: compare two flows; exit 0 when equal, 1 when not.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare an expected flow with an actual one, first divergence first.",
        discussion: """
            Times and comments are ignored. Both flows are read as streams, in memory bounded by the events after the first \
            difference; past --limit differences the rest is not aligned. Exit codes: 0 equal, 1 different, 2 bad input. \
            Either file may be - for standard input.
            """)

    @Argument(help: "The expected flow.") var expected: String
    @Argument(help: "The actual flow (as written by bletrace replay).") var actual: String
    @Option(help: "The most differences to align (each costs time in proportion to the flows' length).")
    var limit: Int = FlowDiff.defaultLimit

    func validate() throws {
        guard !(expected == "-" && actual == "-") else {
            throw ValidationError("only one of the two flows can come from standard input")
        }
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() throws {
        let diff: FlowDiff
        do {
            diff = try FlowDiff.compare(expected: FlowReader(path: expected), actual: FlowReader(path: actual), limit: limit)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
        Output.line(String(diff.report(expectedName: expected, actualName: actual).dropLast()))
        Output.flush()
        if !diff.isEqual { throw Exit.finding }
    }
}
