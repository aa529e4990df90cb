import Foundation
import TestSupport
import Testing

/// The analysis commands share one set of output options: `--format text|json|jsonl`, `-o FILE`,
/// `-` for standard input, `--color`, and JSON documents that are objects with a version.
@Suite struct ConsistentCLITests {
    static let analysisCommands = ["info", "decode", "errors", "stats", "lifecycle", "gatt"]
    let capture = Fixtures.capture("att-errors.btsnoop")

    @Test(arguments: analysisCommands)
    func everyAnalysisCommandWritesAJSONObjectWithAVersion(_ command: String) throws {
        let result = try bletrace(command, capture, "--format", "json")
        #expect(result.status == 0, "\(result.stderr)")
        let document = try json(result.stdout)
        #expect(document["version"] as? Int == 3)
    }

    @Test(arguments: analysisCommands)
    func everyAnalysisCommandWritesJSONLinesEachAnObjectWithAVersion(_ command: String) throws {
        let result = try bletrace(command, capture, "--format", "jsonl")
        #expect(result.status == 0, "\(result.stderr)")
        let lines = try jsonLines(result.stdout)
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0["version"] as? Int == 3 })
    }

    @Test(arguments: analysisCommands)
    func everyAnalysisCommandWritesToTheFileOfDashOAndNothingToStandardOutput(_ command: String) throws {
        let out = try Fixtures.temporaryFile([], name: "\(command).out")
        let result = try bletrace(command, capture, "-o", out)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        let direct = try bletrace(command, capture)
        #expect(String(decoding: try Fixtures.contents(out), as: UTF8.self) == direct.stdout)
    }

    @Test(arguments: analysisCommands)
    func everyAnalysisCommandReadsTheCaptureFromStandardInputGivenDash(_ command: String) throws {
        let bytes = Data(try Fixtures.contents(capture))
        let piped = try bletrace([command, "-", "--format", "json"], input: bytes)
        #expect(piped.status == 0, "\(piped.stderr)")
        var fromFile = try json(try bletrace(command, capture, "--format", "json").stdout)
        var fromPipe = try json(piped.stdout)
        // info names the file it read.
        fromFile["file"] = nil
        fromPipe["file"] = nil
        #expect(NSDictionary(dictionary: fromFile) == NSDictionary(dictionary: fromPipe))
    }

    @Test func dashOIsRefusedWhenItIsTheCaptureBeingRead() throws {
        let copy = try Fixtures.temporaryFile(try Fixtures.contents(capture), name: "in.btsnoop")
        let result = try bletrace("lifecycle", copy, "-o", copy)
        #expect(result.status == 2)
        #expect(try Fixtures.contents(copy) == (try Fixtures.contents(capture)))
    }

    @Test(.sharedCaptures) func errorsFailOnUnexpectedOrAnyExitsOneForCI() throws {
        // att-errors has five unexpected ATT errors; syssi-antbms-ble24bhub only Attribute Not
        // Found ending discoveries; scan none at all.
        let antbms = Fixtures.publicCapture("syssi-antbms-ble24bhub.btsnoop")
        #expect(try bletrace("errors", capture).status == 0)
        #expect(try bletrace("errors", capture, "--fail-on", "unexpected").status == 1)
        #expect(try bletrace("errors", antbms, "--fail-on", "unexpected").status == 0)
        #expect(try bletrace("errors", antbms, "--fail-on", "any").status == 1)
        #expect(try bletrace("errors", Fixtures.capture("scan.btsnoop"), "--fail-on", "any").status == 0)
        #expect(try bletrace("errors", capture, "--fail-on", "sometimes").status == 2)
    }

    @Test func recordsAreNumberedAsWiresharkFramesInTextAndBothWaysInJSON() throws {
        // The first ATT Error Response of att-errors is tshark's frame 43 (index 42).
        let text = try bletrace("decode", capture).stdout.split(separator: "\n")
        let line = try #require(text.first { $0.contains("ATT Error Response") })
        #expect(line.split(separator: " ").first == "43")
        let errors = try #require(
            try json(try bletrace("errors", capture, "--format", "json").stdout)["errors"] as? [[String: Any]])
        #expect(errors.first?["index"] as? Int == 42)
        #expect(errors.first?["frame"] as? Int == 43)
        #expect(try bletrace("errors", capture, "--all").stdout.contains("frame 43"))
    }

    @Test func lifecycleJSONGivesMillisecondsWithTheRawUnitsBesideThem() throws {
        let document = try json(
            try bletrace("lifecycle", Fixtures.capture("reconnect-supervision-timeout.btsnoop"), "--format", "json")
                .stdout)
        let connection = try #require((document["connections"] as? [[String: Any]])?.first)
        // Captures/README.md: interval 12 (15 ms), supervision timeout 72 (720 ms).
        #expect(connection["interval_raw"] as? Int == 12)
        #expect(connection["interval_ms"] as? Double == 15)
        #expect(connection["supervision_timeout_raw"] as? Int == 72)
        #expect(connection["supervision_timeout_ms"] as? Int == 720)
        #expect(connection["interval"] == nil)
        #expect(connection["connect_ts_us"] is Int)
        #expect(connection["connect_frame"] as? Int == (connection["connect_index"] as? Int).map { $0 + 1 })
    }

    @Test(.sharedCaptures) func lifecycleJSONGivesTheEffectiveMTUAndWhetherItWasExchanged() throws {
        let exchanged = try json(try bletrace("lifecycle", capture, "--format", "json").stdout)
        let first = try #require((exchanged["connections"] as? [[String: Any]])?.first)
        #expect(first["mtu"] as? Int == 247)
        #expect(first["mtu_exchanged"] as? Bool == true)
        // lightsapp's four LE connections begin in the capture and never exchange an MTU.
        let lights = try json(
            try bletrace("lifecycle", Fixtures.publicCapture("mchwalisz-lightsapp.btsnoop"), "--format", "json").stdout)
        let connections = try #require(lights["connections"] as? [[String: Any]])
        let le = connections.filter { $0["transport"] as? String == "le" && $0["outcome"] as? String != "failed" }
        #expect(!le.isEmpty)
        #expect(le.allSatisfy { $0["mtu"] as? Int == 23 && $0["mtu_exchanged"] as? Bool == false })
    }

    @Test func writeCommandsAreCountedApartFromWriteRequests() throws {
        // att-errors writes with Write Requests only (Captures/README.md).
        let document = try json(try bletrace("lifecycle", capture, "--format", "json").stdout)
        let att = try #require((document["connections"] as? [[String: Any]])?.first?["att"] as? [String: Any])
        let requests = try #require(att["requests"] as? Int)
        let reads = try #require(att["reads"] as? Int)
        let writes = try #require(att["writes"] as? Int)
        #expect(reads + writes <= requests)
        #expect(att["write_commands"] as? Int == 0)
    }

    @Test func colourOnlyWhenAskedOrOnATerminalWithoutNOCOLOR() throws {
        let escape = "\u{1B}["
        #expect(try bletrace("errors", capture, "--color", "always").stdout.contains(escape))
        #expect(!(try bletrace("errors", capture)).stdout.contains(escape))  // a pipe, not a terminal
        #expect(!(try bletrace("errors", capture, "--color", "never")).stdout.contains(escape))
        #expect(try bletrace(["errors", capture, "--color", "bright"]).status == 2)
    }
}
