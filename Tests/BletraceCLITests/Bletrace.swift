import Foundation
import TestSupport

/// Runs the built `bletrace` (it sits beside the test bundle in the build folder).
func bletrace(_ arguments: String..., stdin: String? = nil) throws -> ProcessResult {
    try run(bletracePath, arguments, stdin: stdin)
}

/// Runs the built `bletrace` with bytes on its standard input and, if given, only `environment`.
func bletrace(_ arguments: [String], input: Data? = nil, environment: [String: String]? = nil) throws -> ProcessResult {
    try run(bletracePath, arguments, input: input, environment: environment)
}

let bletracePath: String = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    .deletingLastPathComponent().appendingPathComponent("bletrace").path

/// Parses JSON Lines into dictionaries.
func jsonLines(_ text: String) throws -> [[String: Any]] {
    try text.split(separator: "\n").map { line in
        try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
    }
}

func json(_ text: String) throws -> [String: Any] {
    try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [String: Any]
}
