import Foundation
import Testing

/// `heart-rate-bletrace`, the team's own bletrace (one line: `BletraceCommand.main(apps:)`).
@Suite struct OwnCommandLineTests {
    /// Runs the built tool (it sits beside the test bundle in the build folder).
    func tool(_ arguments: String...) throws -> (status: Int32, output: String) {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("heart-rate-bletrace")
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    var fixtures: URL { URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures") }

    @Test func theAppJoinsTheReferenceApps() throws {
        let (status, output) = try tool("replay", "--list-apps")
        #expect(status == 0)
        let names = output.split(separator: "\n").map { $0.split(separator: "\t").first.map(String.init) ?? "" }
        #expect(names.contains("HeartRateMonitor"))
        #expect(names.contains("mirror"))
    }

    @Test func everySubcommandIsThereAndReplayRunsTheRealAppLogic() throws {
        let capture = fixtures.appendingPathComponent("reconnect-supervision-timeout.btsnoop").path
        let info = try tool("info", capture)
        #expect(info.status == 0 && info.output.contains("records:  102"))
        let replay = try tool("replay", capture, "--app", "HeartRateMonitor")
        #expect(replay.status == 0)
        let golden = try String(
            contentsOf: fixtures.appendingPathComponent("reconnect-supervision-timeout.flow"), encoding: .utf8)
        let events = { (text: String) in
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { line in
                line.hasPrefix("+") ? String(line.drop { $0 != " " }.dropFirst()) : String(line)
            }
        }
        #expect(events(replay.output) == events(golden))
    }
}
