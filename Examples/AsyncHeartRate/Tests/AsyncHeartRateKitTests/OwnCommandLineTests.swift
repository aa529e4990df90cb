import Foundation
import Testing

/// `async-heart-rate-bletrace`, the team's own bletrace with the async app registered.
@Suite struct OwnCommandLineTests {
    /// Runs the built tool (it sits beside the test bundle in the build folder).
    func tool(_ arguments: String...) throws -> (status: Int32, output: String) {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            .deletingLastPathComponent().appendingPathComponent("async-heart-rate-bletrace")
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

    var capture: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../../../Captures/reconnect-supervision-timeout.btsnoop").standardizedFileURL
            .path
    }

    @Test func replayRunsTheAsyncAppTheSameWayEachTime() throws {
        let first = try tool("replay", capture, "--app", "AsyncHeartRate")
        #expect(first.status == 0)
        let lines = first.output.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(lines.filter { $0.hasSuffix("app connect peripheral=F0:F1:F2:F3:F4:05") }.count == 2)
        #expect(lines.contains { $0.hasSuffix("characteristic=2A38 value=01 error=nil") })
        #expect(lines.filter { $0.contains("characteristic=2A37 value=") }.count == 4)
        #expect(try tool("replay", capture, "--app", "AsyncHeartRate").output == first.output)
    }

    @Test func realTimeReplaysTheAsyncApp() throws {
        let replay = try tool("replay", capture, "--app", "AsyncHeartRate", "--realtime")
        #expect(replay.status == 0)
        let lines = replay.output.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(
            lines.filter { $0.hasSuffix("app connect peripheral=F0:F1:F2:F3:F4:05") }.count == 2, "\(replay.output)")
        #expect(lines.contains { $0.contains("characteristic=2A37 value=") })
    }
}
