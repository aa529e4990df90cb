import Foundation
import TestSupport
import Testing

/// The progress line (`ProgressLine`): on standard error only when it is a terminal, never with
/// `--quiet`, never between decode's lines on the same terminal. A terminal comes from
/// `script(1)` (util-linux), which runs the command on a pseudo-terminal; BLETRACE_PROGRESS=always
/// drops the size and time thresholds so that a small capture shows it.
@Suite struct ProgressTests {
    static let capture = Fixtures.capture("reconnect-supervision-timeout.btsnoop")

    /// What the command wrote to the terminal (standard output and error together), and its status.
    func onTerminal(_ arguments: [String]) throws -> (status: Int32, text: String) {
        let command = ([bletracePath] + arguments).map { "'\($0)'" }.joined(separator: " ")
        var environment = ProcessInfo.processInfo.environment
        environment["BLETRACE_PROGRESS"] = "always"
        let result = try run("/usr/bin/script", ["-qec", command, "/dev/null"], input: nil, environment: environment)
        return (result.status, result.stdout)
    }

    @Test(arguments: ["stats", "errors", "lifecycle"])
    func showsBytesAndRecordsPerSecondOnATerminalThenErasesTheLine(_ command: String) throws {
        let (status, text) = try onTerminal([command, Self.capture])
        #expect(status == 0)
        #expect(text.contains("\(Self.capture): "))
        #expect(text.contains(" MB (") && text.contains("records/s"))
        // Erased before the report: the last progress text is followed by the erase sequence.
        let erase = "\r\u{1B}[K"
        let lastProgress = try #require(text.range(of: "records/s", options: .backwards))
        #expect(text[lastProgress.upperBound...].hasPrefix(erase))
        #expect(text.count > text.distance(from: text.startIndex, to: lastProgress.upperBound) + erase.count)
    }

    /// A sweep counts its replays on the terminal, erases the line before its report, and shows
    /// none with --quiet.
    @Test func theSweepCountsItsReplaysOnATerminal() throws {
        let capture = Fixtures.capture("restore-notifying.btsnoop")
        let (status, text) = try onTerminal(["replay", capture, "--app", "restoring", "--sweep", "terminate"])
        #expect(status == 0)
        let line = try #require(text.range(of: "terminate sweep of restore-notifying.btsnoop: "), "\(text)")
        #expect(text[line.upperBound...].prefix(20).contains(" replays"), "\(text)")
        let last = try #require(text.range(of: " replays", options: .backwards))
        #expect(text[last.upperBound...].hasPrefix("\r\u{1B}[K"))
        #expect(text.contains("terminate sweep of restoring on restore-notifying.btsnoop: 13 kill points"))
        let (_, quiet) = try onTerminal(["replay", capture, "--app", "restoring", "--sweep", "terminate", "--quiet"])
        #expect(!quiet.contains(" replays"))
        #expect(quiet.contains("kill points"))
    }

    @Test func quietShowsNone() throws {
        let (status, text) = try onTerminal(["stats", "--quiet", Self.capture])
        #expect(status == 0)
        #expect(!text.contains("records/s"))
        #expect(text.contains("records,"))
    }

    @Test func showsNoneWhenStandardErrorIsNotATerminal() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["BLETRACE_PROGRESS"] = "always"
        for arguments in [["stats", Self.capture], ["decode", Self.capture]] {
            let result = try run(bletracePath, arguments, input: nil, environment: environment)
            #expect(result.status == 0)
            #expect(result.stderr.isEmpty)
        }
    }

    @Test func decodeShowsItOnlyWhenItsLinesGoElsewhere() throws {
        let (_, text) = try onTerminal(["decode", Self.capture])
        #expect(!text.contains("records/s"))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "bletrace-progress-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (status, redirected) = try onTerminal([
            "decode", Self.capture, "-o", directory.appendingPathComponent("out.txt").path,
        ])
        #expect(status == 0)
        #expect(redirected.contains("records/s"))
    }
}
