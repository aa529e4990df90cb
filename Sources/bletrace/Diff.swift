import ArgumentParser
import BLETrace
import Foundation

/// `bletrace diff EXPECTED ACTUAL`: compare two flows; exit 0 when equal, 1 when not.
struct Diff: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Compare an expected flow with an actual one, first divergence first.",
        discussion: "Times and comments are ignored. Exit codes: 0 equal, 1 different, 2 bad input. Either file may be - for standard input.")

    @Argument(help: "The expected flow.") var expected: String
    @Argument(help: "The actual flow (as written by bletrace replay).") var actual: String

    func validate() throws {
        guard !(expected == "-" && actual == "-") else {
            throw ValidationError("only one of the two flows can come from standard input")
        }
    }

    func run() throws {
        let expectedFlow = try load(expected)
        let actualFlow = try load(actual)
        let diff = FlowDiff(expected: expectedFlow, actual: actualFlow)
        Output.line(String(diff.report(expectedName: expected, actualName: actual).dropLast()))
        Output.flush()
        if !diff.isEqual { throw Exit.finding }
    }

    private func load(_ path: String) throws -> Flow {
        let data: Data
        if path == "-" {
            data = FileHandle.standardInput.readDataToEndOfFile()
        } else {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                let contents = FileManager.default.contents(atPath: path)
            else {
                Output.error("\(path): cannot read: \(isDirectory.boolValue ? "it is a directory" : "no such file")")
                throw Exit.badInput
            }
            data = contents
        }
        guard let text = String(data: data, encoding: .utf8) else {
            Output.error("\(path): not UTF-8 text, so not a flow")
            throw Exit.badInput
        }
        do {
            return try Flow(parsing: text, source: path)
        } catch {
            Output.error("\(error)")
            throw Exit.badInput
        }
    }
}
