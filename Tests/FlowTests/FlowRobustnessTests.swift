import Foundation
import TestSupport
import Testing

@testable import Flow

/// Writes `text` to a new temporary file and returns its path.
func temporaryFlow(_ text: String, name: String = "f.flow") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bletrace-flow-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent(name).path
    try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    return path
}

/// Every event of a flow file, through the streaming reader.
func readAll(_ path: String) throws -> [FlowEvent] {
    let reader = try FlowReader(path: path)
    var events: [FlowEvent] = []
    while let located = try reader.next() { events.append(located.event) }
    return events
}

@Suite struct FlowLineEndTests {
    static let events = ["system launch app=a", "central didConnect peripheral=A", "app connect peripheral=B"]

    @Test(arguments: ["\n", "\r\n", "\r"])
    func everyLineEndReadsAsALine(end: String) throws {
        let text = "# bletrace flow 1" + end + Self.events.joined(separator: end) + end
        #expect(try Flow(parsing: text).events.map(\.signature) == Self.events)
        #expect(try readAll(temporaryFlow(text)).map(\.signature) == Self.events)
    }

    @Test func mixedLineEndsAndACRLFSplitAcrossReadsStayOneLineEach() throws {
        // 65,535 bytes of comment, so that the CR ends the first 64 KiB read and the LF starts the next.
        let comment = "# " + String(repeating: "c", count: 65_533 - 2)
        let text = comment + "\r\n" + "central a\r" + "central b\n" + "central c\r\n\r\n" + "central d"
        let events = try readAll(temporaryFlow(text))
        #expect(events.map(\.name) == ["a", "b", "c", "d"])
        #expect(events.map(\.lineNumber) == [2, 3, 4, 6])
    }

    @Test func twoDifferentCRLFFlowsDiffer() throws {
        let expected = try Flow(parsing: "central a\r\ncentral b\r\n")
        let actual = try Flow(parsing: "central a\r\ncentral c\r\n")
        let diff = FlowDiff(expected: expected, actual: actual)
        #expect(!diff.isEqual)
        #expect(diff.missing == 1 && diff.unexpected == 1)
    }
}

@Suite struct FlowMessageTests {
    func error(_ text: String) throws -> FlowError? {
        do {
            _ = try readAll(temporaryFlow(text))
            return nil
        } catch let error as FlowError {
            return error
        }
    }

    @Test func anUnknownFormatVersionIsBadInputAtItsColumn() throws {
        let error = try #require(try error("# bletrace flow 3\ncentral a\n"))
        #expect(error.line == 1 && error.column == 17)
        #expect(error.expected.contains("version 2") && error.expected.contains("not `3`"))
        #expect(try self.error("# bletrace flow 1\ncentral a\n") == nil)
        #expect(try self.error("# bletrace flow 2\ncentral a\n") == nil)
    }

    @Test func aNegativeTimeIsATimeNotAnActor() throws {
        let events = try readAll(temporaryFlow("-1.0 central didConnect\n"))
        #expect(events.first?.time == -1)
        #expect(events.first?.line == "-1.000000 central didConnect")
    }

    @Test func anArgumentInPlaceOfTheNameSaysWhatWasExpectedThere() throws {
        let error = try #require(try error("central peripheral=A\n"))
        #expect(error.column == 9)
        #expect(error.expected.contains("an actor and an event name before the arguments"))
    }

    @Test func aLongLineIsRefusedWithoutReadingItWhole() throws {
        let error = try #require(try error(String(repeating: "\0", count: 200_000)))
        #expect(error.line == 1 && error.column == FlowReader.longestLine + 1)
    }

    @Test func textThatIsNotUTF8IsRefused() throws {
        let path = try temporaryFlow("")
        try Data([0x63, 0x20, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: path))
        #expect(throws: FlowError.self) { try readAll(path) }
    }

    @Test func aMissingFileOrADirectoryIsNamed() throws {
        #expect(throws: FlowError(source: "/no/such.flow", line: 0, expected: "", reason: "no such file")) {
            try FlowReader(path: "/no/such.flow")
        }
        #expect(throws: FlowError(source: "/tmp", line: 0, expected: "", reason: "it is a directory, not a flow")) {
            try FlowReader(path: "/tmp")
        }
        // The empty device is an empty flow.
        #expect(try readAll("/dev/null").isEmpty)
    }

    @Test func aFIFONoProgramWritesToIsRefusedAfterTheWait() throws {
        let path = try temporaryFlow("") + ".fifo"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: FlowError.self) { try FlowReader(path: path, streamWait: .milliseconds(200)) }
    }

    @Test func aHugeTimeIsWrittenSoThatItReadsBack() throws {
        for time in [1e300, 1e13, -2.5, 0] {
            let event = FlowEvent(time: time, actor: "central", name: "a")
            #expect(try Flow(parsing: event.line).events.first?.time == time, "\(event.line)")
        }
    }
}

@Suite struct FlowDiffAlignmentTests {
    func flow(_ names: [String]) -> Flow {
        Flow(events: names.map { FlowEvent(time: nil, actor: "central", name: $0) })
    }

    @Test func findsAsFewDifferencesAsTheStandardLibrary() {
        var random = SeededGenerator(seed: 16)
        for _ in 0..<300 {
            let alphabet = ["a", "b", "c", "d"]
            let old = (0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let new = (0..<Int.random(in: 0...30, using: &random)).map { _ in alphabet.randomElement(using: &random)! }
            let diff = FlowDiff(expected: flow(old), actual: flow(new), context: 1_000)
            let reference = new.difference(from: old)
            #expect(diff.missing + diff.unexpected == reference.count, "\(old) → \(new)")
            // With all context, the lines are the whole alignment: replaying it gives both flows.
            let lines = diff.lines
            let rebuiltOld = lines.compactMap { line -> String? in
                switch line {
                case .same(let e), .missing(let e): e.name;
                case .unexpected: nil
                }
            }
            let rebuiltNew = lines.compactMap { line -> String? in
                switch line {
                case .same(let e), .unexpected(let e): e.name;
                case .missing: nil
                }
            }
            if !diff.isEqual {
                #expect(rebuiltOld == old && rebuiltNew == new, "\(old) → \(new)")
            }
            #expect(diff.isEqual == (old == new))
        }
    }

    @Test func moreDifferencesThanTheLimitStopWithTheFirstDivergence() {
        let old = (0..<5_000).map { "a\($0)" }
        let new = (0..<5_000).map { "b\($0)" }
        let clock = ContinuousClock()
        var diff: FlowDiff?
        let elapsed = clock.measure { diff = FlowDiff(expected: flow(old), actual: flow(new), limit: 100) }
        #expect(diff?.exceededLimit == true)
        #expect(diff?.firstDivergence == 0)
        #expect(diff?.report(expectedName: "e", actualName: "a").contains("more than 100 differences") == true)
        #expect(elapsed < .seconds(5))
    }

    @Test func hunksKeepTheirContextAndSplitOnLongSameStretches() {
        let old = (0..<20).map { "e\($0)" }
        var new = old
        new[3] = "x"
        new[15] = "y"
        let diff = FlowDiff(expected: flow(old), actual: flow(new), context: 2)
        #expect(diff.hunks.count == 2)
        #expect(diff.hunks[0].count == 2 + 2 + 2)
        #expect(diff.missing == 2 && diff.unexpected == 2)
        #expect(diff.firstDivergence == 3)
    }

    @Test func streamingAndInMemoryComparisonsAgree() throws {
        var random = SeededGenerator(seed: 1_600)
        let old = (0..<2_000).map { "central e\($0 % 97)" }
        var new = old
        for _ in 0..<20 { new[Int.random(in: 0..<new.count, using: &random)] = "app changed" }
        new.insert("app inserted", at: 1_000)
        let expectedPath = try temporaryFlow(old.joined(separator: "\n"))
        let actualPath = try temporaryFlow(new.joined(separator: "\r\n"))
        let streamed = try FlowDiff.compare(
            expected: FlowReader(path: expectedPath), actual: FlowReader(path: actualPath))
        let inMemory = FlowDiff(
            expected: try Flow(parsing: old.joined(separator: "\n")),
            actual: try Flow(parsing: new.joined(separator: "\n")))
        #expect(
            streamed.report(expectedName: "e", actualName: "a") == inMemory.report(expectedName: "e", actualName: "a"))
        #expect(streamed.missing == inMemory.missing && streamed.unexpected == inMemory.unexpected)
    }
}
