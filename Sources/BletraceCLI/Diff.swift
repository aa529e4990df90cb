import ArgumentParser
import BLETrace
import Foundation

/// `bletrace diff EXPECTED ACTUAL`: compare two flows; exit 0 when equal, 1 when not.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Compare an expected flow with an actual one, first divergence first.",
        discussion: """
            Times and comments are ignored. An expected flow written by people may be a pattern: `...` lines match any run \
            of events, `key=*` and `key=PREFIX*` match any value, `@<=SECONDS` after an event asserts it came within that \
            time of the previous expected one, and `# match: in-order` lets any events come between the expected ones \
            (Formats/flow.md). Exact comparisons read both flows as streams, in memory bounded by the events after the \
            first difference; past --limit differences the rest is not aligned. Exit codes: 0 equal, 1 different, 2 bad \
            input. Either file may be - for standard input.
            """)

    @Argument(help: "The expected flow.", completion: .flowFile) var expected: String
    @Argument(help: "The actual flow (as written by bletrace replay).", completion: .flowFile) var actual: String
    @Option(help: "The most differences to align (each costs time in proportion to the flows' length).")
    var limit: Int = FlowDiff.defaultLimit
    @Option(help: "text, json, or junit (JUnit XML for CI).") var format: DiffFormat = .text
    @Option(
        help: ArgumentHelp(
            "none, or peripheral: events of different peripherals may interleave.",
            discussion: "Default: peripheral when the expected flow names several peripherals, else none."))
    var interleave: FlowComparison.Interleave?
    @Flag(help: "When the flows differ, rewrite the expected file with the actual flow (exit 0).") var update = false
    @OptionGroup var destination: DestinationOptions

    enum DiffFormat: String, ExpressibleByArgument, CaseIterable { case text, json, junit }

    func validate() throws {
        guard !(expected == "-" && actual == "-") else {
            throw ValidationError("only one of the two flows can come from standard input")
        }
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
        guard !(update && expected == "-") else {
            throw ValidationError("--update rewrites the expected file: it cannot be -")
        }
    }

    func run() throws {
        try destination.apply(inputs: [expected, actual])
        let comparison: FlowComparison
        let actualReader: FlowReader
        do {
            let expectedReader = try FlowReader(path: expected)
            actualReader = try FlowReader(path: actual)
            expectedReader.checksVocabulary = true
            actualReader.checksVocabulary = true
            // A first look at the expected flow: is it a pattern, does it name several
            // peripherals? A plain one of one peripheral is compared as a stream.
            let outline = try expectedReader.outline()
            let pattern = outline.isPattern
            let mode = interleave ?? (outline.peripherals.count >= 2 ? .peripheral : FlowComparison.Interleave.none)
            try expectedReader.rewind()
            if !pattern && mode == .none {
                comparison = FlowComparison(
                    try FlowDiff.compare(expected: expectedReader, actual: actualReader, limit: limit))
            } else if pattern {
                // A pattern is short; the actual flow is read as a stream.
                let expectation = try FlowExpectation(reading: expectedReader)
                comparison = try FlowComparison.compare(
                    expected: expectation, actual: actualReader, interleave: mode, limit: limit)
            } else {
                // Exact, peripheral by peripheral: both flows in memory.
                let expectation = try FlowExpectation(reading: expectedReader)
                var events: [FlowEvent] = []
                while let located = try actualReader.next() { events.append(located.event) }
                comparison = FlowComparison(
                    expected: expectation, actual: Flow(events: events), interleave: mode, limit: limit)
            }
        } catch {
            Output.error("\(error)")
            // CI reads the report: JUnit says the comparison could not be made (exit 2 still).
            if format == .junit {
                Output.line(FlowComparisonJUnit.error("\(error)", expected: expected, actual: actual))
                try Output.close()
            }
            throw Exit.badInput
        }
        switch format {
        case .text:
            Output.line(Self.colored(String(comparison.report(expectedName: expected, actualName: actual).dropLast())))
        case .json: try Output.json(FlowComparisonJSON(comparison, expected: expected, actual: actual), pretty: true)
        case .junit: Output.line(FlowComparisonJUnit(comparison, expected: expected, actual: actual).xml)
        }
        Output.flush()
        guard !comparison.isEqual else { return }
        if update {
            try rewriteExpected(with: actualReader)
            return
        }
        throw Exit.finding
    }

    /// The text report with its missing lines (`- `) red and its unexpected ones (`+ `) green
    /// when colour is on.
    static func colored(_ report: String) -> String {
        guard Style.enabled else { return report }
        return report.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            let body = line.drop { $0 == " " }
            if body.hasPrefix("- ") { return Style.red(String(line)) }
            if body.hasPrefix("+ ") { return Style.green(String(line)) }
            return String(line)
        }.joined(separator: "\n")
    }

    /// Puts the actual flow in place of the expected file (a new file renamed over it).
    private func rewriteExpected(with reader: FlowReader) throws {
        do {
            let bytes = try reader.contents()
            // Through OutputFile, as every file bletrace writes: a new file renamed over it, a
            // symlink followed.
            try OutputFile.prepare(expected, inputs: []).replaceContents(with: bytes)
            Output.standardError("bletrace: updated \(expected) from \(actual)\n")
        } catch {
            Output.error("cannot update \(expected): \(error)")
            throw Exit.badInput
        }
    }
}

extension FlowComparison.Interleave: ExpressibleByArgument {}
