import Foundation
import Testing
import TestSupport

/// A reproducer of a crash or hang found by the robustness review (Tests/Fixtures/robustness/README.md says where each comes from).
func robustnessFixture(_ name: String) -> String {
    Fixtures.packageRoot.appendingPathComponent("Tests/Fixtures/robustness").appendingPathComponent(name).path
}

/// Seconds with six decimals and a sign, from a signed distance in microseconds given as sign and
/// magnitude (what `relativeTime` must print, computed here independently).
func signedSeconds(negative: Bool, _ micros: UInt64) -> String {
    let fraction = String(micros % 1_000_000)
    return (negative ? "-" : "+") + "\(micros / 1_000_000)." + String(repeating: "0", count: 6 - fraction.count)
        + fraction
}

/// The raw btsnoop stamps of a file (big-endian at byte 16 of each 24-byte record header).
func btsnoopRawStamps(_ path: String) throws -> [UInt64] {
    let bytes = try Fixtures.contents(path)
    var stamps: [UInt64] = []
    var offset = 16
    while offset + 24 <= bytes.count {
        let included = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
        stamps.append(bytes[offset + 16..<offset + 24].reduce(0) { $0 << 8 | UInt64($1) })
        offset += 24 + included
    }
    return stamps
}

@Suite struct TimestampRobustnessTests {
    static let captures = [
        "c1-ts-first-int64min.btsnoop", "c2-ts-span-int64.btsnoop", "c3-ts-backwards-extreme.btsnoop",
        "c4-pcapng-ts-high-0x80000000.pcapng",
    ]
    static let commands: [[String]] = [
        ["info"], ["decode"], ["decode", "-v"], ["decode", "--format", "jsonl"], ["errors"],
        ["errors", "--format", "json"],
        ["stats"], ["gatt"], ["lifecycle"], ["lifecycle", "--format", "json"], ["lifecycle", "--format", "svg"],
        ["lifecycle", "--format", "html"], ["replay", "--app", "reconnecting"],
    ]

    @Test(arguments: captures)
    func everyReadingCommandReadsFarTimestampsWithoutTrapping(_ name: String) throws {
        for command in Self.commands {
            let result = try run(bletracePath, [command[0], robustnessFixture(name)] + command.dropFirst(), stdin: nil)
            #expect(
                result.status == 0,
                "\(command.joined(separator: " ")) \(name): exit \(result.status), \(result.stderr.prefix(300))")
            #expect(!result.stdout.isEmpty)
        }
    }

    @Test func decodeShowsEachTimeExactlyAsFarFromTheFirstAsTheFileSays() throws {
        for name in ["c1-ts-first-int64min.btsnoop", "c2-ts-span-int64.btsnoop", "c3-ts-backwards-extreme.btsnoop"] {
            let stamps = try btsnoopRawStamps(robustnessFixture(name))
            let lines = try bletrace("decode", robustnessFixture(name)).stdout.split(separator: "\n")
            #expect(lines.count == stamps.count)
            // Timestamps are raw − offset as a signed 64-bit value (wrapping, as the reader
            // keeps them for byte-identical rewrites); the distance between two is exact.
            let times = stamps.map { Int64(bitPattern: $0 &- 0x00DC_DDB3_0F2F_8000) }
            for (line, time) in zip(lines, times) {
                let negative = time < times[0]
                let magnitude = negative ? UInt64(bitPattern: times[0] &- time) : UInt64(bitPattern: time &- times[0])
                let shown = line.split(separator: " ", omittingEmptySubsequences: true)[1]
                #expect(String(shown) == signedSeconds(negative: negative, magnitude), "\(name): \(line)")
            }
        }
    }

    @Test func aPcapngStampPastWhatMicrosecondsHoldIsClampedAndTheRecordKept() throws {
        let result = try bletrace("info", robustnessFixture("c4-pcapng-ts-high-0x80000000.pcapng"))
        #expect(result.status == 0)
        #expect(result.stdout.contains("records:  1"))
        // The nearest time a Timestamp holds: Int64.max µs after 1970, in year 294,247.
        #expect(result.stdout.contains("first:    +294247-01-10T04:00:54.775807Z"))
    }

    @Test func convertCarriesFarTimesOrSaysWhatItCouldNotHold() throws {
        let directory = try Fixtures.temporaryFile([], name: "x")
        for name in ["c1-ts-first-int64min.btsnoop", "c2-ts-span-int64.btsnoop", "c3-ts-backwards-extreme.btsnoop"] {
            for target in ["pcapng", "pcap", "pklg", "btsnoop"] {
                let output = directory + "-\(name).\(target)"
                let result = try bletrace("convert", robustnessFixture(name), output)
                #expect(
                    result.status == 0 || (result.status == 1 && result.stderr.contains("timestamp not kept")),
                    "\(name) → \(target): \(result.stderr)")
                #expect(try bletrace("decode", output).status == 0)
                if result.status == 0 {
                    // Nothing reported lost: every time reads back as it was.
                    #expect(
                        try bletrace("decode", output).stdout == bletrace("decode", robustnessFixture(name)).stdout,
                        "\(name) → \(target)")
                }
            }
        }
    }

    @Test func aFlowTimeOfAnySizeIsShownWithoutTrapping() throws {
        let empty = try Fixtures.temporaryFile([], name: "empty.flow")
        let result = try bletrace("diff", robustnessFixture("c5-flow-time-huge.flow"), empty)
        #expect(result.status == 1)
        #expect(result.stdout.contains("+1e+300 system launch app=reconnecting"))
        #expect(result.stdout.contains("+10000000000000.0 central didUpdateState"))
    }
}

@Suite struct WriteFailureTests {
    /// Runs bletrace with standard output on `output`, returning the status and standard error.
    func run(_ arguments: [String], stdout output: FileHandle) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bletracePath)
        process.arguments = arguments
        process.standardOutput = output
        let err = Pipe()
        process.standardError = err
        try process.run()
        let data = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    func isCharacterDevice(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
    }

    @Test func aFullDeviceOnStandardOutputEndsWithOneLineAndExitCode2() throws {
        try #require(isCharacterDevice("/dev/full"), "/dev/full is not the full device here")
        for command in [
            ["decode", "-v"], ["lifecycle", "--format", "html"], ["stats"], ["errors", "--format", "json"],
        ] {
            let result = try run(
                [command[0], Fixtures.capture("att-errors.btsnoop")] + command.dropFirst(),
                stdout: FileHandle(forWritingAtPath: "/dev/full")!)
            #expect(result.status == 2, "\(command)")
            #expect(result.stderr == "bletrace: standard output: cannot write: No space left on device\n", "\(command)")
        }
    }

    @Test func aClosedPipeOnStandardOutputEndsQuietlyWithExitCode2() throws {
        let pipe = Pipe()
        try pipe.fileHandleForReading.close()
        let result = try run(
            ["decode", "-v", Fixtures.capture("att-errors.btsnoop")], stdout: pipe.fileHandleForWriting)
        #expect(result.status == 2)
        #expect(result.stderr.isEmpty)
    }

    @Test func aFullDeviceAsTheOutputFileIsReportedAndLeftADevice() throws {
        try #require(isCharacterDevice("/dev/full"), "/dev/full is not the full device here")
        let result = try bletrace(
            "replay", Fixtures.capture("att-errors.btsnoop"), "--app", "reconnecting", "-o", "/dev/full")
        #expect(result.status == 2)
        #expect(result.stderr == "bletrace: /dev/full: cannot write: No space left on device\n")
        #expect(isCharacterDevice("/dev/full"))
    }
}

@Suite struct OutputSafetyTests {
    /// A fresh directory holding a copy of a capture, `capture.btsnoop`.
    func workspace() throws -> String {
        let capture = try Fixtures.temporaryFile(
            try Fixtures.contents(Fixtures.capture("reconnect-supervision-timeout.btsnoop")), name: "capture.btsnoop")
        return (capture as NSString).deletingLastPathComponent
    }

    @Test func replayAndConvertNeverWriteOverTheirInputByAnyName() throws {
        let directory = try workspace()
        let capture = directory + "/capture.btsnoop"
        let original = try Fixtures.contents(capture)
        try FileManager.default.linkItem(atPath: capture, toPath: directory + "/hard.btsnoop")
        try FileManager.default.createSymbolicLink(
            atPath: directory + "/link.btsnoop", withDestinationPath: "capture.btsnoop")
        for name in ["capture.btsnoop", "./capture.btsnoop", "hard.btsnoop", "link.btsnoop"] {
            let replay = try bletrace("replay", capture, "--app", "reconnecting", "-o", directory + "/" + name)
            #expect(replay.status == 2, "\(name)")
            #expect(replay.stderr.contains("it is the input file"), "\(name): \(replay.stderr)")
            let convert = try bletrace("convert", capture, directory + "/" + name)
            #expect(convert.status == 2, "\(name)")
            #expect(try Fixtures.contents(capture) == original)
        }
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/link.btsnoop") == "capture.btsnoop")
    }

    @Test func aDirectoryOrAMissingDirectoryIsRefusedByName() throws {
        let directory = try workspace()
        let intoDirectory = try bletrace(
            "replay", directory + "/capture.btsnoop", "--app", "reconnecting", "-o", directory)
        #expect(intoDirectory.status == 2)
        #expect(intoDirectory.stderr == "bletrace: \(directory): cannot write: it is a directory\n")
        let missing = try bletrace(
            "replay", directory + "/capture.btsnoop", "--app", "reconnecting", "-o", directory + "/no/such.flow")
        #expect(missing.status == 2)
        #expect(
            missing.stderr == "bletrace: \(directory)/no/such.flow: cannot write: no such directory (\(directory)/no)\n"
        )
    }

    @Test func aCharacterDeviceIsWrittenThroughNotReplaced() throws {
        let replay = try bletrace(
            "replay", Fixtures.capture("scan.btsnoop"), "--app", "reconnecting", "-o", "/dev/null")
        #expect(replay.status == 0)
        let convert = try bletrace("convert", Fixtures.capture("scan.btsnoop"), "/dev/null", "--to", "pcapng")
        #expect(convert.status == 0)
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && info.st_mode & S_IFMT == S_IFCHR)
    }

    @Test func aSymlinkStaysALinkAndTheFileItNamesIsWritten() throws {
        let directory = try workspace()
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: directory + "/target.flow"))
        try FileManager.default.createSymbolicLink(atPath: directory + "/link.flow", withDestinationPath: "target.flow")
        let result = try bletrace(
            "replay", directory + "/capture.btsnoop", "--app", "reconnecting", "-o", directory + "/link.flow")
        #expect(result.status == 0)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: directory + "/link.flow") == "target.flow")
        #expect(
            try String(contentsOfFile: directory + "/target.flow", encoding: .utf8).hasPrefix("# bletrace flow 2\n"))
        // Nothing left beside it.
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "capture.btsnoop", "link.flow", "target.flow",
            ])
    }

    @Test func aFailedCommandLeavesTheOldOutputFileWhole() throws {
        let directory = try workspace()
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: directory + "/out.flow"))
        try Data("not a capture at all".utf8).write(to: URL(fileURLWithPath: directory + "/bad.btsnoop"))
        let result = try bletrace(
            "replay", directory + "/bad.btsnoop", "--app", "reconnecting", "-o", directory + "/out.flow")
        #expect(result.status == 2)
        #expect(try String(contentsOfFile: directory + "/out.flow", encoding: .utf8) == "old\n")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == [
                "bad.btsnoop", "capture.btsnoop", "out.flow",
            ])
    }

    @Test func aReplacedFileKeepsItsPermissions() throws {
        let directory = try workspace()
        let output = directory + "/out.flow"
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: output))
        chmod(output, 0o640)
        #expect(
            try bletrace("replay", directory + "/capture.btsnoop", "--app", "reconnecting", "-o", output).status == 0)
        var info = stat()
        #expect(stat(output, &info) == 0 && info.st_mode & 0o777 == 0o640)
    }
}
