import Foundation
import TestSupport
import Testing

@testable import Flow

/// Expected flows written by people: `...`, wildcards, `# match: in-order`, timing assertions,
/// interleaved peripherals (Formats/flow.md, "Expected flows written by people").
@Suite struct FlowExpectationTests {
    /// The actual flow of the reference app "reconnecting" on reconnect-supervision-timeout.
    static let reconnect = """
        # bletrace flow 2
        +0.000000 system launch app=reconnecting
        +0.000000 central didUpdateState state=poweredOn
        +0.000000 app connect peripheral=F0:F1:F2:F3:F4:05
        +0.264946 central didConnect peripheral=F0:F1:F2:F3:F4:05
        +0.680858 central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout
        +0.680858 app connect peripheral=F0:F1:F2:F3:F4:05
        +1.595136 central didConnect peripheral=F0:F1:F2:F3:F4:05
        """
    static let disconnectThenConnect = """
        central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=CBError.connectionTimeout
        app connect peripheral=F0:F1:F2:F3:F4:05
        """

    func compare(_ expected: String, _ actual: String = reconnect, interleave: FlowComparison.Interleave? = nil) throws
        -> FlowComparison
    {
        FlowComparison(
            expected: try FlowExpectation(parsing: expected), actual: try Flow(parsing: actual), interleave: interleave)
    }

    @Test func theIssuesTwoLineExpectationIsExactUntilItSaysOtherwise() throws {
        // As written, the file is an exact expectation: five actual events are not in it.
        let exact = try compare(Self.disconnectThenConnect)
        #expect(!exact.isEqual)
        #expect(!exact.isPattern)
        #expect(exact.sections[0].diff.missing == 0)
        #expect(exact.sections[0].diff.unexpected == 5)
        #expect(exact.report(expectedName: "e", actualName: "a").contains("`# match: in-order`"))
        // With `# match: in-order`, or with `...` where other events may come, it passes.
        #expect(try compare("# match: in-order\n" + Self.disconnectThenConnect).isEqual)
        #expect(try compare("...\n" + Self.disconnectThenConnect + "\n...").isEqual)
    }

    @Test func aGapMatchesOnlyWhereItStands() throws {
        // The two events are adjacent in the actual flow; the connect comes 3 events after the launch.
        #expect(try compare("system launch app=reconnecting\n...\n" + Self.disconnectThenConnect + "\n...").isEqual)
        let anchored = try compare(Self.disconnectThenConnect + "\n...")
        #expect(!anchored.isEqual)
        #expect(anchored.sections[0].diff.missing == 2)
        #expect(anchored.sections[0].diff.firstDivergence == 0)
        // Without a trailing gap the last expected event must be the last actual one.
        let open = try compare("...\n" + Self.disconnectThenConnect)
        #expect(open.sections[0].diff.unexpected == 1 && open.sections[0].diff.missing == 0)
        // A gap matches an empty run too.
        #expect(
            try compare("...\nsystem launch app=reconnecting\n...\ncentral didUpdateState state=poweredOn\n...").isEqual
        )
    }

    @Test func inOrderStillNeedsTheOrder() throws {
        let swapped = try compare(
            "# match: in-order\napp connect peripheral=F0:F1:F2:F3:F4:05\nsystem launch app=reconnecting")
        #expect(!swapped.isEqual)
        #expect(swapped.sections[0].diff.missing == 1)
    }

    @Test(arguments: [
        ("central didDisconnectPeripheral peripheral=F0:F1:F2:F3:F4:05 error=*", true),
        ("central didDisconnectPeripheral peripheral=F0:* error=CBError.connection*", true),
        ("central didDisconnectPeripheral peripheral=* error=CBError.peripheral*", false),
        ("central didDisconnectPeripheral peripheral=*", false),
        ("central didDisconnectPeripheral error=* peripheral=*", false),
    ])
    func wildcardsMatchAnyValueOrAPrefix(line: String, matches: Bool) throws {
        #expect(try compare("...\n\(line)\n...").isEqual == matches)
    }

    @Test func timingAssertionsCountFromThePreviousExpectedEvent() throws {
        // The second connection comes 0.914278 s after the reconnect request.
        let within =
            "...\napp connect peripheral=F0:F1:F2:F3:F4:05\ncentral didConnect peripheral=F0:F1:F2:F3:F4:05 @<=1.0"
        #expect(try compare(within).isEqual)
        let tooSlow = try compare(within.replacingOccurrences(of: "@<=1.0", with: "@<=0.5"))
        #expect(!tooSlow.isEqual)
        #expect(tooSlow.sections[0].diff.isEqual)
        let failure = try #require(tooSlow.sections[0].timing.first)
        #expect(failure.interval == 0.914278)
        #expect(failure.expectedIndex == 1)
        #expect(failure.expected.lineNumber == 3)
        #expect(tooSlow.report(expectedName: "e", actualName: "a").contains("timing: e:3: "))
        #expect(try !compare(within.replacingOccurrences(of: "@<=1.0", with: "@>=1.0")).isEqual)
        // The first expected event counts from the start of the replay.
        #expect(try compare("...\ncentral didConnect peripheral=F0:F1:F2:F3:F4:05 @<=0.3\n...").isEqual)
        // An actual flow without times cannot show the timing.
        let untimed = try compare(within, Self.reconnect.replacingOccurrences(of: "+1.595136 ", with: ""))
        #expect(untimed.sections[0].timing.first?.interval == nil)
        #expect(!untimed.isEqual)
    }

    @Test func aMalformedTimingAssertionIsBadInput() {
        #expect(throws: FlowError.self) { try FlowExpectation(parsing: "app connect peripheral=A @<=soon") }
        #expect(throws: FlowError.self) { try FlowExpectation(parsing: "app connect peripheral=A @~=1") }
        #expect(throws: FlowError.self) { try FlowExpectation(parsing: "# match: sometimes") }
    }

    static let twoPeripherals = """
        system launch app=x
        app connect peripheral=AA:00:00:00:00:01
        app connect peripheral=BB:00:00:00:00:02
        central didConnect peripheral=BB:00:00:00:00:02
        central didConnect peripheral=AA:00:00:00:00:01
        app discoverServices peripheral=AA:00:00:00:00:01 services=nil
        """

    @Test func peripheralsMayInterleaveWhenTheExpectationNamesSeveral() throws {
        let expected = """
            system launch app=x
            app connect peripheral=AA:00:00:00:00:01
            central didConnect peripheral=AA:00:00:00:00:01
            app discoverServices peripheral=AA:00:00:00:00:01 services=nil
            app connect peripheral=BB:00:00:00:00:02
            central didConnect peripheral=BB:00:00:00:00:02
            """
        let auto = try compare(expected, Self.twoPeripherals)
        #expect(auto.interleave == .peripheral)
        #expect(auto.isEqual)
        #expect(auto.sections.map(\.peripheral) == ["AA:00:00:00:00:01", "BB:00:00:00:00:02"])
        #expect(try !compare(expected, Self.twoPeripherals, interleave: FlowComparison.Interleave.none).isEqual)
        // Each peripheral keeps its own order.
        let reordered = expected.replacingOccurrences(
            of: "app connect peripheral=BB:00:00:00:00:02\ncentral didConnect peripheral=BB:00:00:00:00:02",
            with: "central didConnect peripheral=BB:00:00:00:00:02\napp connect peripheral=BB:00:00:00:00:02")
        let broken = try compare(reordered, Self.twoPeripherals)
        #expect(!broken.isEqual)
        #expect(broken.sections.filter { !$0.isEqual }.map(\.peripheral) == ["BB:00:00:00:00:02"])
        // Events of no peripheral keep their place relative to every peripheral.
        let lateLaunch = try compare(
            expected.replacingOccurrences(of: "system launch app=x\n", with: "") + "\nsystem launch app=x",
            Self.twoPeripherals)
        #expect(!lateLaunch.isEqual)
    }

    @Test func aPatternTooLargeToLineUpKeepsItsVerdict() throws {
        let actual = try Flow(parsing: Self.reconnect)
        for text in [
            "...\n" + Self.disconnectThenConnect + "\n...", Self.disconnectThenConnect + "\n...",
            "# match: in-order\napp connect peripheral=F0:F1:F2:F3:F4:05\nsystem launch app=reconnecting",
            "# match: in-order\ncentral didConnect peripheral=F0:F1:F2:F3:F4:05\ncentral didConnect peripheral=F0:F1:F2:F3:F4:05",
        ] {
            let expectation = try FlowExpectation(parsing: text)
            let small = FlowComparison(expected: expectation, actual: actual, cells: 8)
            let whole = FlowComparison(expected: expectation, actual: actual)
            #expect(small.isEqual == whole.isEqual, "\(text)")
            #expect(small.sections[0].unaligned == !whole.isEqual, "\(text)")
            #expect(small.sections[0].diff.hunks.isEmpty)
            if !whole.isEqual {
                #expect(small.report(expectedName: "e", actualName: "a").contains("too many to line up"))
            }
        }
    }

    @Test func streamingAndInMemoryPatternComparisonsAgree() throws {
        let expected = try FlowExpectation(
            parsing: "...\ncentral didDisconnectPeripheral peripheral=* error=nil\napp connect peripheral=F0:*\n...")
        let path = try Fixtures.temporaryFile(Array(Self.reconnect.utf8), name: "actual.flow")
        let streamed = try FlowComparison.compare(expected: expected, actual: FlowReader(path: path))
        let inMemory = FlowComparison(expected: expected, actual: try Flow(parsing: Self.reconnect))
        #expect(!streamed.isEqual)
        #expect(
            streamed.report(expectedName: "e", actualName: "a") == inMemory.report(expectedName: "e", actualName: "a"))
        #expect(
            streamed.report(expectedName: "e", actualName: "a").contains(
                "- central didDisconnectPeripheral peripheral=* error=nil"))
    }

    @Test func pastTheLimitTheDifferencesAreCountedNotShown() throws {
        let expected = try FlowExpectation(
            parsing: "system launch app=reconnecting\n...\nperipheral didModifyServices peripheral=*\n")
        let comparison = FlowComparison(expected: expected, actual: try Flow(parsing: Self.reconnect), limit: 1)
        let diff = comparison.sections[0].diff
        #expect(diff.missing == 1)
        #expect(diff.exceededLimit == false)
        let strict = FlowComparison(
            expected: try FlowExpectation(parsing: "system launch app=reconnecting"),
            actual: try Flow(parsing: Self.reconnect), limit: 2)
        #expect(!strict.isPattern)
        let many = FlowComparison(
            expected: try FlowExpectation(parsing: "system launch app=reconnecting\napp connect peripheral=*"),
            actual: try Flow(parsing: Self.reconnect), limit: 2)
        #expect(many.sections[0].diff.exceededLimit)
        #expect(many.sections[0].diff.unexpected == 5)
        #expect(many.report(expectedName: "e", actualName: "a").contains("(the first 2 shown)"))
    }

    @Test func anExactExpectationComparesAsBefore() throws {
        let comparison = try compare(Self.reconnect)
        #expect(comparison.isEqual)
        #expect(!comparison.isPattern)
        #expect(comparison.report(expectedName: "e", actualName: "a") == "flows are equal (7 events)\n")
    }
}

/// The line-up's verdict against a plain recursive search, on random small patterns.
@Suite struct FlowPatternVerdictTests {
    /// Whether `events` can be lined up with `patterns` from i and j on, by trying everything.
    func search(_ patterns: [FlowExpectation.Pattern], _ gapAfter: Bool, _ events: [FlowEvent], _ i: Int, _ j: Int)
        -> Bool
    {
        let free = i < patterns.count ? patterns[i].gapBefore : gapAfter
        if i == patterns.count && j == events.count { return true }
        if j < events.count, free, search(patterns, gapAfter, events, i, j + 1) { return true }
        if i < patterns.count, j < events.count, FlowExpectation.matches(patterns[i].event, events[j]) {
            return search(patterns, gapAfter, events, i + 1, j + 1)
        }
        return false
    }

    @Test func theLineUpPassesExactlyWhenSomeLineUpExists() throws {
        var random = SeededGenerator(seed: 13)
        let names = ["connect", "cancelPeripheralConnection", "stopScan"]
        let values = ["A", "B"]
        for _ in 0..<400 {
            var text = Bool.random(using: &random) ? "# match: in-order\n" : ""
            for _ in 0..<Int.random(in: 0...5, using: &random) {
                if Int.random(in: 0..<4, using: &random) == 0 {
                    text += "...\n"
                } else {
                    let value = Int.random(in: 0..<4, using: &random) == 0 ? "*" : values.randomElement(using: &random)!
                    text += "app \(names.randomElement(using: &random)!) peripheral=\(value)\n"
                }
            }
            let actual = (0..<Int.random(in: 0...7, using: &random)).map { _ in
                FlowEvent(
                    time: nil, actor: "app", name: names.randomElement(using: &random)!,
                    arguments: [.init("peripheral", values.randomElement(using: &random)!)])
            }
            let expectation = try FlowExpectation(parsing: text)
            let comparison = FlowComparison(
                expected: expectation, actual: Flow(events: actual), interleave: FlowComparison.Interleave.none)
            let expected = search(expectation.patterns, expectation.gapAfter, actual, 0, 0)
            #expect(comparison.isEqual == expected, "\(text) against \(actual.map(\.signature))")
            // A difference is shown whenever there is one.
            #expect(comparison.isEqual == comparison.sections[0].diff.hunks.isEmpty, "\(text)")
        }
    }
}
